import { useEffect, useState } from "react";
import * as Toast from "@radix-ui/react-toast";
// One module per icon: the package's index would make esbuild read all of them.
import X from "lucide-react/icons/x";
import type { ToasterProps } from "./Toaster.props.ts";
import { dismissToast, subscribe, type Toast as ToastData } from "./lib/toasts.ts";

/**
 * The notification area: one toast at a time (a new one replaces it), shown for
 * 5 seconds, dismissed by a swipe right past 50 px, focused with F8. It renders
 * only once hydrated: toasts need JavaScript anyway, and Radix's server HTML would
 * carry an inline style that a strict Content-Security-Policy refuses. On a
 * right-to-left page the toasts sit at the bottom left and swipe away leftwards.
 */
export default function Toaster({ words }: ToasterProps) {
  const [mounted, setMounted] = useState(false);
  const [rtl, setRtl] = useState(false);
  const [toast, setToast] = useState<ToastData | null>(null);

  useEffect(() => {
    setMounted(true);
    setRtl(document.documentElement.dir === "rtl");
    return subscribe(setToast);
  }, []);

  if (!mounted) return null;
  return (
    <Toast.Provider duration={5000} swipeDirection={rtl ? "left" : "right"} swipeThreshold={50} label={words.region}>
      {toast && (
        <Toast.Root
          key={toast.id}
          className={`toast toast--${toast.variant}`}
          type={toast.variant === "destructive" ? "foreground" : "background"}
          onOpenChange={(open) => {
            if (!open) dismissToast(toast.id);
          }}
        >
          <div className="toast__content">
            <Toast.Title className="toast__title">{toast.title}</Toast.Title>
            {toast.description && <Toast.Description className="toast__description">{toast.description}</Toast.Description>}
          </div>
          <Toast.Close className="toast__close" aria-label={words.close}>
            <X aria-hidden="true" size={16} />
          </Toast.Close>
        </Toast.Root>
      )}
      <Toast.Viewport className="toast-viewport" label={words.region} />
    </Toast.Provider>
  );
}
