// Live preview for `site serve` (never part of a built site): reloads the page
// after each successful rebuild, shows build errors over the page until the next
// good build, and the warnings of a good build in a corner panel.
(() => {
  const events = new EventSource("/__site/events");
  const MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";
  let overlay = null;

  function hide() {
    overlay?.remove();
    overlay = null;
  }

  function element(tag, text, style) {
    const e = document.createElement(tag);
    e.textContent = text;
    Object.assign(e.style, style);
    return e;
  }

  /** Replaces what is shown with a panel: `attributes` on it, then `children`. */
  function panel(attributes, style, children) {
    hide();
    overlay = element("div", "", { position: "fixed", zIndex: "2147483647", overflow: "auto", ...style });
    for (const [name, value] of Object.entries(attributes)) overlay.setAttribute(name, value);
    overlay.append(...children);
    document.body.append(overlay);
  }

  const report = (text) => element("pre", text, { whiteSpace: "pre-wrap", margin: "0" });

  function show(text) {
    panel(
      { role: "alertdialog", "aria-label": "Build failed", id: "site-build-error" },
      { inset: "0", background: "rgba(10, 14, 24, 0.94)", color: "#f5f7fb", padding: "2rem", font: `14px/1.5 ${MONO}` },
      [
        element("h2", "The site did not build", { color: "#ff8a80", font: "bold 18px system-ui, sans-serif", margin: "0 0 1rem" }),
        element("p", "The last good build is still served. Fix the problem and save: this page reloads by itself.", {
          font: "15px system-ui, sans-serif", margin: "0 0 1rem",
        }),
        report(text),
      ],
    );
  }

  // Warnings do not stop the build: a panel in a corner, closed with its button.
  function warn(text) {
    const close = element("button", "Close", { float: "right", font: "14px system-ui, sans-serif" });
    close.type = "button";
    close.addEventListener("click", hide);
    panel(
      { role: "status", id: "site-build-warnings" },
      {
        right: "1rem", bottom: "1rem", maxWidth: "min(44rem, calc(100vw - 2rem))", maxHeight: "50vh",
        background: "#fff8e1", color: "#3e2c00", border: "1px solid #e0b000", borderRadius: "8px",
        padding: "1rem", boxShadow: "0 8px 24px rgba(0,0,0,.2)", font: `13px/1.5 ${MONO}`,
      },
      [
        close,
        element("strong", "The site built, with warnings", { display: "block", font: "bold 15px system-ui, sans-serif", margin: "0 0 .5rem" }),
        report(text),
      ],
    );
  }

  // Marks the page once the server has been heard, from which point it hears
  // every rebuild (the server's first event tells what the last build left).
  const heard = () => (document.documentElement.dataset.siteLive = "connected");
  for (const type of ["build-ok", "build-warnings", "build-error"]) events.addEventListener(type, heard);
  events.addEventListener("reload", () => location.reload());
  events.addEventListener("build-warnings", (e) => warn(JSON.parse(e.data)));
  events.addEventListener("build-error", (e) => show(JSON.parse(e.data)));
  events.addEventListener("build-ok", hide);
})();
