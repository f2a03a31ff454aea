"""MkDocs hook: make Material's Chinese query segmentation find words.

Material's experimental Chinese query segmentation (search worker, ``segment()``) never looks at the last
character of a run of Han characters and gives up on the whole run as soon as one character starts no indexed
word, so most queries written only in Chinese find nothing. After the build we swap that function for one that
looks up every indexed word inside the run, skipping unknown characters. The browser test
(tests/test_site.py) searches in Chinese and fails if this stops applying.
"""

from __future__ import annotations

import pathlib
import re

from mkdocs.exceptions import PluginError

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


def on_post_build(config, **kwargs):
    workers = list((pathlib.Path(config["site_dir"]) / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    if not workers:
        raise PluginError("hooks/zh_search.py: Material's search worker not found; cannot fix Chinese search")
    for worker in workers:
        text = worker.read_text(encoding="utf-8")
        if _MARK in text:
            continue  # already patched (mkdocs serve rebuilds)
        m = _SEGMENT.search(text)
        if not m:
            raise PluginError(
                f"hooks/zh_search.py: Chinese query segmentation not found in {worker.name} "
                "(did mkdocs-material change?)"
            )
        worker.write_text(
            text[: m.start()] + _SEGMENT_FIXED.format(name=m.group(1)) + text[m.end() :], encoding="utf-8"
        )
