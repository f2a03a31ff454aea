// Tap a notebook plot (or its "tap to enlarge" hint, handbook/site/notebook_html.py) to see it at its full size (it
// scrolls on a phone); tap again or press Escape to close. A plot has keyboard focus (tabindex="0" from the
// notebook renderer): Enter or Space opens it too. The overlay shows the same image: nothing is loaded twice.
// (A lightbox plugin would copy every inline plot into a link, doubling the page, and load its script on every page.)
(() => {
  const close = () => document.querySelector(".hb-zoom")?.remove();
  const open = (img) => {
    const overlay = document.createElement("div");
    overlay.className = "hb-zoom";
    overlay.setAttribute("role", "dialog");
    overlay.setAttribute("aria-label", img.alt);
    const copy = document.createElement("img");
    copy.src = img.src;
    copy.alt = img.alt;
    overlay.append(copy);
    document.body.append(overlay);
  };
  const plot = (target) => target.closest(".md-content .jp-RenderedImage")?.querySelector("img");
  document.addEventListener("click", (event) => {
    if (event.target.closest(".hb-zoom")) return close();
    const img = plot(event.target);
    if (img) open(img);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") return close();
    if (event.key !== "Enter" && event.key !== " ") return;
    const img = event.target.matches?.(".jp-RenderedImage") && plot(event.target);
    if (!img) return;
    event.preventDefault();
    open(img);
  });
})();
