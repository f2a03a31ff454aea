/* Load the search index when the reader first uses search, not with every page: the index is most of a page's
   first load (about 200 KB gzipped per language). Material's bundle requests it at start-up (XMLHttpRequest);
   this file runs before the bundle (overrides/main.html) and holds that one request back until the search box
   gets focus (a click, a tap, or the theme's "/" "s" "f" keys), or sends it at once when the address has ?q=
   (a shared search). Every other request goes through untouched. */
(function () {
  "use strict";
  var XHR = window.XMLHttpRequest;
  if (!XHR) return;
  var INDEX = /\/search\/search_index\.json(\?|$)/;
  var open = XHR.prototype.open;
  var send = XHR.prototype.send;
  var held = [];
  var released = false;
  function release() {
    if (released) return;
    released = true;
    held.splice(0).forEach(function (item) { send.apply(item[0], item[1]); });
  }
  XHR.prototype.open = function (method, url) {
    this.__hbIndex = INDEX.test(String(url));
    return open.apply(this, arguments);
  };
  XHR.prototype.send = function () {
    if (this.__hbIndex && !released) {
      held.push([this, arguments]);
      return undefined;
    }
    return send.apply(this, arguments);
  };
  if (/[?&]q=/.test(location.search)) release();
  document.addEventListener("focusin", function (e) {
    if (e.target && e.target.matches && e.target.matches("input.md-search__input")) release();
  }, true);
  document.addEventListener("click", function (e) {
    if (e.target && e.target.closest && e.target.closest("label[for=__search], .md-search")) release();
  }, true);
  document.addEventListener("change", function (e) {
    if (e.target && e.target.id === "__search") release();
  }, true);
})();
