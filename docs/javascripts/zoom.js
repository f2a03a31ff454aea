// Tap a notebook plot to see it at its full size (it scrolls on a phone); tap again or press Escape to close.
// The overlay shows the same image: nothing is loaded twice. (A lightbox plugin would copy every inline plot
// into a link, doubling the page, and load its script on every page.)
(() => {
  const close = () => document.querySelector(".hb-zoom")?.remove();
  document.addEventListener("click", (event) => {
    if (event.target.closest(".hb-zoom")) return close();
    const img = event.target.closest(".md-content .jp-RenderedImage img");
    if (!img) return;
    const overlay = document.createElement("div");
    overlay.className = "hb-zoom";
    overlay.setAttribute("role", "dialog");
    overlay.setAttribute("aria-label", img.alt);
    const copy = document.createElement("img");
    copy.src = img.src;
    copy.alt = img.alt;
    overlay.append(copy);
    document.body.append(overlay);
  });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") close(); });
})();
