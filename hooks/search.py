"""MkDocs hook: search that finds a page from the symptom, in the reader's language.

1. One index per language. mkdocs-static-i18n leaves one index holding both languages at search/; after the
   last build this splits it: English pages in search/search_index.json, Chinese pages in
   zh/search/search_index.json, and every Chinese page's theme config points its search at zh/.
2. Ranking for symptoms: each pitfall page's symptoms go into a ``symptoms`` field boosted like its title;
   tags rank below titles; a pitfall page's own entry outranks the entries of its sections (headings) and the
   pages without symptoms (chapter indexes), and body text ranks last. The English index stems words ("learns"
   finds "learned").
3. Queries, rewritten in Material's search worker before lunr parses them (``_QUERY_FIXED``, ``_TERMS_FIXED``):
   split where the index splits; question words dropped; symptom synonyms added (``SYNONYMS``); a logged number
   also searched rounded; whole numbers and single Chinese characters matched exactly, not as prefixes.
   Results are scored by lunr's score times the share of the reader's words a page matches (``_COVER``), with
   BM25's length normalisation, which Material turns off, back on (``_LENGTH_FIXED``). A result's "Missing:" line
   names only words the reader wrote, as written (``hbTerms``): not the synonyms, stems and rounded numbers.
   tests/search_queries.yaml measures it (tests/test_site.py, with the worker run in node by
   tests/search_eval.js); the same file records which queries the ranking was tuned on.
4. Chinese query segmentation (below).
5. A query holding Chinese characters on an English page searches the Chinese index (``_TO_ZH``).

Material's experimental Chinese query segmentation (search worker, ``segment()``) never looks at the last
character of a run of Han characters and gives up on the whole run as soon as one character starts no indexed
word, so most queries written only in Chinese find nothing. After the build we swap that function for one that
looks up every indexed word inside the run, skipping unknown characters. The browser test
(tests/test_site.py) searches in Chinese and fails if this stops applying.
"""

from __future__ import annotations

import json
import pathlib
import re
from importlib import metadata

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from handbook.content import pages as hp
from handbook.site import buildcache, search_text

_SEGMENT = re.compile(
    r"function (\w+)\((\w),(\w)\)\{let (\w)=new Set,(\w)=new Uint16Array\(\2\.length\);.*?"
    r'return \4\.has\(""\)\?new Set\(\[\2\]\):\4\}'
)
_SEGMENT_FIXED = (
    # every indexed word of 2+ characters found anywhere in the run, plus single characters that no longer
    # word covers: jieba segmented the pages, so the query should hit whichever words jieba chose
    "function {name}(t,e){{let r=new Set,c=new Uint8Array(t.length);"
    "for(let s=0;s<t.length;s++)for(let o=s+2;o<=t.length;o++)if(t.slice(s,o)in e){{r.add(t.slice(s,o));"
    "for(let k=s;k<o;k++)c[k]=1}}"
    "for(let s=0;s<t.length;s++)if(!c[s]&&t[s]in e)r.add(t[s]);return r.size?r:new Set([t])}}"
)
_MARK = "c=new Uint8Array(t.length);for(let s=0;s<t.length;s++)for(let o=s+2;"
ZH_STOP = (
    "请问 为什么 怎么办 怎么 如何 是否 可以 能否 有没有 有人 遇到 出现了 出现 的问题 问题 情况 这种 这个 那个 "
    "一下 一些 时候 之后 以后 的 了 吗 呢 啊 吧"
).split()
"""Chinese words of a question that say nothing about the problem (longest first where one contains another)."""
SYNONYMS = [
    # Words readers use for the same symptom or concept: a query holding one also searches the others. Each group
    # is symmetric. English words match as word prefixes ("repeat" also triggers on "repeated"); Chinese words
    # anywhere in the query. Keep groups to one meaning each: a word that means two things makes noise.
    "stuck unchanged constant flat plateau stagnant 不变 不下降 不降 停在 卡在 停滞 徘徊 维持",
    "gibberish garbage garbled nonsense degenerate degeneration babble 乱码 胡言乱语 无意义 无序",
    "repeat repetition repetitive looping 重复 复读",
    "collapse collapsed collapsing 坍缩 坍塌 塌缩",
    "explode explodes exploding explosion spike spikes 爆炸 尖峰 飙升 暴涨",
    "oom 显存不足 爆显存 显存溢出",
    "hacking hack hacks exploit exploits 骇客 投机 钻空子 作弊",
    "fluctuate fluctuates fluctuating oscillate oscillating swing swings 震荡 振荡 波动 上下跳 抖动",
    "forgetting forgets forgot 遗忘",
    "reward rewards 奖励",
    "loss 损失",
    "entropy 熵",
    "temperature 温度",
    "lr 学习率",
    "truncation truncated truncate 截断",
    "template 模板",
    "gradient grad 梯度",
    "checkpoint 检查点",
]
"""Symptom words and their other spellings, one group per meaning (hooks/search.py adds them to a query)."""


def synonyms_js(groups: list[str] = SYNONYMS) -> str:
    """A JS expression that appends to the query ``e`` the other words of every group that one of its words
    is in (English words as word prefixes, Chinese words anywhere)."""
    table = json.dumps([g.split() for g in groups], ensure_ascii=False)
    return (
        "(e=(q=>{let a=[],l=q.toLowerCase();for(const g of " + table + ")"
        'if(g.some(w=>/^[a-z]+$/.test(w)?new RegExp("(^|[^a-z0-9])"+w).test(l):l.includes(w)))'
        'for(const w of g)if(!l.includes(w))a.push(w);return a.length?q+" "+a.join(" "):q})(e)),'
    )


_QUERY = r'search(e){if(e=e.replace(new RegExp("\\p{sc=Han}+","gu")'
_QUERY_FIXED = (
    # the reader's own query, and below which word each English stem came from: hbTerms() shows their words
    r"search(e){if(this.hbRaw=e.toLowerCase(),this.hbStem={},"
    # an English contraction becomes its words, which the stop word filter then drops: "don't" was split at the
    # apostrophe into "don" and "t", and the prefix searches "t*" and "s*" (of "model's") matched nearly every page
    r'e=e.replace(/\bcan[\x27\u2019]t\b/gi,"can not").replace(/\bwon[\x27\u2019]t\b/gi,"will not")'
    r'.replace(/n[\x27\u2019]t\b/gi," not").replace(/(\w)[\x27\u2019](s|m|re|ve|ll|d)\b/gi,"$1")'
    # "loss 为零" is "loss is 0": the pages write the digit
    r'.replace(/零/g," 0 ")'
    # a hyphen inside a word splits it, as the index's separator does: "fine-tune" -> "fine tune", "1e-4" -> "1e 4"
    r'.replace(/([A-Za-z0-9])-(?=[A-Za-z0-9])/g,"$1 ")'
    # an identifier keeps a whole form too: "num_generations" also searches "numgenerations", which only the
    # pages that name it carry (the index's `ids` field, see identifiers())
    r'.replace(/[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+/g,m=>m+" "+m.replace(/_/g,""))'
    # lunr's query lexer splits terms only on spaces, while the index splits metric keys and identifiers
    # (rewards/margins, grad_norm) on '/', '_', '=' and Chinese punctuation: split the query the same way.
    # lunr's own operators go too: a pasted "--flag" or "- item" made its lexer throw ("expecting term or
    # field, found 'PRESENCE'") and the box listed nothing; "-0.28" excluded the pages quoting 0.28; "~" and
    # "^" asked for fuzzy matches and boosts, and a backslash escaped the next character
    r'.replace(/[\/_=:;+()\[\]{}<>`,!?"\'，。？！、：；（）【】《》“”‘’…~^\\-]+/g," ")'
    # a Chinese run and an identifier or number written against it are separate words: "GRPO训练reward的std"
    r'.replace(/(\p{sc=Han})(?=[^\p{sc=Han}\s])|([^\p{sc=Han}\s])(?=\p{sc=Han})/gu,"$1$2 ")'
    # CamelCase splits exactly where the index's separator does, before an upper case letter followed by a lower
    # case one: "PPOTrainer" -> "PPO Trainer", while "LoRA", "CausalLM" and a size ("7B", "0.5B") stay whole
    r'.replace(/([A-Za-z0-9])(?=[A-Z][a-z])/g,"$1 "),'
    # words that say nothing about the problem ("why", "the"; 请问, 为什么) would still match as prefixes
    r"(e=e.split(/\s+/).filter(w=>!/^[A-Za-z]+$/.test(w)"
    r'||lunr.stopWordFilter(new lunr.Token(w.toLowerCase()))).join(" ")),'
    r"(e=e.replace(/" + "|".join(ZH_STOP) + r'/g," ")),'
    # the reader's own words, before synonyms are added: hbCover() ranks by the share of them a page matches
    r"(this.hbWords=e.match(/[A-Za-z0-9][A-Za-z0-9.]*/g)||[]),"
    + synonyms_js()
    # a number from a log ("10.3750", "0.6931") also searches its values rounded to 1 and 2 decimals ("10.4",
    # "10.38"): pages quote values at the precision that matters to them
    + r"(e=e.replace(/(?<![\d.])(\d+\.\d{2,})(?![\d.])/g,"
    r'(m,x)=>[x,...new Set([1,2].map(p=>String(+(+x).toFixed(p))))].join(" "))),'
    # where the index stems English words, stem the query's words too: Material turns terms into prefix queries,
    # which skip lunr's pipeline, so "margins*" would never meet the indexed stem "margin"
    r"this.index.pipeline._stack.indexOf(lunr.stemmer)>=0&&"
    r"(e=e.replace(/[A-Za-z]+/g,w=>{let s=lunr.stemmer(new lunr.Token(w.toLowerCase())).toString();"
    r"this.hbStem[s]=this.hbStem[s]||w.toLowerCase();return s})),"
    r'e=e.replace(new RegExp("\\p{sc=Han}+","gu")'
)

_TERMS = re.compile(r"e=(\w+)\(e\),!e\)")
_TERMS_FIXED = (
    # Material makes every term a prefix ("1*"), and lunr adds up the score of every word a prefix expands to:
    # "1*" scored 1, 10, 11.9, 1024 ... and ranked the page that prints most numbers first; "对*" scored 对话,
    # 对比, 对不上. A whole number and a single Chinese character match only themselves; a decimal ("0.69*")
    # still finds "0.6931", and a word still finds its longer forms. The segmented Chinese words came with a star
    # already and got a second one ("训练**"): Material's check of which words a page matches then never matched
    # them, so its coverage bonus ignored every Chinese word but the last, and "missing" listed words the page had.
    # A single Latin letter ("first K steps", "R1-V", "7 x 1") is matched as itself too: "k*" matched every word
    # that starts with k (435 queries: top 1 en 169 -> 170, top 3 202 -> 203, nothing lost).
    r'e={name}(e).replace(/\*{{2,}}/g,"*").replace(/(^|\s)([+-]?\d+|\p{{sc=Han}}|[a-z])\*+(?=\s|$)/gu,"$1$2"),!e)'
)

_SCORE = re.compile(r"matchData:(\w)\}\)=>(.{0,600}?)\{score:(\w)\*\(1\+(\w)\((\w),2\)\),terms:(\w)\}", re.S)
_SCORE_FIXED = "matchData:{u}}})=>{body}{{score:{a}*(1+{k}({g},2))*hbCover(this,{u}.metadata),terms:hbTerms(this,{f})}}"
_COVER = (
    # Material ranks by lunr's score times a small bonus for the share of query terms a page matches, so a page
    # matching one rare word of a pasted sentence in its title outranked the page matching every other word.
    # The score is multiplied by the share of the reader's own Latin-script words (before synonyms are added)
    # that the page matches. Chinese runs are left out: they are cut into overlapping words, and counting their
    # characters instead made the first result right less often (77 against 81 of 107 Chinese queries).
    # The share is smoothed, (matched + 1) / (words + 1): a Chinese query's Latin words ("Qwen3.5", "LoRA") gave
    # every page that matched its Chinese words but not them a score of 0. Measured over all 435 queries of
    # tests/search_queries.yaml and tests/search_blind_2026-12-06.yaml, first result right en 162 -> 164, zh 161 ->
    # 163, top 3 en 201 -> 202, zh 182 -> 186 (+0.5 and +2 instead of +1: no better).
    # The reader's words are stemmed once per query (hbCx), not once per matching page.
    "function hbCover(t,m){let w=t.hbWords;if(!w||!w.length)return 1;"
    "if(t.hbCw!==w){let st=t.index.pipeline._stack.indexOf(lunr.stemmer)>=0;t.hbCw=w;"
    "t.hbCx=w.map(x=>{x=x.toLowerCase();if(st&&/^[a-z]+$/.test(x))x=lunr.stemmer(new lunr.Token(x)).toString();"
    "return[x,/^[+-]?\\d+$/.test(x)]})}"
    "let k=Object.keys(m),n=0;for(const[x,d]of t.hbCx)if(k.some(y=>d?y===x:y.startsWith(x)))n++;"
    "return(n+1)/(w.length+1)}\n"
    # A result lists the query's words the page lacks ("Missing: ..."). Show only the words the reader wrote, as
    # they wrote them: not the synonyms, rounded numbers and joined identifiers the query gained, nor stems ("mani").
    # Whether the reader wrote a word depends on the word and the query only: kept per query (hbTc), not per page.
    'function hbTerms(t,f){let r=t.hbRaw||"",o={};if(t.hbTr!==r){t.hbTr=r;t.hbTc=new Map}'
    "for(const[k,v]of Object.entries(f)){let w=t.hbStem&&t.hbStem[k]||k,h=t.hbTc.get(w);"
    'if(h===undefined){let x=w.toLowerCase();h=/\\p{sc=Han}/u.test(x)?r.includes(x):new RegExp("(^|[^a-z0-9.])"+'
    'x.replace(/[.*+?^${}()|[\\]\\\\]/g,"\\\\$&")+"(?![a-z0-9]|\\\\.\\\\d)").test(r);t.hbTc.set(w,h)}'
    "if(h)o[w]=v}return o}\n"
)

_LENGTH = 'this.metadataWhitelist=["position"],this.b(0),'
_LENGTH_FIXED = 'this.metadataWhitelist=["position"],this.b(.75),'
"""Material turns off BM25's length normalisation (b=0): a page with many symptom lines then matched more words
of a query at no cost and came first for queries about other pages. lunr's default, 0.75, puts it back (the
first result right for 117 against 112 of 134 English and 88 against 83 of 107 Chinese queries of the tuning
and held-out sets; 0.3, 0.5 and 0.9 did no better)."""

CODE_BLOCK = re.compile(r"<pre>.*?</pre>", re.S)
FIELDS = {
    "title": {"boost": 1000.0},
    "symptoms": {"boost": 1000.0},
    "ids": {"boost": 100.0},
    "tags": {"boost": 10.0},
    "text": {"boost": 1.0},
}
IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")


def identifiers(*texts: str) -> str:
    """The snake_case identifiers a page names, each joined into one word ("num_generations" ->
    "numgenerations"): the index splits words on "_", so only this form tells the page that names
    `num_generations` from every page that says "number" and "generations"."""
    seen = dict.fromkeys(m.group(0).replace("_", "").lower() for t in texts for m in IDENTIFIER.finditer(t))
    return " ".join(seen)


PIPELINES = {"en": ["trimmer", "stopWordFilter", "stemmer"], "zh": ["stopWordFilter"]}
PAGE_BOOST, SECTION_BOOST = 2.0, 1.0


def _symptoms(location: str, lang: str) -> str:
    """The front-matter symptoms of the page at ``location`` (a page URL relative to its language root)."""
    path = hp.DOCS / (location.rstrip("/") + (".zh.md" if lang == "zh" else ".md"))
    if not location or not path.exists():
        return ""
    return " ".join(str(s) for s in hp.load(path).meta.get("symptoms", []) or [])


def _segment(text: str) -> str:
    """Chinese runs cut into words with zero-width spaces, exactly as Material's search plugin does for titles
    and body text (jieba), so a symptom's words match the words of a Chinese query. Kept in .cache/ by the text:
    a build whose Chinese symptoms did not change never loads jieba's dictionary."""
    return _SEGMENTS.get(text, lambda: _jieba_segment(text))


def _jieba_segment(text: str) -> str:
    import jieba

    search_text.load_zh_terms(jieba)

    def cut(m: re.Match) -> str:
        return "\u200b" + "\u200b".join(jieba.cut(m.group(0))) + "\u200b"

    return re.sub(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+", cut, text).strip("\u200b")


_SEGMENTS = buildcache.Store(
    "zh-segments",
    buildcache.code_version(
        _jieba_segment, metadata.version("jieba"), search_text.ZH_TERMS.read_text(encoding="utf-8")
    ),
)


def split_index(site_dir: pathlib.Path) -> dict[str, int]:
    """Write one index per language; return their sizes in bytes."""
    root = site_dir / "search" / "search_index.json"
    data = json.loads(root.read_text(encoding="utf-8"))
    sizes = {}
    for lang, prefix, target in (("en", "", root), ("zh", "zh/", site_dir / "zh" / "search" / "search_index.json")):
        docs = []
        for doc in data["docs"]:
            loc = doc["location"]
            if (lang == "zh") != loc.startswith("zh/"):
                continue
            loc = loc.removeprefix(prefix)
            # code blocks are a third of the text and not what a reader types: the index keeps the prose
            entry = {**doc, "location": loc, "text": CODE_BLOCK.sub(" ", doc["text"])}
            if "#" not in loc:  # a page's own entry: its preview starts with the one-line answer, not the badges
                entry["text"] = search_text.search_preview_first(entry["text"], lang)
            if "#" in loc:
                entry["boost"] = SECTION_BOOST
            else:
                entry["symptoms"] = _symptoms(loc, lang)
                # a pitfall page (it has symptoms) outranks a chapter index or a start page listing its title
                entry["boost"] = PAGE_BOOST if entry["symptoms"] else SECTION_BOOST
                entry["ids"] = identifiers(doc.get("title", ""), entry["symptoms"], entry["text"])
                if lang == "zh":
                    entry["symptoms"] = _segment(entry["symptoms"])
                    if entry.get("tags"):
                        entry["tags"] = [_segment(t) for t in entry["tags"]]
            docs.append(entry)
        config = {**data["config"], "lang": [lang], "pipeline": PIPELINES[lang], "fields": FIELDS}
        target.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"config": config, "docs": docs}, ensure_ascii=False, separators=(",", ":"))
        target.write_text(text, encoding="utf-8")
        sizes[lang] = len(text.encode("utf-8"))
    # Chinese pages search the Chinese index: their theme config's base becomes the Chinese site root
    # (a page already pointed there is left alone: `mkdocs serve --dirty` keeps the pages it did not rebuild)
    for html in (site_dir / "zh").rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        new = re.sub(r'("base": ")([^"]*)(")', _base_to_zh, text, count=1)
        if new != text:
            html.write_text(new, encoding="utf-8")
    return sizes


def _base_to_zh(m: re.Match) -> str:
    base = m.group(2)
    return m.group(0) if base.endswith("zh/") else m.group(1) + base.rstrip("/") + "/zh/" + m.group(3)


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language and written the joint index
def on_post_build(config, **kwargs):
    i18n = config.plugins.get("i18n")
    if i18n is not None and getattr(i18n, "building", False):
        return  # the nested build of one language: wait for the outer build's end
    site_dir = pathlib.Path(config["site_dir"])
    index = site_dir / "search" / "search_index.json"
    if index.exists() and '"location":"zh/' in index.read_text(encoding="utf-8").replace('": "', '":"'):
        split_index(site_dir)
    fix_segmentation(config)


# A Chinese query typed on an English page searched the English index, matched only its Latin words and listed its
# Chinese words as "Missing". A query holding a Han character on a page whose index is not Chinese searches the
# Chinese index instead (zh/search/search_index.json, fetched by the worker on the first such query) and its results
# link to the Chinese pages. Where the worker cannot fetch (node, in tests/search_eval.js) the English index answers.
_MESSAGES = re.compile(
    r"case 0:return yield (\w+)\((\w)\.data\.config\),(\w+)=new (\w+)\(\2\.data\),\{type:1\};"
    r"case 2:let (\w)=\2\.data;try\{return\{type:3,data:\3\.search\(\5\)\}\}"
)
_MESSAGES_FIXED = (
    "case 0:return yield {load}({t}.data.config),{index}=new {search}({t}.data),hbSetup={t}.data,{{type:1}};"
    "case 2:let {q}={t}.data;try{{if(hbWantsZh({q})){{if(hbZh===void 0){{hbZh=null;let d=hbFetchZh();"
    "if(d){{yield {load}(d.config);hbZh=new {search}({{config:d.config,docs:d.docs,options:hbSetup.options}})}}}}"
    'if(hbZh){{let r=hbZh.search({q});for(const g of r.items)for(const x of g)x.location="zh/"+x.location;'
    "return{{type:3,data:r}}}}}}return{{type:3,data:{index}.search({q})}}}}"
)
_TO_ZH = (
    "var hbSetup=null,hbZh;\n"
    'function hbWantsZh(q){return!!hbSetup&&hbSetup.config.lang.indexOf("zh")<0&&/\\p{sc=Han}/u.test(q)}\n'
    'function hbFetchZh(){if(typeof XMLHttpRequest>"u"||!self.location)return null;try{let x=new XMLHttpRequest;'
    'x.open("GET",new URL("../../../zh/search/search_index.json",self.location.href).href,!1);x.send();'
    "return x.status===200?JSON.parse(x.responseText):null}catch(r){return null}}\n"
)

# lunr builds the set of indexed words as a minimised trie and merges two nodes when their keys match; the key
# is the node's edge labels each followed by the child's id, with nothing between, so a digit label can run into
# an id ("1" then node 23 reads as "123", as "12" then node 3 would). Two different nodes then merge and a prefix
# search expands to words the index lacks: with the Chinese index of 117 added symptom lines, every query holding
# "trl" (a pasted traceback, a library name) threw "Cannot read properties of undefined (reading '_index')" in
# Index.query and the box listed nothing. A comma after each id keeps the keys apart.
_TOKENSET = "var s=r[i],o=this.edges[s];e=e+s+o.id}return e}"
_TOKENSET_FIXED = 'var s=r[i],o=this.edges[s];e=e+s+o.id+","}return e}'


def fix_segmentation(config):
    workers = list((pathlib.Path(config["site_dir"]) / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    if not workers:
        raise PluginError("hooks/zh_search.py: Material's search worker not found; cannot fix Chinese search")
    for worker in workers:
        text = worker.read_text(encoding="utf-8")
        if _MARK in text:
            continue  # already patched (mkdocs serve rebuilds)
        if _QUERY not in text:
            raise PluginError(
                f"hooks/search.py: query parsing not found in {worker.name} (did mkdocs-material change?)"
            )
        text = text.replace(_QUERY, _QUERY_FIXED, 1)
        if _LENGTH not in text:
            raise PluginError(
                f"hooks/search.py: index options not found in {worker.name} (did mkdocs-material change?)"
            )
        text = text.replace(_LENGTH, _LENGTH_FIXED, 1)
        if text.count(_TOKENSET) != 1:
            raise PluginError(
                f"hooks/search.py: lunr's TokenSet key not found in {worker.name} (did mkdocs-material change?)"
            )
        text = text.replace(_TOKENSET, _TOKENSET_FIXED, 1)
        terms = _TERMS.search(text)
        if not terms:
            raise PluginError(f"hooks/search.py: query terms not found in {worker.name} (did mkdocs-material change?)")
        text = text[: terms.start()] + _TERMS_FIXED.format(name=terms.group(1)) + text[terms.end() :]
        score = _SCORE.search(text)
        if not score:
            raise PluginError(
                f"hooks/search.py: result scoring not found in {worker.name} (did mkdocs-material change?)"
            )
        u, body, a, k, g, f = score.groups()
        text = text[: score.start()] + _SCORE_FIXED.format(u=u, body=body, a=a, k=k, g=g, f=f) + text[score.end() :]
        messages = _MESSAGES.search(text)
        if not messages:
            raise PluginError(
                f"hooks/search.py: worker messages not found in {worker.name} (did mkdocs-material change?)"
            )
        load, t, index, search, q = messages.groups()
        fixed = _MESSAGES_FIXED.format(load=load, t=t, index=index, search=search, q=q)
        text = text[: messages.start()] + fixed + text[messages.end() :]
        strict = '"use strict";'
        head = _COVER + _TO_ZH
        text = (strict + head + text.removeprefix(strict)) if text.startswith(strict) else head + text
        m = _SEGMENT.search(text)
        if not m:
            raise PluginError(
                f"hooks/zh_search.py: Chinese query segmentation not found in {worker.name} "
                "(did mkdocs-material change?)"
            )
        worker.write_text(
            text[: m.start()] + _SEGMENT_FIXED.format(name=m.group(1)) + text[m.end() :], encoding="utf-8"
        )
