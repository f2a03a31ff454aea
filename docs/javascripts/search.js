// Search that takes a paste: the theme searches on key release, so text pasted with the mouse, committed by an
// input method or filled in by the browser would not search until the next key. Every input event searches.
// On the English site, a query in Chinese gets a link to the same search on the Chinese site.
// A query that finds nothing gets the ways in by symptom (the <template id="hb-search-none"> of overrides/main.html).
// A pasted training log gets a link that hands it to the log doctor (<template id="hb-search-log">), which reads it
// from sessionStorage: nothing leaves the browser.
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
  // two logged values or more ("'loss': 0.0, 'grad_norm': nan", "reward_std: 0.0 kl: 0.1") make a log
  const LOGGED = /['"]?[A-Za-z][\w\/.-]*['"]?\s*:\s*[-+]?(?:\d|nan\b|inf\b)/gi;
  let pasted = ""; // the search box drops a paste's line breaks: the doctor gets the lines as pasted
  const logHint = (input) => {
    const result = document.querySelector(".md-search-result");
    const template = document.getElementById("hb-search-log");
    if (!result || !template) return;
    const box = result.querySelector(".hb-search-log");
    if ((input.value.match(LOGGED) || []).length < 2) {
      box?.remove();
      return;
    }
    if (box) return;
    result.prepend(template.content.cloneNode(true));
    result.querySelector(".hb-search-log a").addEventListener("click", () => {
      const squeeze = (s) => s.replace(/\s+/g, "");
      const log = pasted && squeeze(input.value).includes(squeeze(pasted)) ? pasted : input.value;
      try {
        sessionStorage.setItem("hb-doctor-log", log);
      } catch (e) {} // storage switched off: the doctor opens empty
    });
  };
  document.addEventListener("paste", (event) => {
    if (event.target.matches && event.target.matches("[data-md-component=search-query]")) {
      pasted = event.clipboardData ? event.clipboardData.getData("text") : "";
    }
  });
  const none = () => {
    const result = document.querySelector(".md-search-result");
    const input = document.querySelector("[data-md-component=search-query]");
    const template = document.getElementById("hb-search-none");
    if (!result || !input || !template) return;
    const list = result.querySelector(".md-search-result__list");
    const empty = input.value.trim() && list && !list.children.length;
    const box = result.querySelector(".hb-search-none");
    if (empty && !box) result.append(template.content.cloneNode(true));
    else if (!empty) box?.remove();
  };
  // the theme fills the result list and its count line when the search worker answers: look after each change
  const result = document.querySelector(".md-search-result");
  if (result) new MutationObserver(none).observe(result, { childList: true, subtree: true, characterData: true });
  document.addEventListener("input", (event) => {
    const input = event.target;
    if (!input.matches || !input.matches("[data-md-component=search-query]") || event.isComposing) return;
    input.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
    hint(input);
    logHint(input);
  });
  document.addEventListener("compositionend", (event) => {
    if (event.target.matches && event.target.matches("[data-md-component=search-query]")) {
      event.target.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
      hint(event.target);
    }
  });
})();
