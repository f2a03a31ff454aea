// The log doctor in the browser: the Log doctor page's "Diagnose my log" panel (.hb-doctor). A port of the Python
// doctor, doctor/rlhf_doctor/cli.py (read_log, report) and rules.py (diagnose, describe), with the same rules: the
// site's copy of rules.json (assets/doctor-rules.json, hooks/doctor.py). Nothing pasted leaves the page.
// tests/test_doctor_js.py runs these functions in node and compares them with the Python doctor on every corpus log.
(() => {
  "use strict";

  // ---- Python's text semantics: whitespace (str.isspace, re's \s), \w, \d, splitlines, strip, split ----------------
  const WS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  const W = "\\p{L}\\p{N}_";
  const rx = (source, flags = "") => new RegExp(source, "u" + flags);
  const SPACE = rx(`^[${WS}]$`);
  const STRIP = rx(`^[${WS}]+|[${WS}]+$`, "g");
  const LSTRIP = rx(`^[${WS}]+`);
  const SPLIT = rx(`[${WS}]+`);
  const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

  const strip = (s) => s.replace(STRIP, "");
  const lstrip = (s) => s.replace(LSTRIP, "");
  const split = (s) => s.split(SPLIT).filter((x) => x !== "");
  const stripChars = (s, chars) => {
    const cps = [...s];
    let i = 0, j = cps.length;
    while (i < j && chars.includes(cps[i])) i++;
    while (j > i && chars.includes(cps[j - 1])) j--;
    return cps.slice(i, j).join("");
  };
  const splitlines = (s) => {
    const lines = s.split(LINE_BREAK);
    if (lines[lines.length - 1] === "") lines.pop();
    return lines;
  };
  const count = (s, sub) => s.split(sub).length - 1;
  const findall = (re, s) => [...s.matchAll(re)].map((m) => m.slice(1));
  const has = (obj, key) => obj != null && Object.prototype.hasOwnProperty.call(obj, key);
  const get = (obj, key, dflt) => (has(obj, key) ? obj[key] : dflt);
  const cmpStr = (a, b) => { // Python orders str by code point (JS by UTF-16 unit)
    let i = 0, j = 0;
    while (i < a.length && j < b.length) {
      const x = a.codePointAt(i), y = b.codePointAt(j);
      if (x !== y) return x - y;
      i += x > 0xffff ? 2 : 1;
      j += y > 0xffff ? 2 : 1;
    }
    return (a.length - i) - (b.length - j);
  };

  class LogError extends Error {
    // the text is not a training log this tool can read; code names why (the panel words it in each language)
    constructor(message, code, detail) {
      super(message);
      this.name = "LogError";
      this.code = code;
      this.detail = detail || "";
    }
  }
  class PyError extends Error {
    // an exception of Python's (pyType: ValueError, SyntaxError, TypeError, OverflowError, JSONDecodeError, csv.Error)
    constructor(pyType, message, extra) {
      super(message);
      this.name = pyType;
      this.pyType = pyType;
      Object.assign(this, extra || {});
    }
  }

  // ---- Python values that are not JSON's: literal_eval and json.loads results ---------------------------------------
  class PyTuple { constructor(items) { this.items = items; } }
  class PySet {}
  class PyBytes {}
  class PyComplex {}
  class PyHugeInt { constructor(negative) { this.negative = negative; } } // an int beyond float range
  const ELLIPSIS = Object.freeze({ ellipsis: true });

  const intValue = (big) => { // a Python int, as the float Python would make of it (or PyHugeInt)
    const x = Number(big);
    if (!Number.isFinite(x)) return new PyHugeInt(big < 0n);
    return x === 0 ? 0 : x;
  };

  function pyFloat(s) { // float(str): the number, or null where Python raises ValueError
    let t = "";
    for (const ch of s) {
      const cp = ch.codePointAt(0);
      if (cp < 127) t += ch;
      else if (SPACE.test(ch)) t += " ";
      else if (/\p{Nd}/u.test(ch)) t += String.fromCharCode(48 + decimalDigit(cp));
      else return null;
    }
    if (t.includes("\0")) return null;
    if (t.includes("_")) {
      let prev = "", out = "";
      for (const ch of t) {
        if (ch === "_") {
          if (!(prev >= "0" && prev <= "9")) return null;
        } else {
          if (prev === "_" && !(ch >= "0" && ch <= "9")) return null;
          out += ch;
        }
        prev = ch;
      }
      if (prev === "_") return null;
      t = out;
    }
    t = t.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, "");
    const m = /^([+-]?)(?:(inf|infinity)|(nan)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))$/i.exec(t);
    if (!m) return null;
    if (m[2]) return m[1] === "-" ? -Infinity : Infinity;
    if (m[3]) return NaN;
    return Number(m[1] + m[4]);
  }

  function decimalDigit(cp) { // the value of a Unicode decimal digit: digits come in runs of ten from 0
    let start = cp;
    while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
    return (cp - start) % 10;
  }

  function pyValue(v) { // rules.py _value: a logged value as a number, or null
    if (typeof v === "boolean") return null;
    if (typeof v === "number") return v;
    if (v instanceof PyHugeInt) throw new PyError("OverflowError", "int too large to convert to float");
    if (typeof v === "string") return pyFloat(v);
    return null;
  }

  function pyInt(x) { // int(float)
    if (Number.isNaN(x)) throw new PyError("ValueError", "cannot convert float NaN to integer");
    if (!Number.isFinite(x)) throw new PyError("OverflowError", "cannot convert float infinity to integer");
    return Math.trunc(x) + 0;
  }

  // ---- json.loads: NaN, Infinity and -Infinity allowed; objects as Map (or, for the rules, plain objects) -----------
  const NUM_TOKENS = new WeakMap(); // rules: object -> Map(key -> number token as written), for describe()

  function jsonLoads(s, plain = false) {
    const fail = (msg, pos) => {
      const lineno = s.slice(0, pos).split("\n").length;
      throw new PyError("JSONDecodeError", `${msg}: line ${lineno}`, { msg, lineno, pos });
    };
    if (s.charCodeAt(0) === 0xfeff) fail("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
    const ws = (i) => {
      while (i < s.length && " \t\n\r".includes(s[i])) i++;
      return i;
    };
    const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
    const string = (i) => { // i: after the opening quote
      let out = "";
      for (;;) {
        if (i >= s.length) fail("Unterminated string starting at", i);
        const c = s[i];
        if (c === '"') return [out, i + 1];
        if (c === "\\") {
          const e = s[i + 1];
          const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
          if (e !== undefined && has(simple, e)) {
            out += simple[e];
            i += 2;
          } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) {
            out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
            i += 6;
          } else fail(e === "u" ? "Invalid \\uXXXX escape" : "Invalid \\escape", i);
        } else if (c.charCodeAt(0) < 0x20) fail("Invalid control character at", i);
        else {
          out += c;
          i++;
        }
      }
    };
    const value = (i, depth) => {
      if (depth > 990) throw new PyError("RecursionError", "maximum recursion depth exceeded while decoding JSON");
      const c = s[i];
      if (c === '"') return string(i + 1);
      if (c === "{") return object(i + 1, depth + 1);
      if (c === "[") return array(i + 1, depth + 1);
      for (const [word, v] of [["null", null], ["true", true], ["false", false], ["NaN", NaN], ["Infinity", Infinity],
        ["-Infinity", -Infinity]]) {
        if (s.startsWith(word, i)) return [v, i + word.length];
      }
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(s);
      if (!m) fail("Expecting value", i);
      const token = m[0];
      const v = m[1] || m[2] ? Number(token) : intValue(BigInt(token));
      return [v, i + token.length, token];
    };
    const object = (i, depth) => {
      const obj = plain ? {} : new Map();
      const tokens = new Map();
      const set = (k, v) => {
        if (!plain) obj.set(k, v);
        else Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
      };
      i = ws(i);
      if (s[i] === "}") return [obj, i + 1];
      for (;;) {
        if (s[i] !== '"') fail("Expecting property name enclosed in double quotes", i);
        let key;
        [key, i] = string(i + 1);
        i = ws(i);
        if (s[i] !== ":") fail("Expecting ':' delimiter", i);
        const [v, end, token] = value(ws(i + 1), depth);
        set(key, v);
        if (token !== undefined) tokens.set(key, token);
        else tokens.delete(key);
        i = ws(end);
        if (s[i] === "}") break;
        if (s[i] !== ",") fail("Expecting ',' delimiter", i);
        i = ws(i + 1);
      }
      if (plain) NUM_TOKENS.set(obj, tokens);
      return [obj, i + 1];
    };
    const array = (i, depth) => {
      const out = [];
      i = ws(i);
      if (s[i] === "]") return [out, i + 1];
      for (;;) {
        const [v, end] = value(i, depth);
        out.push(v);
        i = ws(end);
        if (s[i] === "]") break;
        if (s[i] !== ",") fail("Expecting ',' delimiter", i);
        i = ws(i + 1);
      }
      return [out, i + 1];
    };
    const [v, end] = value(ws(0), 0);
    if (ws(end) !== s.length) fail("Extra data", ws(end));
    return v;
  }

  // ---- ast.literal_eval of one printed dict (the Trainer's console line) -------------------------------------------
  const PY_SYNTAX = (msg) => new PyError("SyntaxError", msg);
  const PY_VALUE = (msg) => new PyError("ValueError", msg || "malformed node or string");
  const STRING_PREFIX = /^(?:[rRuUbBfF]|[bB][rR]|[rR][bB]|[fF][rR]|[rR][fF])$/;
  const DIGITS = "[0-9](?:_?[0-9])*";
  const NUMBER_TOKEN = new RegExp("0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|" +
    `(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?[jJ]?`, "y");
  const NAME_START = /[\p{XID_Start}_]/u;
  const NAME_CHAR = /[\p{XID_Continue}]/u;
  const OPERATORS = ["**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "+", "-",
    "*", "/", "%", "&", "|", "^", "~", "<", ">", "=", "@"];

  function tokenize(s) {
    const out = [];
    let i = 0, depth = 0;
    while (i < s.length) {
      const c = s[i];
      if (c === " " || c === "\t" || c === "\f") { i++; continue; }
      if (c === "#") break; // a comment to the end of the (only) line
      if (c === "\0") throw PY_VALUE("source code string cannot contain null bytes");
      NUMBER_TOKEN.lastIndex = i;
      const num = /[0-9]/.test(c) || (c === "." && /[0-9]/.test(s[i + 1] || "")) ? NUMBER_TOKEN.exec(s) : null;
      if (num) {
        const token = num[0];
        const after = String.fromCodePoint(s.codePointAt(i + token.length) || 32);
        if (NAME_CHAR.test(after)) throw PY_SYNTAX("invalid literal");
        const pure = !/^0[xXoObB]/.test(token) && !/[.eEjJ]/.test(token);
        if (pure && token[0] === "0" && /[1-9]/.test(token)) throw PY_SYNTAX("leading zeros in a decimal literal");
        const plain = token.replace(/_/g, "");
        let kind = "int", value;
        if (/[jJ]$/.test(token)) { kind = "complex"; value = new PyComplex(); }
        else if (/^0[xXoObB]/.test(token) || pure) value = intValue(BigInt(plain));
        else { kind = "float"; value = Number(plain); }
        out.push({ t: "num", kind, value });
        i += token.length;
        continue;
      }
      const ch = String.fromCodePoint(s.codePointAt(i));
      if (NAME_START.test(ch)) {
        let j = i + ch.length;
        while (j < s.length) {
          const d = String.fromCodePoint(s.codePointAt(j));
          if (!NAME_CHAR.test(d)) break;
          j += d.length;
        }
        const name = s.slice(i, j);
        if ((s[j] === "'" || s[j] === '"') && STRING_PREFIX.test(name)) {
          const [tok, end] = stringToken(s, j, name.toLowerCase());
          out.push(tok);
          i = end;
        } else {
          out.push({ t: "name", v: name });
          i = j;
        }
        continue;
      }
      if (c === "'" || c === '"') {
        const [tok, end] = stringToken(s, i, "");
        out.push(tok);
        i = end;
        continue;
      }
      const op = OPERATORS.find((o) => s.startsWith(o, i));
      if (!op) throw PY_SYNTAX(`invalid character ${JSON.stringify(ch)}`);
      if ("([{".includes(op)) {
        if (depth >= 200) throw PY_SYNTAX("too many nested parentheses");
        depth++;
      } else if (")]}".includes(op)) depth--;
      out.push({ t: "op", v: op });
      i += op.length;
    }
    out.push({ t: "end" });
    return out;
  }

  function stringToken(s, i, prefix) { // a string literal at s[i] (the quote), its prefix already read
    const raw = prefix.includes("r"), bytes = prefix.includes("b"), fstring = prefix.includes("f");
    const q = s[i];
    const triple = s.startsWith(q + q + q, i);
    const close = triple ? q + q + q : q;
    let j = i + close.length;
    const start = j;
    for (;;) {
      if (j >= s.length) throw PY_SYNTAX("unterminated string literal");
      if (s[j] === "\\") { j += 2; continue; }
      if (s.startsWith(close, j)) break;
      j++;
    }
    const body = s.slice(start, j);
    if (bytes && /[^\x00-\x7f]/.test(body)) throw PY_SYNTAX("bytes can only contain ASCII literal characters");
    const value = raw || fstring ? body : unescape(body, bytes);
    return [{ t: "str", kind: fstring ? "f" : bytes ? "bytes" : "str", value }, j + close.length];
  }

  function unescape(body, bytes) {
    let out = "";
    for (let i = 0; i < body.length; i++) {
      const c = body[i];
      if (c !== "\\") { out += c; continue; }
      const e = body[++i];
      const simple = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t",
        v: "\v" };
      if (has(simple, e)) out += simple[e];
      else if (/[0-7]/.test(e)) {
        const m = /^[0-7]{1,3}/.exec(body.slice(i));
        out += String.fromCodePoint(parseInt(m[0], 8));
        i += m[0].length - 1;
      } else if (e === "x" || (!bytes && (e === "u" || e === "U"))) {
        const n = { x: 2, u: 4, U: 8 }[e];
        const hex = body.slice(i + 1, i + 1 + n);
        if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw PY_SYNTAX(`truncated \\${e} escape`);
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff) throw PY_SYNTAX("illegal Unicode character");
        out += String.fromCodePoint(cp);
        i += n;
      } else if (!bytes && e === "N") { // a named character: no name table here; DIGIT names are kept as digits
        const m = /^\{([A-Za-z0-9 -]+)\}/.exec(body.slice(i + 1));
        if (!m) throw PY_SYNTAX("malformed \\N character escape");
        const name = m[1].toUpperCase();
        const digit = name.startsWith("DIGIT ") ?
          ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"].indexOf(name.slice(6)) : -1;
        out += digit >= 0 ? String(digit) : "\ufffd";
        i += m[0].length;
      } else out += "\\" + e; // an unknown escape keeps its backslash
    }
    return out;
  }

  function parseExpression(tokens) { // the subset of Python's expression grammar literal_eval can accept
    let p = 0;
    const peek = () => tokens[p];
    const isOp = (v) => tokens[p].t === "op" && tokens[p].v === v;
    const expect = (v) => {
      if (!isOp(v)) throw PY_SYNTAX("invalid syntax");
      p++;
    };
    const sum = () => {
      let left = unary();
      while (isOp("+") || isOp("-")) {
        const op = tokens[p++].v;
        left = { type: "binop", op, left, right: unary() };
      }
      return left;
    };
    const unary = () => {
      if (isOp("+") || isOp("-") || isOp("~")) {
        const op = tokens[p++].v;
        return { type: "unary", op, operand: unary() };
      }
      return primary();
    };
    const primary = () => {
      let node = atom();
      for (;;) {
        if (isOp(".")) {
          p++;
          if (peek().t !== "name") throw PY_SYNTAX("invalid syntax");
          p++;
          node = { type: "other" };
        } else if (isOp("(")) {
          p++;
          const args = callArgs();
          node = node.type === "name" && node.v === "set" && !args ? { type: "setcall" } : { type: "other" };
        } else return node;
      }
    };
    const callArgs = () => { // the number of arguments of a call
      let n = 0;
      while (!isOp(")")) {
        if (peek().t === "name" && tokens[p + 1].t === "op" && tokens[p + 1].v === "=") p += 2;
        sum();
        n++;
        if (!isOp(",")) break;
        p++;
      }
      expect(")");
      return n;
    };
    const sequence = (closer) => { // elements up to closer; whether a comma was seen
      const elts = [];
      let comma = false;
      while (!isOp(closer)) {
        elts.push(sum());
        if (!isOp(",")) break;
        comma = true;
        p++;
      }
      expect(closer);
      return [elts, comma];
    };
    const atom = () => {
      const tok = tokens[p];
      if (tok.t === "num") {
        p++;
        return { type: "const", kind: tok.kind, value: tok.value };
      }
      if (tok.t === "str") {
        const parts = [];
        while (tokens[p].t === "str") parts.push(tokens[p++]);
        const bytes = parts.map((x) => x.kind === "bytes");
        if (bytes.some((b) => b !== bytes[0])) throw PY_SYNTAX("cannot mix bytes and nonbytes literals");
        if (parts.some((x) => x.kind === "f")) return { type: "other" };
        if (bytes[0]) return { type: "const", kind: "bytes", value: new PyBytes() };
        return { type: "const", kind: "str", value: parts.map((x) => x.value).join("") };
      }
      if (tok.t === "name") {
        p++;
        const consts = { True: ["bool", true], False: ["bool", false], None: ["none", null] };
        if (has(consts, tok.v)) return { type: "const", kind: consts[tok.v][0], value: consts[tok.v][1] };
        return { type: "name", v: tok.v };
      }
      if (tok.t === "op" && tok.v === "...") {
        p++;
        return { type: "const", kind: "ellipsis", value: ELLIPSIS };
      }
      if (tok.t === "op" && tok.v === "(") {
        p++;
        const [elts, comma] = sequence(")");
        return elts.length === 1 && !comma ? elts[0] : { type: "tuple", elts };
      }
      if (tok.t === "op" && tok.v === "[") {
        p++;
        return { type: "list", elts: sequence("]")[0] };
      }
      if (tok.t === "op" && tok.v === "{") {
        p++;
        const keys = [], values = [];
        while (!isOp("}")) {
          keys.push(sum());
          expect(":");
          values.push(sum());
          if (!isOp(",")) break;
          p++;
        }
        expect("}");
        return { type: "dict", keys, values };
      }
      throw PY_SYNTAX("invalid syntax");
    };
    const node = sum();
    if (peek().t !== "end") throw PY_SYNTAX("invalid syntax");
    return node;
  }

  const isNumberValue = (v) => typeof v === "number" || v instanceof PyHugeInt;
  function convertNum(node) {
    if (node.type !== "const" || !["int", "float", "complex"].includes(node.kind)) throw PY_VALUE();
    return node.value;
  }
  function convertSignedNum(node) {
    if (node.type === "unary" && (node.op === "+" || node.op === "-")) {
      const v = convertNum(node.operand);
      if (node.op === "+" || v instanceof PyComplex) return v;
      if (v instanceof PyHugeInt) return new PyHugeInt(!v.negative);
      return node.operand.kind === "int" ? -v + 0 : -v;
    }
    return convertNum(node);
  }
  function hashable(v) {
    if (Array.isArray(v) || v instanceof Map || v instanceof PySet) return false;
    return v instanceof PyTuple ? v.items.every(hashable) : true;
  }
  function convert(node) { // ast.literal_eval's _convert
    switch (node.type) {
      case "const": return node.value;
      case "tuple": return new PyTuple(node.elts.map(convert));
      case "list": return node.elts.map(convert);
      case "setcall": return new PySet();
      case "dict": {
        const out = new Map();
        node.keys.forEach((k, i) => {
          const key = convert(k);
          const value = convert(node.values[i]);
          if (!hashable(key)) throw new PyError("TypeError", "unhashable type");
          if (typeof key === "string") out.set(key, value); // other keys are dropped by _rows_from_dicts
        });
        return out;
      }
      case "binop": {
        const left = convertSignedNum(node.left);
        const right = convertNum(node.right);
        if (isNumberValue(left) && right instanceof PyComplex) return new PyComplex();
        break;
      }
    }
    return convertSignedNum(node);
  }

  function literalEval(s) {
    return convert(parseExpression(tokenize(s.replace(/^[ \t]+/, ""))));
  }

  // ---- cli.py: read_log and its readers ------------------------------------------------------------------------
  const STEP_KEYS = ["step", "global_step", "train/global_step", "_step", "Step", "global_step/max_steps"];
  const PREFIXES = ["train/"];
  const ALIASES = [
    ["actor/entropy", "entropy"],
    ["actor/kl_loss", "kl"],
    ["actor/pg_loss", "loss"],
    ["actor/pg_clipfrac", "clip_ratio/region_mean"],
    ["actor/grad_norm", "grad_norm"],
    ["actor/lr", "learning_rate"],
    ["critic/score/mean", "reward"],
    ["critic/rewards/mean", "reward"],
    ["response_length/mean", "completions/mean_length"],
    ["response_length/clip_ratio", "completions/clipped_ratio"],
    ["policy_loss", "loss"],
    ["response_length", "completions/mean_length"],
    ["completion_length", "completions/mean_length"],
    ["clipped_ratio", "completions/clipped_ratio"],
    ["clip_ratio", "clip_ratio/region_mean"],
    ["mean_length", "completions/mean_length"],
    ["reward_mean", "reward"],
    ["lr", "learning_rate"],
  ];
  const DICT_SPAN = rx(`\\{[${WS}]*'[^']+'[${WS}]*:[^{}]*\\}`, "g");
  const JSON_SPAN = /\{[^{}]*\}/g;
  const NAN_WORD = rx(`(?<![${W}'])(-?)(nan|inf)(?![${W}'])`, "g");
  const CUT_LINE = /^[ \t]*(\{'[^\n]*)/gm;
  const QUOTED_PAIR = rx(`'([^']+)'[${WS}]*:[${WS}]*('[^']*'|[^,'{}]+)`, "g");
  const KV_PAIR = rx(`(?:^|[${WS}]-[${WS}])([${W}/().@-]+):[${WS}]*([^${WS}]+)`, "g");
  const SPACED_PAIR = rx(`(?:^|[${WS}]{2,})([${W}/().@-]+):[${WS}]*([^${WS}]+)(?=[${WS}]{2,}|[${WS}]*$)`, "g");
  const SLASH = rx(`[${WS}]*/[${WS}]*`, "g");
  const STEP_FRACTION = /^\p{Nd}+\/\p{Nd}+$/u;
  const ITER_LINE = /^[Ii]ter ([0-9]+):(.*)$/; // mlx-lm's "Iter 10: Train loss ...", nanoGPT's "iter 1631: loss ..."
  const ITER_PAIR = /^([A-Za-z][A-Za-z_ /]*?) (-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|nan|inf) *[A-Za-z]*$/;
  const ITER_BULLET = /^[-*] +/; // "- iter 1273: lm_loss 2.35, **grad_norm 156**": "**" dropped, a loss needed
  const ITER_NOTE = / *\([^()]*\)$/; // "grad_norm 63.5 (vs ~0.3 just before)": the remark dropped
  const ITER_NAMES = {
    "train loss": "loss",
    loss: "loss",
    "chosen reward": "rewards/chosen",
    "rejected reward": "rewards/rejected",
    margin: "rewards/margins",
    accuracy: "rewards/accuracies",
    "learning rate": "learning_rate",
  };
  const NUMBER_TEXT = "-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?|nan|inf";
  // minimind's "Epoch:[1/19](100/24681) loss:5.251 lr:0.0002", torchtune's "Step 12 | loss:1.17 lr:2e-05"
  const COLON_PAIR = rx(`(?<![^${WS}])([A-Za-z][A-Za-z0-9_/]*):(${NUMBER_TEXT})(?![^${WS}])`, "g");
  const LINE_STEP = /^Step ([0-9]+) \||\]\(([0-9]+)\/[0-9]+\)/;
  // tinygrad's "10.5008 loss, 0.000016689301 LR, 8.83 GB used, 18.70 s" (the first part may open with the step)
  const VALUE_NAME = new RegExp(`^(?:([0-9]+) +)?(${NUMBER_TEXT}) +([A-Za-z][A-Za-z0-9_]*(?: [A-Za-z0-9_:]+)*)$`);
  // DeepSpeed-Chat's "chosen_last_scores (higher is better) : 2.17, acc (higher is better) : 0.48"
  const RM_EVAL_PAIR = new RegExp(`^([A-Za-z_][A-Za-z0-9_/]*) \\((?:higher|lower) is better\\) : (${NUMBER_TEXT})$`);
  const RM_EVAL_NAMES = { acc: "eval_accuracy" };
  // CPM's "Epoch 3, global step 750, total step 2142, train lm loss: 11.53", Liger's "Step 11, Loss: 1.154": one part
  const NAME_VALUE = new RegExp(`^([A-Za-z][A-Za-z0-9_/]*(?: [A-Za-z][A-Za-z0-9_/]*)*):? (${NUMBER_TEXT})$`);
  const TRAIN_LOSS = /^(?:train(?:ing)?[_/])?(?:lm_|total_)?loss$/; // the training loss's names, TRL's "loss"
  // a progress part first gives the step: mmf's "... logistics: progress: 100/22000", minimind's "Epoch:[1/2](100/39695)"
  const PROGRESS = /^(?:.*\bprogress: |.*\]\()([0-9]+)\/[0-9]+\)?$/;
  const LABELLED = /^[A-Za-z][A-Za-z0-9_ /]*: \S.*$/; // "experiment: run", "time: 02m 22s": skipped after a progress part
  // the Trainer's log_metrics summary: "***** train metrics *****", then "  train_loss   =     0.2208" lines
  const METRICS_HEADER = /\*{5} ?[a-z]+ metrics ?\*{5}/;
  const METRICS_LINE = /^(?:INFO:? +)?([A-Za-z_][A-Za-z0-9_/]*) *= *(\S+)$/;
  const COLUMNS = { step: "step", "training loss": "loss", "validation loss": "eval_loss", epoch: "epoch" };
  const TEXT = {
    en: {
      none: "No handbook page matches this log ({rows} logged rows, {keys} metrics).",
      some: "{n} handbook page(s) match this log ({rows} logged rows, {keys} metrics), most specific first:",
      problem: "Problems",
      expected: "Expected: how TRL behaves, not a bug",
      steps: "steps",
      step: "step",
      at: "at",
    },
    zh: {
      none: "没有手册页面与这份日志匹配（{rows} 条记录，{keys} 个指标）。",
      some: "{n} 个手册页面与这份日志匹配（{rows} 条记录，{keys} 个指标），最具体的排在前面：",
      problem: "问题",
      expected: "正常现象：TRL 本来就是这样，不是 bug",
      steps: "步",
      step: "步",
      at: "出现在",
    },
  };

  function normalised(row) {
    const out = new Map();
    for (const [key, value] of row) {
      const prefix = PREFIXES.find((p) => key.startsWith(p) && key.length > p.length);
      const name = prefix ? key.slice(prefix.length) : key;
      if (!out.has(name)) out.set(name, value);
    }
    for (const [other, trl] of ALIASES) if (out.has(other) && !out.has(trl)) out.set(trl, out.get(other));
    return out;
  }

  function rowsFromDicts(items, source) {
    return items.map((item, i) => {
      if (!(item instanceof Map)) {
        throw new LogError(`${source}: entry ${i + 1} is not a dict of logged values`, "not-dict");
      }
      const row = normalised(new Map([...item].filter(([k]) => typeof k === "string")));
      for (const key of STEP_KEYS) {
        let value = row.get(key);
        if (typeof value === "string" && STEP_FRACTION.test(strip(value))) value = value.split("/")[0];
        if (row.has(key) && pyValue(value) !== null) {
          row.set("step", pyInt(pyValue(value)));
          return row;
        }
      }
      row.set("step", i + 1);
      return row;
    });
  }

  const anyValue = (values) => {
    for (const v of values) if (pyValue(v) !== null) return true;
    return false;
  };
  const orJsonError = (fn, onError) => {
    try {
      return fn();
    } catch (e) {
      if (e.pyType === "JSONDecodeError") return onError(e);
      throw e;
    }
  };

  function jsonRows(text, source) {
    const stripped = lstrip(text);
    if (stripped.startsWith("[")) {
      const data = orJsonError(() => jsonLoads(text), (e) => {
        throw new LogError(`${source}: invalid JSON (${e.msg} at line ${e.lineno})`, "invalid-json",
          `${e.msg} at line ${e.lineno}`);
      });
      return rowsFromDicts(data, source);
    }
    if (!stripped.startsWith("{") || stripped.startsWith("{'")) return null;
    const data = orJsonError(() => jsonLoads(text), () => undefined);
    if (!(data instanceof Map)) return null;
    if (!data.has("log_history")) {
      if (anyValue(data.values())) return rowsFromDicts([data], source);
      throw new LogError(`${source}: a JSON object without 'log_history' (expected a trainer_state.json)`,
        "no-log-history");
    }
    if (!Array.isArray(data.get("log_history"))) {
      throw new LogError(`${source}: 'log_history' is not a list`, "not-list");
    }
    return rowsFromDicts(data.get("log_history"), source);
  }

  function lineRows(text, source) {
    const items = [];
    for (const line of splitlines(text)) {
      const s = strip(line);
      if (s.startsWith("{")) {
        const obj = orJsonError(() => jsonLoads(s), () => undefined);
        if (obj !== undefined) items.push(obj);
      }
    }
    if (items.length) return rowsFromDicts(items, source);
    for (const m of text.matchAll(JSON_SPAN)) {
      const obj = orJsonError(() => jsonLoads(m[0]), () => undefined);
      if (obj instanceof Map && anyValue(obj.values())) items.push(obj);
    }
    if (items.length) return rowsFromDicts(items, source);
    const found = [];
    const spans = [];
    for (const m of text.matchAll(DICT_SPAN)) { // a printed dict, possibly wrapped by the terminal or the paste
      spans.push([m.index, m.index + m[0].length]);
      try {
        found.push([m.index, literalEval(split(m[0]).join(" ").replace(NAN_WORD, "'$1$2'"))]);
      } catch (e) {
        if (e.pyType !== "ValueError" && e.pyType !== "SyntaxError") throw e;
        const row = rowOf(findall(QUOTED_PAIR, m[0])); // cut off by the paste: its whole pairs
        if (row) found.push([m.index, row]);
      }
    }
    for (const m of text.matchAll(CUT_LINE)) { // a dict line the paste cut off before its "}"
      const at = m.index + m[0].length - m[1].length;
      const row = spans.some(([a, b]) => a <= at && at < b) ? null : rowOf(findall(QUOTED_PAIR, m[1]));
      if (row) found.push([at, row]);
    }
    found.sort((x, y) => x[0] - y[0]);
    return found.length ? rowsFromDicts(found.map(([, row]) => row), source) : null;
  }

  function rowOf(pairs) { // cli._row_of: a row of (name, value) pairs, if two or more of its values are numbers
    const row = new Map(pairs.map(([k, v]) => [k, stripChars(strip(v), "'\"")]));
    return [...row.values()].filter((v) => pyValue(v) !== null).length >= 2 ? row : null;
  }

  function iterRows(text, source) { // cli._iter_rows: mlx-lm's "Iter 10: Train loss 0.061, Chosen reward -0.206"
    const items = [];
    for (const line of splitlines(text)) {
      let s = strip(line);
      const bullet = ITER_BULLET.exec(s);
      if (bullet) s = s.slice(bullet[0].length).replaceAll("**", "");
      const m = ITER_LINE.exec(s);
      if (!m) continue;
      const row = new Map();
      for (const part of m[2].split(",")) {
        const pair = ITER_PAIR.exec(bullet ? strip(part).replace(ITER_NOTE, "") : strip(part));
        if (!pair) continue;
        const name = strip(pair[1]).toLowerCase();
        const base = name.startsWith("val ") ? name.slice(4) : name;
        const key = has(ITER_NAMES, base) ? ITER_NAMES[base] : base.replaceAll(" ", "_");
        const full = base !== name ? "eval_" + key : key;
        if (!row.has(full)) row.set(full, pair[2]);
      }
      if (row.size >= 2 && (!bullet || lossLike(row))) items.push(new Map([...row, ["step", m[1]]]));
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  const lossLike = (row) => [...row.keys()].some((name) => name.toLowerCase().includes("loss"));

  function pairRows(text, source) {
    const items = [];
    for (const line of splitlines(text)) {
      let pairs = findall(QUOTED_PAIR, line);
      if (!pairs.length) { // verl's " - " pairs, unless pairs two spaces apart are more (mmengine)
        const spaced = findall(SPACED_PAIR, line);
        const dashed = line.includes(" - ") ? findall(KV_PAIR, line) : [];
        pairs = dashed.length >= spaced.length ? dashed : spaced;
      }
      const row = rowOf(pairs);
      if (row) items.push(row);
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  function rmEvalRows(text, source) { // cli._rm_eval_rows: DeepSpeed-Chat's reward-model evaluation lines
    const items = [];
    for (const line of splitlines(text)) {
      const parts = line.split(",").map((p) => RM_EVAL_PAIR.exec(strip(p)));
      if (parts.length < 2 || !parts.every(Boolean)) continue;
      const row = new Map();
      for (const pair of parts) {
        const name = has(RM_EVAL_NAMES, pair[1]) ? RM_EVAL_NAMES[pair[1]] : pair[1];
        if (!row.has(name)) row.set(name, pair[2]);
      }
      items.push(row);
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  function colonRows(text, source) { // cli._colon_rows: "name:value" pairs one space apart (minimind, torchtune)
    const items = [];
    for (const line of splitlines(text)) {
      const row = new Map();
      for (const [name, value] of findall(COLON_PAIR, line)) if (!row.has(name)) row.set(name, value);
      if (row.size < 2 || !lossLike(row)) continue;
      const m = STEP_KEYS.some((k) => row.has(k)) ? null : LINE_STEP.exec(line);
      if (m) row.set("step", m[1] ?? m[2]);
      items.push(row);
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  function valueNameRows(text, source) { // cli._value_name_rows: tinygrad's "10.5008 loss, 0.0000167 LR, ..."
    const items = [];
    for (const line of splitlines(text)) {
      const parts = line.split(",").map((p) => VALUE_NAME.exec(strip(p)));
      if (parts.length < 2 || !parts.every(Boolean) || parts.slice(1).some((p) => p[1])) continue;
      const row = new Map();
      for (const pair of parts) {
        const name = pair[3].toLowerCase().replaceAll(" ", "_");
        if (!row.has(name)) row.set(name, pair[2]);
      }
      if (row.size >= 2 && lossLike(row)) items.push(parts[0][1] ? new Map([...row, ["step", parts[0][1]]]) : row);
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  function nameValueRows(text, source) { // cli._name_value_rows: "Epoch 3, global step 750, train lm loss: 11.53"
    const items = [];
    for (const line of splitlines(text)) {
      let parts = strip(line).split(", ");
      const progress = PROGRESS.exec(parts[0]);
      if (progress) parts = parts.slice(1).filter((p) => NAME_VALUE.test(p) || !LABELLED.test(p));
      const pairs = parts.map((p) => NAME_VALUE.exec(p));
      if (pairs.length < 2 || !pairs.every(Boolean) || !pairs.some((p) => p[1].toLowerCase().endsWith("loss"))) {
        continue;
      }
      const row = new Map();
      for (const pair of pairs) {
        const name = pair[1].toLowerCase().replaceAll(" ", "_");
        const key = TRAIN_LOSS.test(name) ? "loss" : name;
        if (!row.has(key)) row.set(key, pair[2]);
      }
      if (row.has("global_step")) row.set("step", row.get("global_step"));
      else if (progress) row.set("step", progress[1]);
      items.push(row);
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  function metricsBlockRows(text, source) { // cli._metrics_block_rows: "***** train metrics *****" blocks
    const items = [];
    let row = null;
    for (const line of [...splitlines(text), ""]) {
      const m = METRICS_LINE.exec(strip(line));
      if (METRICS_HEADER.test(line)) {
        if (row && row.size >= 2) items.push(row);
        row = new Map();
      } else if (row !== null && m) {
        if (!row.has(m[1])) row.set(m[1], m[2]);
      } else if (row !== null && row.size === 0 && !strip(line)) {
        continue; // a blank line after the header
      } else if (row !== null) {
        if (row.size >= 2) items.push(row);
        row = null;
      }
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  const column = (title) => {
    const t = strip(title).replace(SLASH, "/");
    return has(COLUMNS, t.toLowerCase()) ? COLUMNS[t.toLowerCase()] : t;
  };

  function tableRows(text, source) {
    const lines = splitlines(text).filter((ln) => count(ln, "|") >= 2).map((ln) => stripChars(strip(ln), "|"));
    if (lines.length < 2) return null;
    const header = lines[0].split("|").map(column);
    const items = [];
    for (const line of lines.slice(1)) {
      const cells = line.split("|").map(strip);
      if (cells.length === header.length && !cells.every((c) => [...c].every((ch) => "-: ".includes(ch)))) {
        items.push(new Map(header.map((h, i) => [h, cells[i]])));
      }
    }
    return items.length ? rowsFromDicts(items, source) : null;
  }

  function alignedRows(text, source) {
    const lines = splitlines(text).filter((ln) => strip(ln)).map(split);
    if (lines.length < 2 || lines[0].some((c) => pyValue(c) !== null)) return null;
    const header = lines[0].map(column);
    const items = lines.slice(1)
      .filter((cells) => cells.length === header.length && cells.every((c) => pyValue(c) !== null))
      .map((cells) => new Map(header.map((h, i) => [h, cells[i]])));
    return items.length >= 1 ? rowsFromDicts(items, source) : null;
  }

  // Python's csv module: Sniffer().sniff (on the first line) and the reader's state machine
  const CSV_ERROR = (msg) => new PyError("csv.Error", msg);
  const FIELD_LIMIT = 131072;

  function sniff(sample) {
    let [quotechar, doublequote, delimiter, skipinitialspace] = guessQuoteAndDelimiter(sample);
    if (!delimiter) [delimiter, skipinitialspace] = guessDelimiter(sample);
    if (!delimiter) throw CSV_ERROR("Could not determine delimiter");
    return { delimiter, quotechar: quotechar || '"', doublequote, skipinitialspace: Boolean(skipinitialspace) };
  }

  function guessQuoteAndDelimiter(data) {
    const D = `[^${W}\\n"']`;
    const patterns = [
      `(?<delim>${D})(?<space> ?)(?<quote>["']).*?\\k<quote>\\k<delim>`,
      `(?:^|\\n)(?<quote>["']).*?\\k<quote>(?<delim>${D})(?<space> ?)`,
      `(?<delim>${D})(?<space> ?)(?<quote>["']).*?\\k<quote>(?:$|\\n)`,
      `(?:^|\\n)(?<quote>["']).*?\\k<quote>(?:$|\\n)`,
    ];
    let matches = [];
    for (const p of patterns) {
      matches = [...data.matchAll(rx(p, "gsm"))].map((m) => m.groups);
      if (matches.length) break;
    }
    if (!matches.length) return ["", false, null, 0];
    const quotes = new Map(), delims = new Map();
    let spaces = 0;
    for (const g of matches) {
      if (g.quote) quotes.set(g.quote, (quotes.get(g.quote) || 0) + 1);
      if (!("delim" in g)) continue;
      if (g.delim) delims.set(g.delim, (delims.get(g.delim) || 0) + 1);
      if (!("space" in g)) continue;
      if (g.space) spaces += 1;
    }
    const argmax = (m) => [...m].reduce((best, kv) => (best === null || kv[1] > best[1] ? kv : best), null)[0];
    const quotechar = argmax(quotes);
    let delim, skipinitialspace;
    if (delims.size) {
      delim = argmax(delims);
      skipinitialspace = delims.get(delim) === spaces;
      if (delim === "\n") delim = "";
    } else {
      delim = "";
      skipinitialspace = 0;
    }
    const d = delim.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"); // outside a class
    const c = delim.replace(/[\\\]\[^-]/g, "\\$&"); // inside one
    const q = quotechar;
    const dq = rx(`((${d})|^)[^${W}]*${q}[^${c}\\n]*${q}[^${c}\\n]*${q}[^${W}]*((${d})|$)`, "m");
    return [quotechar, dq.test(data), delim, skipinitialspace];
  }

  function guessDelimiter(text) {
    const data = text.split("\n").filter((x) => x !== "");
    const ascii = Array.from({ length: 127 }, (_, c) => String.fromCharCode(c));
    const chunkLength = Math.min(10, data.length);
    let iteration = 0;
    const charFrequency = new Map(), modes = new Map(), delims = new Map();
    let start = 0, end = chunkLength;
    const countIn = (line, ch) => line.split(ch).length - 1;
    const skip = (d) => countIn(data[0], d) === countIn(data[0], d + " ");
    while (start < data.length) {
      iteration += 1;
      for (const line of data.slice(start, end)) {
        for (const ch of ascii) {
          const meta = charFrequency.get(ch) || new Map();
          const freq = countIn(line, ch);
          meta.set(freq, (meta.get(freq) || 0) + 1);
          charFrequency.set(ch, meta);
        }
      }
      for (const ch of charFrequency.keys()) {
        let items = [...charFrequency.get(ch)];
        if (items.length === 1 && items[0][0] === 0) continue;
        if (items.length > 1) {
          const mode = items.reduce((best, it) => (it[1] > best[1] ? it : best));
          items.splice(items.indexOf(mode), 1);
          modes.set(ch, [mode[0], mode[1] - items.reduce((s, it) => s + it[1], 0)]);
        } else modes.set(ch, items[0]);
      }
      const total = Math.min(chunkLength * iteration, data.length);
      let consistency = 1.0;
      const threshold = 0.9;
      while (delims.size === 0 && consistency >= threshold) {
        for (const [k, v] of modes) {
          if (v[0] > 0 && v[1] > 0 && v[1] / total >= consistency) delims.set(k, v);
        }
        consistency -= 0.01;
      }
      if (delims.size === 1) {
        const delim = [...delims.keys()][0];
        return [delim, skip(delim)];
      }
      start = end;
      end += chunkLength;
    }
    if (!delims.size) return ["", 0];
    if (delims.size > 1) {
      for (const d of [",", "\t", ";", " ", ":"]) if (delims.has(d)) return [d, skip(d)];
    }
    const items = [...delims].sort((a, b) => a[1][0] - b[1][0] || a[1][1] - b[1][1] || cmpStr(a[0], b[0]));
    const delim = items[items.length - 1][0];
    return [delim, skip(delim)];
  }

  function csvReader(text, dialect) { // csv.reader over io.StringIO(text): next() gives a record or null at the end
    const lines = text.match(/[^\n]*\n|[^\n]+$/g) || [];
    const EOL = null;
    let li = 0;
    return {
      next() {
        const fields = [];
        let field = "", fieldLen = 0, state = "START_RECORD";
        const save = () => {
          fields.push(field);
          field = "";
          fieldLen = 0;
        };
        const add = (c) => {
          if (fieldLen >= FIELD_LIMIT) throw CSV_ERROR(`field larger than field limit (${FIELD_LIMIT})`);
          field += c;
          fieldLen += 1;
        };
        const nl = (c) => c === "\n" || c === "\r";
        const process = (c) => {
          switch (state) {
            case "START_RECORD":
              if (c === EOL) return;
              if (nl(c)) { state = "EAT_CRNL"; return; }
              state = "START_FIELD";
            // falls through
            case "START_FIELD":
              if (c === EOL || nl(c)) { save(); state = c === EOL ? "START_RECORD" : "EAT_CRNL"; }
              else if (c === dialect.quotechar) state = "IN_QUOTED_FIELD";
              else if (c === " " && dialect.skipinitialspace);
              else if (c === dialect.delimiter) save();
              else { add(c); state = "IN_FIELD"; }
              return;
            case "IN_FIELD":
              if (c === EOL || nl(c)) { save(); state = c === EOL ? "START_RECORD" : "EAT_CRNL"; }
              else if (c === dialect.delimiter) { save(); state = "START_FIELD"; }
              else add(c);
              return;
            case "IN_QUOTED_FIELD":
              if (c === EOL);
              else if (c === dialect.quotechar) state = dialect.doublequote ? "QUOTE_IN_QUOTED_FIELD" : "IN_FIELD";
              else add(c);
              return;
            case "QUOTE_IN_QUOTED_FIELD":
              if (c === dialect.quotechar) { add(c); state = "IN_QUOTED_FIELD"; }
              else if (c === dialect.delimiter) { save(); state = "START_FIELD"; }
              else if (c === EOL || nl(c)) { save(); state = c === EOL ? "START_RECORD" : "EAT_CRNL"; }
              else { add(c); state = "IN_FIELD"; }
              return;
            case "EAT_CRNL":
              if (nl(c));
              else if (c === EOL) state = "START_RECORD";
              else {
                throw CSV_ERROR("new-line character seen in unquoted field - do you need to open the file in " +
                  "universal-newline mode?");
              }
              return;
          }
        };
        do {
          if (li >= lines.length) {
            if (fieldLen !== 0 || state === "IN_QUOTED_FIELD") { save(); break; }
            return null;
          }
          for (const c of lines[li++]) process(c);
          process(EOL);
        } while (state !== "START_RECORD");
        return fields;
      },
    };
  }

  function csvRows(text, source) {
    const first = splitlines(text)[0];
    let reader, header;
    try {
      reader = csvReader(text, first.includes(",") ?
        { delimiter: ",", quotechar: '"', doublequote: true, skipinitialspace: false } : sniff(first));
      header = reader.next() || [];
    } catch (e) {
      if (e.pyType === "csv.Error") return null;
      throw e;
    }
    if (header.length < 2) return null;
    const rows = [];
    for (let rec = reader.next(); rec !== null; rec = reader.next()) {
      if (!rec.length) continue;
      const d = new Map();
      header.forEach((k, i) => {
        if (i < rec.length) d.set(k, rec[i]);
      });
      for (const k of header.slice(rec.length)) d.set(k, null);
      const row = new Map();
      for (const [k, v] of d) {
        const value = v === null || v === "" ? null : pyValue(v);
        if (value !== null) row.set(k, value);
      }
      if (row.size) rows.push(row);
    }
    return rows.length ? rowsFromDicts(rows, source) : null;
  }

  function readLog(text, source = "log") {
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // utf-8-sig
    if (!strip(text)) throw new LogError(`${source}: the file is empty`, "empty");
    const others = () => {
      for (const reader of [lineRows, iterRows, pairRows, rmEvalRows, colonRows, valueNameRows, nameValueRows,
        metricsBlockRows, tableRows, alignedRows, csvRows]) {
        const rows = reader(text, source);
        if (rows !== null) return rows;
      }
      return null;
    };
    let rows;
    try {
      rows = jsonRows(text, source);
    } catch (e) {
      // "[INFO|...] >> {'loss': ...}": console output that opens with a bracket, unless no other reader finds rows
      if (!(e instanceof LogError) || e.code !== "invalid-json") throw e;
      rows = others();
      if (rows === null) throw e;
    }
    if (rows === null) rows = others();
    if (rows !== null) return rows;
    throw new LogError(
      `${source}: no logged values found: expected a trainer_state.json, JSONL of logged dicts, console output ` +
        "with the Trainer's {'loss': ...} lines, or a CSV with a header of metric names", "no-values");
  }

  // ---- Python's number formatting: repr(float), format(x, '.4g'), format(x, '.0%') ---------------------------
  function floatRepr(x) {
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    const [mant, e] = Math.abs(x).toExponential().split("e");
    const digits = mant.replace(".", ""), exp = Number(e), sign = x < 0 ? "-" : "";
    if (exp < -4 || exp >= 16) {
      const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
      return sign + m + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
    }
    if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
    if (digits.length <= exp + 1) return sign + digits + "0".repeat(exp + 1 - digits.length) + ".0";
    return sign + digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
  }

  function exactDecimal(x) { // x > 0 finite: its exact decimal digits and the exponent of the first one
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const hi = view.getUint32(0), lo = view.getUint32(4);
    const bits = (hi >>> 20) & 0x7ff;
    let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let e2 = -1074;
    if (bits) {
      mant |= 1n << 52n;
      e2 = bits - 1075;
    }
    const digits = (e2 >= 0 ? mant << BigInt(e2) : mant * 5n ** BigInt(-e2)).toString();
    return [digits, digits.length - 1 - Math.max(-e2, 0)];
  }

  function roundUp(head, rest) { // round half to even: whether head (digits kept) goes up given the rest
    if (!rest) return false;
    if (rest[0] !== "5") return rest[0] > "5";
    return /[1-9]/.test(rest.slice(1)) || Number(head[head.length - 1] || 0) % 2 === 1;
  }

  function formatG(x, p = 4) { // format(x, '.4g')
    if (!Number.isFinite(x)) return floatRepr(x);
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    let [digits, E] = exactDecimal(Math.abs(x));
    let head = digits.slice(0, p).padEnd(p, "0");
    if (roundUp(head, digits.slice(p))) {
      head = (BigInt(head) + 1n).toString();
      if (head.length > p) {
        head = head.slice(0, p);
        E += 1;
      }
    }
    const trim = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
    let s;
    if (E >= -4 && E < p) {
      s = trim(E >= 0 ? head.slice(0, E + 1) + "." + head.slice(E + 1) : "0." + "0".repeat(-E - 1) + head);
    }
    else s = trim(head[0] + "." + head.slice(1)) + "e" + (E < 0 ? "-" : "+") + String(Math.abs(E)).padStart(2, "0");
    return (x < 0 ? "-" : "") + s;
  }

  function formatFixed0(x) { // format(x, '.0f')
    if (!Number.isFinite(x)) return floatRepr(x);
    const sign = x < 0 || Object.is(x, -0) ? "-" : "";
    if (x === 0) return sign + "0";
    const [digits, E] = exactDecimal(Math.abs(x));
    let n;
    if (E < -1) n = 0n;
    else if (E === -1) n = roundUp("0", digits) ? 1n : 0n;
    else {
      const head = digits.slice(0, E + 1).padEnd(E + 1, "0");
      n = BigInt(head) + (roundUp(head, digits.slice(E + 1)) ? 1n : 0n);
    }
    return sign + n.toString();
  }

  const fmt = formatG; // cli._fmt: '.4g', and str() of nan and inf (which '.4g' writes the same)

  function pyStr(value, token) { // str(value) of a rule's number (token: as written in rules.json, if known)
    if (value === null || value === undefined) return "None";
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value !== "number") return String(value);
    const isFloat = token !== undefined ? /[.eE]/.test(token) : !Number.isInteger(value);
    if (isFloat) return floatRepr(value);
    return token !== undefined ? BigInt(token).toString() : BigInt(value).toString();
  }

  // ---- rules.py: the patterns, describe and diagnose ---------------------------------------------------------
  function runs(points, ok, n) { // the first stretch of at least n consecutive points satisfying ok
    let start = null;
    for (let i = 0; i <= points.length; i++) {
      if (i < points.length && ok(points[i][1])) {
        if (start === null) start = i;
      } else {
        if (start !== null && i - start >= n) return points.slice(start, i);
        start = null;
      }
    }
    return null;
  }
  const short = (pts, n) => Math.max(1, Math.min(n, pts.length));
  const sum = (xs) => xs.reduce((s, v) => s + v, 0);
  const mean = (pts) => sum(pts.map((p) => p[1])) / pts.length;
  const trend = (sign) => (pts, finite, cond, n) => {
    if (finite.length < Math.max(n, 3)) return null;
    const third = Math.max(Math.floor(finite.length / 3), 1);
    const first = mean(finite.slice(0, third));
    const last = mean(finite.slice(finite.length - third));
    const value = get(cond, "value", null);
    const rel = value !== null ? value : 0.5;
    const beyond = sign * (last - first) > rel * Math.max(Math.abs(first), 1e-12);
    return beyond ? [finite[0], finite[finite.length - 1]] : null;
  };

  const near = (cond) => { // rules._near: a logged value is `value` within `tol` (relative)
    const limit = get(cond, "tol", 1e-3) * Math.max(Math.abs(cond.value), 1e-12);
    return (v) => Number.isFinite(v) && Math.abs(v - cond.value) <= limit;
  };

  const PATTERNS = {
    above: {
      match: (pts, finite, cond, n) => runs(pts, (v) => Number.isFinite(v) && v > cond.value, short(pts, n)),
      en: "{metric} above {value} for {n} logged step(s)",
      zh: "{metric} 连续 {n} 个记录步高于 {value}",
      capped: true,
    },
    below: {
      match: (pts, finite, cond, n) => runs(pts, (v) => Number.isFinite(v) && v < cond.value, short(pts, n)),
      en: "{metric} below {value} for {n} logged step(s)",
      zh: "{metric} 连续 {n} 个记录步低于 {value}",
      capped: true,
    },
    equals: {
      match: (pts, finite, cond, n) => runs(pts, near(cond), short(pts, n)),
      en: "{metric} equal to {value} for {n} logged step(s)",
      zh: "{metric} 连续 {n} 个记录步等于 {value}",
      capped: true,
    },
    drops_to: {
      match: (pts, finite, cond, n) => {
        const ok = near(cond);
        const first = pts.findIndex((p) => Number.isFinite(p[1]) && !ok(p[1]));
        if (first < 0) return null;
        const after = pts.slice(first + 1);
        return after.length ? runs(after, ok, short(after, n)) : null;
      },
      en: "{metric} falls to {value} and stays there for {n} logged step(s)",
      zh: "{metric} 降到 {value} 后连续 {n} 个记录步保持不变",
      capped: true,
    },
    constant: {
      match: (pts, finite, cond, n) => {
        const tol = get(cond, "tol", 1e-9);
        n = short(finite, n); // a pasted row or two, like above/below/equals: every value logged is the same
        let i = 0;
        while (i < finite.length) {
          let j = i;
          while (j + 1 < finite.length && Math.abs(finite[j + 1][1] - finite[i][1]) <= tol) j++;
          if (j - i + 1 >= n) return finite.slice(i, j + 1);
          i = j + 1;
        }
        return null;
      },
      en: "{metric} unchanged for {n} logged step(s)", zh: "{metric} 连续 {n} 个记录步保持不变", defaultFor: 3,
      capped: true,
    },
    rising: {
      match: trend(1),
      en: "{metric} rising (last third of the run {pct} above the first third)",
      zh: "{metric} 持续上升（后三分之一比前三分之一高 {pct}）", defaultFor: 3,
    },
    falling: {
      match: trend(-1),
      en: "{metric} falling (last third of the run {pct} below the first third)",
      zh: "{metric} 持续下降（后三分之一比前三分之一低 {pct}）", defaultFor: 3,
    },
    spike: {
      match: (pts, finite, cond, n) => {
        const value = get(cond, "value", null);
        const factor = value !== null ? value : 10.0;
        const before = finite.slice(0, 3).map((p) => p[1]).sort((a, b) => a - b);
        for (let i = 3; i < finite.length; i++) {
          const median = before[Math.floor(before.length / 2)];
          if (median > 0 && finite[i][1] > factor * median) return [finite[i]];
          let lo = 0, hi = before.length; // bisect.insort (right)
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (finite[i][1] < before[mid]) hi = mid;
            else lo = mid + 1;
          }
          before.splice(lo, 0, finite[i][1]);
        }
        return null;
      },
      en: "{metric} more than {value}x the median of the steps before",
      zh: "{metric} 超过此前各步中位数的 {value} 倍",
    },
    nan: {
      match: (pts) => {
        const bad = pts.filter((p) => !Number.isFinite(p[1]));
        return bad.length ? bad : null;
      },
      en: "{metric} is NaN or infinite", zh: "{metric} 出现 NaN 或无穷大",
    },
    missing: { match: null, en: "{metric} is never logged (or only as NaN)", zh: "日志里从未记录 {metric}（或只有 NaN）" },
    present: { match: null, en: "{metric} is logged", zh: "日志记录了 {metric}" },
  };
  for (const p of Object.values(PATTERNS)) p.defaultFor = p.defaultFor || 1;

  function series(log, key) {
    const out = [];
    log.forEach((row, i) => {
      if (!row.has(key)) return;
      const v = pyValue(row.get(key));
      if (v !== null) out.push([pyInt(Number(row.has("step") ? row.get("step") : i + 1)), v]);
    });
    return out;
  }

  function keys(log) {
    const out = new Set();
    for (const row of log) for (const k of row.keys()) out.add(k);
    return out;
  }

  function fnmatchRegex(pat) { // fnmatch.translate, as a JS RegExp (fnmatchcase: no case folding)
    const cps = [...pat], n = cps.length, STAR = {}, res = [];
    const escOut = (c) => ("\\^$.*+?()[]{}|/".includes(c) ? "\\" + c : c);
    const escIn = (s) => [...s].map((c) => ("\\]^-[".includes(c) ? "\\" + c : c)).join("");
    let i = 0;
    while (i < n) {
      const c = cps[i++];
      if (c === "*") {
        if (!res.length || res[res.length - 1] !== STAR) res.push(STAR);
      } else if (c === "?") res.push(".");
      else if (c === "[") {
        let j = i;
        if (j < n && cps[j] === "!") j++;
        if (j < n && cps[j] === "]") j++;
        while (j < n && cps[j] !== "]") j++;
        if (j >= n) {
          res.push("\\[");
          continue;
        }
        let chunks;
        const stuff = cps.slice(i, j).join("");
        if (!stuff.includes("-")) chunks = [stuff];
        else {
          chunks = [];
          let k = cps[i] === "!" ? i + 2 : i + 1;
          for (;;) {
            k = cps.indexOf("-", k);
            if (k < 0 || k >= j) break;
            chunks.push(cps.slice(i, k).join(""));
            i = k + 1;
            k = k + 3;
          }
          const chunk = cps.slice(i, j).join("");
          if (chunk) chunks.push(chunk);
          else chunks[chunks.length - 1] += "-";
          for (let k2 = chunks.length - 1; k2 > 0; k2--) {
            const a = [...chunks[k2 - 1]], b = [...chunks[k2]];
            if (a[a.length - 1].codePointAt(0) > b[0].codePointAt(0)) {
              chunks[k2 - 1] = a.slice(0, -1).join("") + b.slice(1).join("");
              chunks.splice(k2, 1);
            }
          }
        }
        i = j + 1;
        const text = chunks.join("-");
        if (!text) res.push("(?!)");
        else if (text === "!") res.push(".");
        else {
          const negate = text[0] === "!";
          if (negate) chunks[0] = chunks[0].slice(1);
          res.push("[" + (negate ? "^" : "") + chunks.map(escIn).join("-") + "]");
        }
      } else res.push(escOut(c));
    }
    return rx("^(?:" + res.map((r) => (r === STAR ? ".*" : r)).join("") + ")$", "s");
  }

  function condition(cond, log, allKeys) { // the [[metric, points]] evidence if the condition holds, else null
    const pattern = PATTERNS[cond.is];
    const re = fnmatchRegex(cond.metric);
    const matching = [...allKeys].filter((k) => re.test(k)).sort(cmpStr);
    if (cond.is === "missing") {
      // a notebook table shows a metric never logged as a column of nan
      const logged = matching.filter((k) => series(log, k).some(([, v]) => Number.isFinite(v)));
      return !logged.length && log.length ? [[cond.metric, []]] : null;
    }
    if (cond.is === "present") return matching.length ? [[matching[0], series(log, matching[0]).slice(0, 1)]] : null;
    const n = Math.trunc(Number(get(cond, "for", pattern.defaultFor)));
    for (const key of matching) {
      const pts = series(log, key);
      const hit = pattern.match(pts, pts.filter((p) => Number.isFinite(p[1])), cond, n);
      if (hit && hit.length) return [[key, hit]];
    }
    return null;
  }

  function describe(cond, lang, metric, points) {
    const pattern = cond.is;
    const tokens = NUM_TOKENS.get(cond) || new Map();
    let value = get(cond, "value", null), valueToken = tokens.get("value");
    const trend = pattern === "rising" || pattern === "falling";
    const pct = trend ? formatFixed0((value !== null ? value : 0.5) * 100) + "%" : "";
    if (pattern === "spike" && value === null) {
      value = 10;
      valueToken = "10";
    }
    const rulesFor = get(cond, "for", PATTERNS[pattern].defaultFor);
    let n = pyStr(rulesFor, tokens.get("for"));
    if (PATTERNS[pattern].capped && points) {
      n = String(points.length); // what the log shows (0 at steps 1 and 2: "for 2 logged step(s)"), not `for`
    }
    const vars = { metric: metric || cond.metric, value: pyStr(value, valueToken), n, pct };
    return PATTERNS[pattern][lang].replace(/\{(\w+)\}/g, (_, k) => vars[k]);
  }

  function diagnose(log, rules, lang = "en") {
    const allKeys = keys(log);
    const findings = [];
    for (const page of rules) {
      const rule = page.rule;
      const results = rule.when.map((c) => [c, condition(c, log, allKeys)]);
      const held = results.filter(([, r]) => r);
      if (!held.length || (get(rule, "match", "all") === "all" && held.length !== results.length)) continue;
      if (get(rule, "unless", []).some((c) => condition(c, log, allKeys))) continue;
      const evidence = [];
      for (const [c, r] of held) {
        for (const [metric, points] of r) evidence.push({ metric, text: describe(c, lang, metric, points), points });
      }
      let firstStep = null;
      for (const e of evidence) for (const [s] of e.points) if (firstStep === null || s < firstStep) firstStep = s;
      findings.push({ page, kind: get(rule, "kind", "problem"), evidence, firstStep: firstStep === null ? 0 : firstStep });
    }
    return findings.sort((a, b) => (a.kind === "expected") - (b.kind === "expected") ||
      b.evidence.length - a.evidence.length || a.firstStep - b.firstStep || cmpStr(a.page.id, b.page.id));
  }

  const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (_, k) => String(vars[k]));
  const metricCount = (log) => [...keys(log)].filter((k) => k !== "step").length;

  function evidenceLine(ev, lang) { // one evidence line of cli.report, without its indent
    const t = TEXT[lang], pts = ev.points;
    if (!pts.length) return ev.text;
    const step = (s) => BigInt(s).toString();
    const shown = pts.slice(0, 6).map((p) => fmt(p[1])).join(", ") + (pts.length > 6 ? ", …" : "");
    const first = step(pts[0][0]), last = step(pts[pts.length - 1][0]);
    // cli._span: each step for up to three ("steps 1, 2"; NaN at scattered steps), else a range
    const span = pts.length === 1 ? `${t.step} ${first}` :
      pts.length <= 3 ? `${t.steps} ` + pts.map((p) => step(p[0])).join(", ") : `${t.steps} ${first}–${last}`;
    return `${ev.text}: ${span}: ${shown}`;
  }

  function report(findings, log, lang = "en") { // cli.report: the text the command line prints
    const t = TEXT[lang], nKeys = metricCount(log);
    if (!findings.length) return fill(t.none, { rows: log.length, keys: nKeys });
    const out = [fill(t.some, { n: findings.length, rows: log.length, keys: nKeys }), ""];
    let kind = null;
    findings.forEach((f, i) => {
      if (f.kind !== kind) {
        kind = f.kind;
        out.push(`${t[kind]}:`, "");
      }
      out.push(`${i + 1}. ${f.page.title[lang]}`, `   ${f.page.url[lang]}`);
      for (const ev of f.evidence) out.push(`   - ${evidenceLine(ev, lang)}`);
      out.push("");
    });
    return out.join("\n").replace(rx(`[${WS}]+$`), "");
  }

  function parseRules(text) { // rules.json, keeping how each rule number is written (for describe)
    return jsonLoads(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, true);
  }

  const api = {
    readLog, diagnose, describe, report, evidenceLine, parseRules, LogError, TEXT,
    _internals: { pyFloat, floatRepr, formatG, formatFixed0, fnmatchRegex, jsonLoads, literalEval, pyValue, sniff },
  };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  if (typeof document === "undefined") return;

  // ---- the page's panel --------------------------------------------------------------------------------------
  const UI = {
    en: {
      ready: "Paste a log above, then Diagnose my log (or Ctrl+Enter).",
      reading: "Reading the rules…",
      rulesFailed: "The rules could not be loaded ({url}). Reload the page, or run rlhf-doctor on your machine.",
      unreadable: "This text could not be read as a training log.",
      reasons: {
        empty: "The box is empty: paste a training log first.",
        "invalid-json": "It starts like JSON but is not valid JSON ({detail}).",
        "no-log-history": "It is a JSON object without 'log_history' (a trainer_state.json has one).",
        "not-list": "Its 'log_history' is not a list.",
        "not-dict": "An entry of the JSON list is not a dict of logged values.",
        "no-values": "No logged values were found in it.",
      },
      formats: "The doctor reads:",
      formatList: [
        "a trainer_state.json (its log_history), or a JSON list of logged dicts",
        "JSONL: one logged dict per line",
        "console output with the Trainer's {'loss': 0.69, 'grad_norm': nan, ...} lines (other lines are skipped)",
        "name: value pairs: 'loss': 0.0, 'reward': 1.0, verl's step:1 - actor/entropy:0.4, " +
          "or name: value pairs set two or more spaces apart",
        "a Markdown or notebook table (Step | Training Loss | reward ...)",
        "columns aligned with spaces under a header of metric names",
        "a CSV export (Weights & Biases, TensorBoard) with a header of metric names",
      ],
    },
    zh: {
      ready: "在上面粘贴日志，然后点击“诊断我的日志”（或按 Ctrl+Enter）。",
      reading: "正在读取规则…",
      rulesFailed: "规则加载失败（{url}）。请刷新页面，或在本机运行 rlhf-doctor。",
      unreadable: "这段文本无法作为训练日志读取。",
      reasons: {
        empty: "输入框是空的：请先粘贴一段训练日志。",
        "invalid-json": "它以 JSON 开头，但不是有效的 JSON（{detail}）。",
        "no-log-history": "这是一个没有 'log_history' 的 JSON 对象（trainer_state.json 里有这个字段）。",
        "not-list": "它的 'log_history' 不是列表。",
        "not-dict": "JSON 列表里有一项不是记录指标的字典。",
        "no-values": "其中没有找到任何记录的指标值。",
      },
      formats: "日志诊断能读取：",
      formatList: [
        "trainer_state.json（读取其中的 log_history），或由日志字典组成的 JSON 列表",
        "JSONL：每行一个日志字典",
        "控制台输出中 Trainer 打印的 {'loss': 0.69, 'grad_norm': nan, ...} 行（其他行会被跳过）",
        "“名称: 数值”对：'loss': 0.0, 'reward': 1.0、verl 的 step:1 - actor/entropy:0.4，" +
          "或用两个以上空格隔开的“名称: 数值”对",
        "Markdown 或 notebook 表格（Step | Training Loss | reward ...）",
        "用空格对齐的列，第一行是指标名",
        "CSV 导出文件（Weights & Biases、TensorBoard），第一行是指标名",
      ],
    },
  };
  const script = document.currentScript && document.currentScript.src;
  const root = () => { // the site root: this script is <root>/javascripts/doctor.js
    if (script) return new URL("../", script);
    return new URL(".", typeof __md_scope !== "undefined" ? __md_scope : location);
  };
  let rulesPromise = null;
  const loadRules = () => {
    if (!rulesPromise) {
      const url = new URL("assets/doctor-rules.json", root());
      rulesPromise = fetch(url).then((r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return r.text();
      }).then(parseRules).catch((e) => {
        rulesPromise = null;
        throw Object.assign(e, { url: url.pathname });
      });
    }
    return rulesPromise;
  };

  const relativeHref = (target) => { // the link from this page to target, as a relative URL
    const from = location.pathname.split("/").slice(0, -1); // this page's folder
    const to = target.pathname.split("/");
    let i = 0;
    while (i < from.length && i < to.length - 1 && from[i] === to[i]) i++;
    return ("../".repeat(from.length - i) + to.slice(i).join("/") || "./") + target.search + target.hash;
  };
  const pageHref = (page, lang, site) => {
    const url = page.url[lang];
    if (!site || !url.startsWith(site)) return url;
    return relativeHref(new URL(url.slice(site.length), root()));
  };
  const el = (tag, text, cls) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  };

  function show(out, lang, text, data) {
    const t = TEXT[lang], u = UI[lang];
    out.replaceChildren();
    let log;
    try {
      log = readLog(text, "log");
    } catch (e) {
      const reason = e instanceof LogError ? fill(u.reasons[e.code] || "", { detail: e.detail }) : "";
      out.append(el("p", [u.unreadable, reason].filter(Boolean).join(lang === "zh" ? "" : " "), "hb-doctor__error"));
      if (!(e instanceof LogError && e.code === "empty")) {
        out.append(el("p", u.formats));
        const ul = el("ul", undefined, "hb-doctor__formats");
        for (const f of u.formatList) ul.append(el("li", f));
        out.append(ul);
      }
      return;
    }
    const findings = diagnose(log, data.pages, lang);
    const nKeys = metricCount(log);
    if (!findings.length) {
      out.append(el("p", fill(t.none, { rows: log.length, keys: nKeys }), "hb-doctor__none"));
      return;
    }
    out.append(el("p", fill(t.some, { n: findings.length, rows: log.length, keys: nKeys })));
    let kind = null, list = null;
    findings.forEach((f, i) => {
      if (f.kind !== kind) {
        kind = f.kind;
        out.append(el("p", `${t[kind]}:`, `hb-doctor__kind hb-doctor__kind--${kind}`));
        list = el("ol");
        list.start = i + 1;
        out.append(list);
      }
      const item = el("li", undefined, `hb-doctor__finding hb-doctor__finding--${f.kind}`);
      item.dataset.kind = f.kind;
      item.dataset.page = f.page.id;
      const link = el("a", f.page.title[lang]);
      link.href = pageHref(f.page, lang, data.site);
      const evidence = el("ul");
      for (const ev of f.evidence) evidence.append(el("li", evidenceLine(ev, lang)));
      item.append(link, evidence);
      list.append(item);
    });
  }

  function bind(panel) {
    if (panel.dataset.hbBound) return;
    panel.dataset.hbBound = "1";
    const lang = panel.dataset.lang === "zh" ? "zh" : "en";
    const box = panel.querySelector("textarea");
    const out = panel.querySelector(".hb-doctor__out");
    const run = () => {
      out.replaceChildren(el("p", UI[lang].reading));
      loadRules().then((data) => show(out, lang, box.value, data), (e) => {
        out.replaceChildren(el("p", fill(UI[lang].rulesFailed, { url: e.url || "" }), "hb-doctor__error"));
      });
    };
    // the page's no-JavaScript notice ("needs JavaScript"): JavaScript runs, so it says what to do instead
    out.replaceChildren(el("p", UI[lang].ready, "hb-doctor__ready"));
    panel.querySelector(".hb-doctor__run").addEventListener("click", run);
    const file = panel.querySelector(".hb-doctor__file");
    if (file) { // a log file (trainer_state.json, a .jsonl, a CSV export): read here, put in the box, diagnosed
      file.addEventListener("change", () => {
        const f = file.files && file.files[0];
        if (!f) return;
        f.text().then((text) => { box.value = text; run(); });
      });
    }
    box.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) run();
    });
    let handed = null; // a log pasted into the search box and handed over (docs/javascripts/search.js)
    try {
      handed = sessionStorage.getItem("hb-doctor-log");
      sessionStorage.removeItem("hb-doctor-log");
    } catch (e) {}
    if (handed) {
      box.value = handed;
      run();
    }
  }
  const init = () => document.querySelectorAll(".hb-doctor").forEach(bind);
  // Material's document$ emits on the first load and after each instant navigation; without it, bind once
  if (typeof document$ !== "undefined" && typeof document$.subscribe === "function") document$.subscribe(init);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
