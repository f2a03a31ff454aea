"""The build's caches on their own (handbook/site/buildcache.py, hooks/speed.py): a result is computed once per input,
a changed input or code is computed again, and what comes back is what was computed. The whole site built with a
cold and a warm cache, and `make serve`'s one-page rebuild: tests/test_build_speed.py."""

from __future__ import annotations

import importlib
import json
import sys
from types import SimpleNamespace

import jinja2
import pytest

from handbook.content import pages
from handbook.site import buildcache

sys.path.insert(0, str(pages.ROOT / "hooks"))


class Counter:
    def __init__(self, value):
        self.value, self.calls = value, 0

    def __call__(self):
        self.calls += 1
        return self.value


def test_a_result_is_computed_once_and_read_back_by_a_later_build(tmp_path):
    value = {"title": "训练", "text": "loss", "boost": 2.0, "tags": ["a", "b"], "n": 3}
    compute = Counter(value)
    first = buildcache.Store("t", "v1", folder=tmp_path)
    assert first.get(["page", 1], compute) == value
    assert first.get(["page", 1], compute) == value and compute.calls == 1
    later = buildcache.Store("t", "v1", folder=tmp_path)  # another process: only the folder is shared
    assert later.get(["page", 1], compute) == value and compute.calls == 1 and later.hits == 1


def test_a_changed_input_or_code_version_is_computed_again(tmp_path):
    compute = Counter([1])
    buildcache.Store("t", "v1", folder=tmp_path).get("<p>a</p>", compute)
    buildcache.Store("t", "v1", folder=tmp_path).get("<p>b</p>", compute)
    assert compute.calls == 2
    buildcache.Store("t", "v2", folder=tmp_path).get("<p>a</p>", compute)
    assert compute.calls == 3
    v1 = buildcache.code_version(test_a_result_is_computed_once_and_read_back_by_a_later_build, "1.0")
    assert v1 != buildcache.code_version(test_a_changed_input_or_code_version_is_computed_again, "1.0")
    assert v1 != buildcache.code_version(test_a_result_is_computed_once_and_read_back_by_a_later_build, "1.1")


def test_a_damaged_file_counts_as_missing(tmp_path):
    compute = Counter({"ok": True})
    store = buildcache.Store("t", "v", folder=tmp_path)
    store.get("x", compute)
    (path,) = (tmp_path / "t").glob("*.json")
    path.write_text('{"ok": tr', encoding="utf-8")  # a build killed while another one wrote
    assert buildcache.Store("t", "v", folder=tmp_path).get("x", compute) == {"ok": True} and compute.calls == 2


def test_a_caller_changing_its_result_does_not_change_the_cache(tmp_path):
    store = buildcache.Store("t", "v", folder=tmp_path)
    store.get("x", lambda: [{"a": 1}])[0]["a"] = 2
    assert store.get("x", lambda: None) == [{"a": 1}]


def test_prune_keeps_only_what_the_last_complete_build_used(tmp_path):
    store = buildcache.Store("t", "v", folder=tmp_path)
    store.get("old", lambda: 1)
    store.prune()
    store.get("new", lambda: 2)
    assert store.prune() == 1
    assert [json.loads(p.read_text()) for p in (tmp_path / "t").glob("*.json")] == [2]


def test_front_matter_is_parsed_once_and_handed_out_as_a_copy():
    text = "---\ntitle: T\ntags: [a, b]\n---\n# T\n"
    meta, body = pages.split_front_matter(text)
    meta["tags"].append("c")
    again, _ = pages.split_front_matter(text)
    assert again == {"title": "T", "tags": ["a", "b"]} and body == "# T\n"
    assert pages._yaml.cache_info().hits >= 1


def _page(content="<h1 id='t'>T</h1><p>x</p>", meta=None, toc=()):
    item = SimpleNamespace(id="t", url="#t", title="T", children=list(toc))
    return SimpleNamespace(content=content, url="sft/x/", title="T", toc=[item], meta=meta or {"tags": ["sft"]})


def test_search_inputs_change_with_everything_the_search_plugin_reads():
    base = buildcache.digest(buildcache.search_inputs(_page(), {}))
    child = SimpleNamespace(id="c", url="#c", title="C", children=[])
    for changed in (_page(content="<p>y</p>"), _page(meta={"tags": ["dpo"]}), _page(toc=[child])):
        assert buildcache.digest(buildcache.search_inputs(changed, {})) != base
    assert buildcache.digest(buildcache.search_inputs(_page(), {"jieba_dict": "d.txt"})) != base
    assert buildcache.digest(buildcache.search_inputs(_page(meta={"tags": ["sft"], "x": 1}), {})) == base


def test_a_dirty_build_completes_the_search_index_from_the_last_build():
    last = buildcache.LastBuild()
    full = {"a/": [{"location": "a/"}], "b/": [{"location": "b/"}], "c/": [{"location": "c/"}]}
    assert last.search_entries("en", full, None, dirty=False) == [e for v in full.values() for e in v]
    # b changed, c was deleted, d is new: the others keep their entries and their place
    now = {"b/": [{"location": "b/", "text": "new"}], "d/": [{"location": "d/"}]}
    got = last.search_entries("en", now, {"a/", "b/", "d/"}, dirty=True)
    assert got == [{"location": "a/"}, {"location": "b/", "text": "new"}, {"location": "d/"}]
    assert last.search_entries("zh", {}, set(), dirty=True) == []  # each language on its own


def test_templates_are_compiled_once_and_again_when_their_source_changes():
    sources = {"t.html": "{{ x }} one"}
    compiled = []

    class Env(jinja2.Environment):
        def _compile(self, source, filename):
            compiled.append(filename)
            return super()._compile(source, filename)

    def render():
        env = Env(loader=jinja2.FunctionLoader(lambda name: (sources[name], name, lambda: True)))
        env.bytecode_cache = buildcache.template_bytecode(env)
        return env.get_template("t.html").render(x=1)

    assert render() == render() == "1 one" and len(compiled) == 1  # a new environment each build, as MkDocs makes
    sources["t.html"] = "{{ x }} two"
    assert render() == "1 two" and len(compiled) == 2
    other = jinja2.Environment(extensions=["jinja2.ext.loopcontrols"])
    assert buildcache.template_bytecode(other) is not buildcache.template_bytecode(jinja2.Environment())


def test_the_search_hook_reuses_a_pages_entries_across_builds(tmp_path, monkeypatch):
    speed = importlib.import_module("speed")
    monkeypatch.setattr(speed, "SEARCH_ENTRIES", buildcache.Store("s", "v", folder=tmp_path))
    parsed = []

    class Index:  # Material's SearchIndex, as far as the hook uses it
        config: dict = {}

        def __init__(self):
            self.entries = []

        def add_entry_from_context(self, page):
            parsed.append(page.url)
            self.entries.append({"location": page.url, "title": page.title, "text": page.content})

        def generate_search_index(self, prev):
            return json.dumps(self.entries)

    built = []
    for _ in range(2):  # two builds, each with its own index, as Material makes one per build
        index = Index()
        speed._cache_entries(index, "en")
        page = _page()
        page.file = SimpleNamespace(dest_uri="sft/x/index.html")
        index.add_entry_from_context(page)
        built.append(index.generate_search_index(None))
    assert parsed == ["sft/x/"] and built[0] == built[1] and json.loads(built[0])[0]["location"] == "sft/x/"


@pytest.mark.parametrize("dirty", [False, True])
def test_unread_pages_of_a_dirty_build_keep_their_titles(dirty, monkeypatch):
    speed = importlib.import_module("speed")
    monkeypatch.setattr(speed, "LAST", buildcache.LastBuild())
    speed.LAST.titles["sft/x/index.html"] = "Remembered"

    class Page:
        markdown = None if dirty else "# read"
        title = None

        def read_source(self, config):
            self.markdown, self.meta = "# T", {"tags": ["sft"]}

    page = Page()
    file = SimpleNamespace(page=page, dest_uri="sft/x/index.html")
    tagged = []
    tags = SimpleNamespace(on_page_markdown=lambda md, page, **kw: tagged.append(page) or md)
    config = SimpleNamespace(plugins={"material/tags": tags})
    speed.on_env(jinja2.Environment(), config, SimpleNamespace(documentation_pages=lambda: [file]))
    assert (page.title, len(tagged)) == (("Remembered", 1) if dirty else (None, 0))


def test_a_cached_chart_is_drawn_again_when_its_words_change(tmp_path, monkeypatch):
    from handbook import ui
    from handbook.site import charts

    page = next(p for p in pages.pitfall_pages() if p.meta.get("chart"))
    monkeypatch.setattr(charts, "CACHE", tmp_path)
    first = charts.figure(page.meta, "en")
    assert charts.figure(page.meta, "en") == first and len(list(tmp_path.glob("*.svg"))) == 2
    monkeypatch.setitem(ui.CHART["en"], "step", "optimizer step")  # the x axis' label, drawn into the SVG
    again = charts.figure(page.meta, "en")
    assert "optimizer step" in again and "optimizer step" not in first
