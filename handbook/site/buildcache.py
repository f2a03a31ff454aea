"""What the site build can keep between builds: results remembered by the exact content they were made from.

A ``Store`` keeps one kind of result under ``.cache/<name>/`` (gitignored), one JSON file per result, named by the
SHA-256 of everything the result depends on: the input itself (a page's HTML, a text), never a file's name or
date, plus the store's ``version`` (the versions of the code that computes it). A changed input is a new key, so a
cache can be missing or old but never wrong: at worst the result is computed again. Results are also kept in
memory, so ``mkdocs serve`` reuses them across rebuilds. A file that cannot be read or parsed counts as missing.

Used by the hooks (``hooks/speed.py``, ``hooks/search.py``); the run charts have their own cache
(``handbook/site/charts.py``) and the notebooks mkdocs-jupyter's.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import pathlib
import tempfile
from collections.abc import Callable
from typing import Any

import jinja2

from handbook.content import pages

CACHE = pages.ROOT / ".cache"


def digest(*parts: Any) -> str:
    """The SHA-256 of ``parts`` as canonical JSON (keys sorted; a value JSON cannot hold counts by its repr)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_version(*code: Any) -> str:
    """A store's version from the code that computes its results: the source of each function or module given
    (a change to it is a new version), or the text given (a package's version)."""
    return digest([c if isinstance(c, str) else inspect.getsource(c) for c in code])


class Store:
    """Results of one kind, by the digest of their inputs; ``hits`` and ``misses`` count this process's look-ups."""

    every: list[Store] = []

    def __init__(self, name: str, version: Any, folder: pathlib.Path | None = None):
        Store.every.append(self)
        self.folder = (folder or CACHE) / name
        self.version = version
        self.memory: dict[str, Any] = {}
        self.used: set[str] = set()
        self.hits = self.misses = 0

    def get(self, inputs: Any, compute: Callable[[], Any]) -> Any:
        """The result for ``inputs`` (anything JSON can hold), computed by ``compute()`` when not kept yet. The
        result must survive a JSON round trip unchanged (dicts, lists, text, numbers): what is computed and what
        is read back are then the same."""
        key = digest(self.version, inputs)
        self.used.add(key)
        if key in self.memory:
            self.hits += 1
            return json.loads(self.memory[key])
        path = self.folder / f"{key}.json"
        try:
            text = path.read_text(encoding="utf-8")
            value = json.loads(text)
            self.hits += 1
        except (OSError, ValueError):
            self.misses += 1
            value = compute()
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            self._write(path, text)
            value = json.loads(text)  # what a later build reads back, exactly
        self.memory[key] = text
        return value

    def _write(self, path: pathlib.Path, text: str) -> None:
        """Written whole or not at all (another build may read the folder at the same moment)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only checkout builds without the cache

    def prune(self) -> int:
        """Remove the kept results this process did not use since the last prune; how many. Call it only after a
        complete build (every page looked up), or results still wanted are removed (and then computed again)."""
        removed = 0
        for path in self.folder.glob("*.json") if self.folder.is_dir() else ():
            if path.stem not in self.used:
                path.unlink(missing_ok=True)
                removed += 1
        self.memory = {k: v for k, v in self.memory.items() if k in self.used}
        self.used = set()
        return removed


def prune_all() -> int:
    """``prune`` every store looked up since the last prune (after a complete build)."""
    return sum(store.prune() for store in Store.every if store.used)


def toc_outline(toc) -> list:
    """A table of contents (MkDocs ``AnchorLink`` items, nested) as ``[id, url, title, children]`` lists."""
    return [[item.id, item.url, item.title, toc_outline(item.children)] for item in toc or ()]


def search_inputs(page, search_config: dict) -> list:
    """Everything Material's search plugin reads to index ``page`` (``SearchIndex.add_entry_from_context``): the
    page's HTML, URL, title and table of contents, the front-matter fields it uses, and the jieba dictionaries."""
    meta = page.meta or {}
    return [
        page.content,
        page.url,
        page.title,
        toc_outline(page.toc),
        {k: meta.get(k) for k in ("title", "tags", "search")},
        {k: search_config.get(k) for k in ("jieba_dict", "jieba_dict_user")},
    ]


class LastBuild:
    """What a ``mkdocs serve --dirty`` rebuild takes from the build before it, for the pages it does not render.

    A dirty rebuild renders and writes only the pages whose file changed; the others keep their HTML from before,
    but the rebuilt pages' navigation needs their titles (a notebook's comes from rendering it) and the search
    index their entries (Material's would hold only the changed pages). Pages are named by their output path
    (``dest_uri``), which differs between languages. A page that changes is rendered again, so what is remembered
    of the others is what a complete build would compute for them."""

    def __init__(self) -> None:
        self.titles: dict[str, Any] = {}
        self.entries: dict[str, dict[str, list]] = {}

    def search_entries(self, lang: str, indexed: dict[str, list], present: set[str] | None, dirty: bool) -> list:
        """The search entries of one language's whole site. ``indexed``: each page indexed by this build, in
        order, and its entries. A complete build indexed every page: its entries as they are. A dirty build:
        the last build's pages in their order, those indexed now with their new entries, pages no longer in
        ``present`` (the build's pages) left out, pages new to this process last."""
        if dirty:
            last = self.entries.get(lang, {})
            merged = {d: indexed.get(d, e) for d, e in last.items() if present is None or d in present}
            indexed = {**merged, **{d: e for d, e in indexed.items() if d not in merged}}
        self.entries[lang] = dict(indexed)
        return [entry for entries in indexed.values() for entry in entries]


class TemplateBytecode(jinja2.BytecodeCache):
    """The theme's templates compiled once per process, not once per build and language (a fifth of a
    ``mkdocs serve --dirty`` rebuild). Jinja checks each against the checksum of its source before using it."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if (data := self.compiled.get(bucket.key)) is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


_TEMPLATES: dict[str, TemplateBytecode] = {}


def template_bytecode(env: jinja2.Environment) -> TemplateBytecode:
    """The compiled templates of every environment set up as ``env`` is: what compiling depends on (syntax,
    extensions, whitespace and escaping options) names the cache, as the template's name and source name the
    bytecode within it."""
    settings = [
        sorted(env.extensions),
        [getattr(env, k) for k in ("block_start_string", "variable_start_string", "comment_start_string")],
        [getattr(env, k) for k in ("block_end_string", "variable_end_string", "comment_end_string")],
        [env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks],
        [env.newline_sequence, env.keep_trailing_newline, env.optimized, type(env).__qualname__],
        getattr(env.autoescape, "__qualname__", env.autoescape),
        jinja2.__version__,
    ]
    return _TEMPLATES.setdefault(digest(settings), TemplateBytecode())
