// The Compatibility page's version picker: which pages do not apply to, or failed on, the reader's TRL and
// transformers. Reads the matrix the page embeds (data-matrix attribute, handbook/versions/compat_page.py); sends nothing anywhere.
(() => {
  const box = document.querySelector(".hb-picker");
  if (!box) return;
  const data = JSON.parse(box.dataset.matrix);
  const form = box.querySelector("form");
  const out = box.querySelector(".hb-picker__out");
  const parts = (v) => String(v).split(/[^0-9]+/).filter(Boolean).map(Number);
  const cmp = (a, b) => {
    const x = parts(a), y = parts(b);
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      const d = (x[i] || 0) - (y[i] || 0);
      if (d) return Math.sign(d);
    }
    return 0;
  };
  // PEP 440 ranges as the pages write them: comma-separated >=, <=, >, <, ==, != clauses
  const holds = (spec, v) => !spec || !v || spec.split(",").every((clause) => {
    const m = clause.trim().match(/^(==|!=|>=|<=|>|<|~=)\s*(.+)$/);
    if (!m) return true;
    if (m[2].trim().endsWith(".*")) { // a wildcard (!=1.6.*): the same release line or not
      const pre = parts(m[2].trim().slice(0, -2)), got = parts(v);
      const same = pre.every((x, i) => (got[i] || 0) === x);
      return m[1] === "==" ? same : m[1] === "!=" ? !same : true;
    }
    const c = cmp(v, m[2]);
    return { ">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "==": c === 0, "!=": c !== 0, "~=": c >= 0 }[m[1]];
  });
  const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");
  const para = (text) => { const p = document.createElement("p"); p.textContent = text; return p; };
  const list = (items) => {
    const ul = document.createElement("ul");
    for (const [page, note] of items) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = page.href;
      a.textContent = page.title;
      li.append(a, " — " + note);
      ul.append(li);
    }
    return ul;
  };
  let shown = null;
  const render = () => {
    const trl = form.trl.value.trim();
    const tf = form.transformers.value.trim();
    // "change" also fires when the box loses focus, i.e. on the mousedown of a click on a listed page: redrawing
    // then would replace the link under the pointer and swallow the click
    if (shown === trl + "|" + tf) return;
    shown = trl + "|" + tf;
    const L = data.labels;
    const cols = data.columns.filter((c) => c.trl === trl);
    out.replaceChildren();
    if (!cols.length) {
      const near = [...new Set(data.columns.map((c) => c.trl))]
        .sort((a, b) => Math.abs(cmp(a, trl)) - Math.abs(cmp(b, trl))).slice(0, 2).join(", ");
      out.append(para(fill(L.out_none, { trl, near })));
    }
    const seen = [...new Set(cols.map((c) => c.transformers))];
    if (tf && cols.length && !seen.includes(tf)) {
      out.append(para(fill(L.out_unobserved, { trl, tf, seen: seen.join(", ") })));
    }
    const outside = [], failed = [];
    let ok = 0;
    for (const page of data.pages) {
      // the ranges said in words (handbook/versions/compat_page.py describe_range), not as PEP 440 specifiers
      const ranges = [["trl", page.trl, trl], ["transformers", page.transformers, tf]]
        .filter(([, spec, v]) => !holds(spec, v)).map(([name]) => page.ranges[name]);
      if (ranges.length) {
        // why the page does not hold on the reader's TRL, where the matrix ran it there (handbook/versions/compat_page.py)
        const why = page.why && page.why[trl];
        const vars = { ranges: ranges.join("; "), trl, why };
        outside.push([page, fill(why ? L.out_why : L.out_needs, vars)]);
        continue;
      }
      const bad = cols.filter((c) => page.failed.includes(c.name)).map((c) => c.transformers);
      if (bad.length) failed.push([page, fill(L.out_failed_with, { tf: bad.join(", ") })]);
      else if (cols.length) ok += 1;
    }
    out.append(para(fill(L.out_range, { n: outside.length })));
    if (outside.length) out.append(list(outside));
    if (cols.length) {
      out.append(para(fill(L.out_failed, { trl, n: failed.length })));
      if (failed.length) out.append(list(failed));
      out.append(para(fill(L.out_ok, { trl, n: ok })));
    }
  };
  form.addEventListener("input", render);
  form.addEventListener("change", render);
  form.addEventListener("submit", (event) => event.preventDefault());
  render();
})();
