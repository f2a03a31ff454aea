// Search that takes a paste: the theme searches on key release, so text pasted with the mouse, committed by an
// input method or filled in by the browser would not search until the next key. Every input event searches.
// On the English site, a query in Chinese gets a link to the same search on the Chinese site.
(() => {
  const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  const english = !document.documentElement.lang.startsWith("zh");
  const config = JSON.parse(document.getElementById("__config")?.textContent || "{}");
  const hint = (input) => {
    const result = document.querySelector(".md-search-result");
    if (!english || !result) return;
    let box = result.querySelector(".hb-search-hint");
    if (!HAN.test(input.value)) {
      box?.remove();
      return;
    }
    if (!box) {
      box = document.createElement("div");
      box.className = "hb-search-hint";
      box.lang = "zh";
      result.prepend(box);
    }
    const zh = new URL("zh/", new URL(config.base || ".", location.href));
    zh.searchParams.set("q", input.value);
    const link = document.createElement("a");
    link.href = zh.href;
    link.textContent = "到中文站搜索「" + input.value + "」";
    box.replaceChildren("中文页面在中文站：", link, " · Chinese pages are on the Chinese site.");
  };
  document.addEventListener("input", (event) => {
    const input = event.target;
    if (!input.matches || !input.matches("[data-md-component=search-query]") || event.isComposing) return;
    input.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
    hint(input);
  });
  document.addEventListener("compositionend", (event) => {
    if (event.target.matches && event.target.matches("[data-md-component=search-query]")) {
      event.target.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
      hint(event.target);
    }
  });
})();
