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

  events.addEventListener("reload", () => location.reload());
  events.addEventListener("build-error", (e) => show(JSON.parse(e.data)));
  events.addEventListener("build-ok", hide);
})();
