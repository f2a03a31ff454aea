// A static host serves the site's one 404.html, the English one, for every missing address (GitHub Pages does), the
// Chinese site's too: an address under zh/ goes to the Chinese 404 page (overrides/404.html loads this, in <head>).
(() => {
  const { zhRoot, zhPage } = document.currentScript.dataset;
  const path = location.pathname;
  if (zhRoot && zhPage && path.startsWith(zhRoot) && path !== zhPage) location.replace(zhPage);
})();
