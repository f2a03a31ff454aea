// Search that takes a paste: the theme searches on key release, so text pasted with the mouse, committed by an
// input method or filled in by the browser would not search until the next key. Every input event searches.
// Lines added above or below the results, each shown only while it applies:
// - on the English site, a query in Chinese gets a link to the same search on the Chinese site;
// - a pasted training log gets a link that hands it to the log doctor (<template id="hb-search-log"> of
//   overrides/main.html), which reads it from sessionStorage: nothing leaves the browser;
// - a query that finds nothing gets the ways in by symptom (<template id="hb-search-none">).
// Result titles and texts lose the zero-width spaces of Chinese word segmentation.
(() => {
  const QUERY = "[data-md-component=search-query]";
  const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  // two logged values or more ("'loss': 0.0, 'grad_norm': nan", "reward_std: 0.0 kl: 0.1") make a log
  const LOGGED = /['"]?[A-Za-z][\w\/.-]*['"]?\s*:\s*[-+]?(?:\d|nan\b|inf\b)/gi;
  const english = !document.documentElement.lang.startsWith("zh");
  const config = JSON.parse(document.getElementById("__config")?.textContent || "{}");
  const result = document.querySelector(".md-search-result");
  const isQuery = (target) => Boolean(target && target.matches && target.matches(QUERY));
  let pasted = ""; // the search box drops a paste's line breaks: the doctor gets the lines as pasted

  // The line of class `name` while `show` holds: made once by `make()` (put first, or last with `last`), else removed.
  const line = (name, show, make, last = false) => {
    let box = result.querySelector("." + name);
    if (!show) {
      box?.remove();
      return null;
    }
    if (!box) {
      box = make();
      if (last) result.append(box);
      else result.prepend(box);
    }
    return box;
  };
  const fromTemplate = (id) => () => document.getElementById(id).content.firstElementChild.cloneNode(true);

  const update = (input) => {
    const chinese = line("hb-search-hint", english && HAN.test(input.value), () => {
      const box = document.createElement("div");
      box.className = "hb-search-hint";
      box.lang = "zh";
      return box;
    });
    if (chinese) {
      const zh = new URL("zh/", new URL(config.base || ".", location.href));
      zh.searchParams.set("q", input.value);
      const link = document.createElement("a");
      link.href = zh.href;
      link.textContent = "到中文站搜索「" + input.value + "」";
      chinese.replaceChildren("中文页面在中文站：", link, " · Chinese pages are on the Chinese site.");
    }
    const isLog = (input.value.match(LOGGED) || []).length >= 2;
    line("hb-search-log", isLog && document.getElementById("hb-search-log"), () => {
      const box = fromTemplate("hb-search-log")();
      box.querySelector("a").addEventListener("click", () => {
        const squeeze = (s) => s.replace(/\s+/g, "");
        const log = pasted && squeeze(input.value).includes(squeeze(pasted)) ? pasted : input.value;
        try {
          sessionStorage.setItem("hb-doctor-log", log);
        } catch (e) {} // storage switched off: the doctor opens empty
      });
      return box;
    });
  };
  const none = () => {
    const input = document.querySelector(QUERY);
    const list = result.querySelector(".md-search-result__list");
    const empty = Boolean(input && input.value.trim() && list && !list.children.length);
    line("hb-search-none", empty && document.getElementById("hb-search-none"), fromTemplate("hb-search-none"), true);
  };

  // The Chinese index marks the words jieba cut a title or a text into with zero-width spaces (U+200B): shown in a
  // result, they would travel into a copied title. Each result's text loses them (once: the change is seen again).
  const unmark = () => {
    const walk = document.createTreeWalker(result, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (node.data.includes("\u200b")) node.data = node.data.replace(/\u200b/g, "");
    }
  };

  if (!result) return;
  // the theme fills the result list and its count line when the search worker answers: look after each change
  new MutationObserver(() => {
    unmark();
    none();
  }).observe(result, { childList: true, subtree: true, characterData: true });
  document.addEventListener("paste", (event) => {
    if (isQuery(event.target)) pasted = event.clipboardData ? event.clipboardData.getData("text") : "";
  });
  document.addEventListener("input", (event) => {
    if (!isQuery(event.target) || event.isComposing) return;
    event.target.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
    update(event.target);
  });
  document.addEventListener("compositionend", (event) => {
    if (!isQuery(event.target)) return;
    event.target.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
    update(event.target);
  });
})();
