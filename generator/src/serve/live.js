// Live preview for `site serve` (never part of a built site): reloads the page
// after each successful rebuild and shows build errors over the page until the
// next good build.
(() => {
  const events = new EventSource("/__site/events");
  let overlay = null;

  function hide() {
    overlay?.remove();
    overlay = null;
  }

  function show(text) {
    hide();
    overlay = document.createElement("div");
    overlay.setAttribute("role", "alertdialog");
    overlay.setAttribute("aria-label", "Build failed");
    overlay.id = "site-build-error";
    Object.assign(overlay.style, {
      position: "fixed", inset: "0", zIndex: "2147483647", overflow: "auto",
      background: "rgba(10, 14, 24, 0.94)", color: "#f5f7fb", padding: "2rem",
      font: "14px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    });
    const title = document.createElement("h2");
    title.textContent = "The site did not build";
    Object.assign(title.style, { color: "#ff8a80", font: "bold 18px system-ui, sans-serif", margin: "0 0 1rem" });
    const note = document.createElement("p");
    note.textContent = "The last good build is still served. Fix the problem and save: this page reloads by itself.";
    Object.assign(note.style, { font: "15px system-ui, sans-serif", margin: "0 0 1rem" });
    const pre = document.createElement("pre");
    pre.textContent = text;
    Object.assign(pre.style, { whiteSpace: "pre-wrap", margin: "0" });
    overlay.append(title, note, pre);
    document.body.append(overlay);
  }

  // Warnings do not stop the build: a panel in a corner, closed with its button.
  function warn(text) {
    hide();
    overlay = document.createElement("div");
    overlay.setAttribute("role", "status");
    overlay.id = "site-build-warnings";
    Object.assign(overlay.style, {
      position: "fixed", right: "1rem", bottom: "1rem", zIndex: "2147483647",
      maxWidth: "min(44rem, calc(100vw - 2rem))", maxHeight: "50vh", overflow: "auto",
      background: "#fff8e1", color: "#3e2c00", border: "1px solid #e0b000", borderRadius: "8px",
      padding: "1rem", boxShadow: "0 8px 24px rgba(0,0,0,.2)",
      font: "13px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    });
    const title = document.createElement("strong");
    title.textContent = "The site built, with warnings";
    Object.assign(title.style, { display: "block", font: "bold 15px system-ui, sans-serif", margin: "0 0 .5rem" });
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    Object.assign(close.style, { float: "right", font: "14px system-ui, sans-serif" });
    close.addEventListener("click", hide);
    const pre = document.createElement("pre");
    pre.textContent = text;
    Object.assign(pre.style, { whiteSpace: "pre-wrap", margin: "0" });
    overlay.append(close, title, pre);
    document.body.append(overlay);
  }

  events.addEventListener("reload", () => location.reload());
  events.addEventListener("build-warnings", (e) => warn(JSON.parse(e.data)));
  events.addEventListener("build-error", (e) => show(JSON.parse(e.data)));
  events.addEventListener("build-ok", hide);
})();
