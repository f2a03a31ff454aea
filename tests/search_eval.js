// Runs the built site's own search worker (Material's, as patched by hooks/search.py) in node, without a
// browser: `node tests/search_eval.js SITE_DIR < queries.json` prints, for each {lang, query}, the locations of
// the first five pages the search box would list (`top`), the query string the worker gave lunr (`lunr`) and the
// words the first result reports as matched or missing (`terms`).
// tests/test_site.py checks that a browser lists the same pages.
"use strict";
const fs = require("fs"), path = require("path"), vm = require("vm");

const site = process.argv[2];
const queries = JSON.parse(fs.readFileSync(0, "utf8"));
const workers = path.join(site, "assets", "javascripts", "workers");
const worker = fs.readdirSync(workers).find((f) => /^search\..*\.min\.js$/.test(f));

function engine(lang) {
  // the worker's globals: it registers a message listener and answers with postMessage
  const ctx = { console, setTimeout, Promise, TextEncoder, Uint8Array, Uint16Array };
  let listener = null, answer = null;
  Object.assign(ctx, {
    self: ctx,
    addEventListener: (_, f) => { listener = f; },
    postMessage: (m) => { answer = m; },
    importScripts: (...urls) => urls.forEach((u) => vm.runInContext(fs.readFileSync(path.join(workers, u), "utf8"), ctx)),
  });
  vm.createContext(ctx);
  vm.runInContext(fs.readFileSync(path.join(workers, worker), "utf8"), ctx);
  const index = path.join(site, ...(lang === "zh" ? ["zh"] : []), "search", "search_index.json");
  const data = { ...JSON.parse(fs.readFileSync(index, "utf8")), options: { suggest: false } };
  const ask = async (message) => { answer = null; await listener({ data: message }); return answer; };
  let asked = null;
  const setup = async () => {
    const ready = await ask({ type: 0, data });
    const search = ctx.lunr.Index.prototype.search; // record the query string the worker builds
    ctx.lunr.Index.prototype.search = function (q) { asked = q; return search.call(this, q); };
    return ready;
  };
  return { setup, search: async (q) => { asked = null; return [await ask({ type: 2, data: q }), asked]; } };
}

(async () => {
  const out = [];
  for (const lang of ["en", "zh"]) {
    const mine = queries.filter((q) => q.lang === lang);
    if (!mine.length) continue;
    const e = engine(lang);
    await e.setup();
    for (const q of mine) {
      const [answer, asked] = await e.search(q.query);
      const items = (answer && answer.data.items) || [], top = [];
      for (const item of items) {
        const loc = item[0].location.split("#")[0].replace(/\/$/, "");
        if (!top.includes(loc)) top.push(loc);
        if (top.length === 5) break;
      }
      out.push({ lang, query: q.query, top, lunr: asked, terms: items.length ? items[0][0].terms : {} });
    }
  }
  process.stdout.write(JSON.stringify(out));
})();
