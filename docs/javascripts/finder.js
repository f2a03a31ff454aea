// The symptom finder's filter ("What do you see?"; the page is handbook/site/render.py _symptom_finder): type a word and
// only the lines that have it stay, their groups open. Loaded only on that page (overrides/main.html); reads the page
// as built and sends nothing anywhere. Its strings are the box's data attributes (handbook/ui.py FINDER_LABELS).
(() => {
  const box = document.querySelector(".hb-finder__filter");
  const finder = document.querySelector(".hb-finder");
  if (!box || !finder) return;
  const input = box.querySelector("input");
  const status = box.querySelector(".hb-finder__status");
  // NFKC: the full-width letters and digits of a Chinese input method match their ASCII twins
  const fold = (text) => text.normalize("NFKC").toLowerCase();
  // a line matches by its symptom, not by the titles of the pages it links (they would match far too much)
  const lines = [...finder.querySelectorAll("li")]
    .map((li) => [li, fold(li.querySelector(".hb-finder__symptom").textContent)]);
  const groups = [...finder.querySelectorAll("details")];
  const sections = [...finder.querySelectorAll(".hb-finder__where")];
  let opened = null; // the groups the reader had open before filtering: open again once the box is empty
  const apply = () => {
    const words = fold(input.value).split(/\s+/).filter(Boolean);
    if (!words.length) {
      for (const [li] of lines) li.hidden = false;
      for (const group of groups) {
        group.hidden = false;
        if (opened) group.open = opened.has(group);
      }
      for (const section of sections) section.hidden = false;
      opened = null;
      status.textContent = "";
      return;
    }
    if (!opened) opened = new Set(groups.filter((group) => group.open));
    let n = 0;
    for (const [li, text] of lines) {
      li.hidden = !words.every((word) => text.includes(word));
      if (!li.hidden) n += 1;
    }
    for (const group of groups) {
      const hit = group.querySelector("li:not([hidden])") !== null;
      group.hidden = !hit;
      group.open = hit;
    }
    for (const section of sections) section.hidden = section.querySelector("details:not([hidden])") === null;
    const text = n === 0 ? box.dataset.none : n === 1 ? box.dataset.one : box.dataset.many;
    status.textContent = text.replace("{n}", n);
  };
  // an input method's half-typed pinyin is not a query: filter when the characters are committed
  input.addEventListener("input", (event) => { if (!event.isComposing) apply(); });
  input.addEventListener("compositionend", apply);
  box.hidden = false;
  if (input.value) apply(); // a value the browser kept when the reader came back to the page
})();
