import { useEffect, useRef, useState } from "react";
// One module per icon: the package's index would make esbuild read all of them.
import Menu from "lucide-react/icons/menu";
import Search from "lucide-react/icons/search";
import X from "lucide-react/icons/x";
import type { HeaderProps } from "./Header.props.ts";
import { isActive, isSolid } from "./lib/header.ts";

const MENU_ID = "site-menu";

/**
 * The site header. Before hydration (and with JavaScript off) it is a plain bar
 * whose links wrap on small screens; once hydrated it is fixed, transparent at the
 * top, solid past 10 px of scroll, and collapses into a toggle menu on small screens.
 */
export default function Header({ brand, links, active, cta }: HeaderProps) {
  const [ready, setReady] = useState(false);
  const [scrollY, setScrollY] = useState(0);
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    setReady(true);
    const update = () => setScrollY(window.scrollY);
    update();
    window.addEventListener("scroll", update, { passive: true });
    return () => window.removeEventListener("scroll", update);
  }, []);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setOpen(false);
        toggle.current?.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <header
      className="site-header"
      data-ready={ready ? "" : undefined}
      data-solid={isSolid(scrollY, open) ? "" : undefined}
      data-open={open ? "" : undefined}
    >
      <div className="site-header__bar container">
        <a className="site-header__brand" href={brand.href}>
          {brand.label}
        </a>
        {/* Before the menu, so Tab goes from the toggle into the open menu. */}
        <button
          ref={toggle}
          type="button"
          className="icon-button site-header__toggle"
          aria-label="Menu"
          aria-expanded={open}
          aria-controls={MENU_ID}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? <X aria-hidden="true" size={22} /> : <Menu aria-hidden="true" size={22} />}
        </button>
        <nav id={MENU_ID} className="site-header__nav" aria-label="Main">
          <ul>
            {links.map((link) => (
              <li key={link.href}>
                <a
                  href={link.href}
                  aria-current={isActive(link, active) ? "page" : undefined}
                  onClick={() => setOpen(false)}
                >
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="site-header__actions">
          <button type="button" className="icon-button" aria-label="Search (coming soon)" disabled>
            <Search aria-hidden="true" size={20} />
          </button>
          <a className="button button--primary site-header__cta" href={cta.href}>
            {cta.label}
          </a>
        </div>
      </div>
    </header>
  );
}
