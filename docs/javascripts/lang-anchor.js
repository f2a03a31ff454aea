// The language switcher keeps the section you are reading: twin pages share their heading anchors.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[hreflang]");
  if (link && location.hash && !link.hash && !event.metaKey && !event.ctrlKey) {
    event.preventDefault();
    event.stopPropagation();  // the theme would navigate again, without the anchor
    location.assign(link.href.split("#")[0] + location.hash);
  }
}, true);  // capture: before the theme handles the click
