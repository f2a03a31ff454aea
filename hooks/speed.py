"""MkDocs hook: a build recomputes only what changed (the caches are plain functions in handbook/site/buildcache.py).

- Material's search plugin parses every page's HTML and cuts its Chinese text into words (jieba): a quarter of the
  build. A page's search entries are kept in ``.cache/search-entries`` by everything the plugin reads: the page's
  HTML, URL, table of contents and the front-matter fields it uses, with the plugin's and jieba's versions.
- mkdocs-jupyter keeps converted notebooks in ``.cache/mkdocs-jupyter`` and, after each build, deletes those that
  build did not use. mkdocs-static-i18n builds each language on its own, so each language deleted the other's and
  every build converted every notebook again: here its deleting waits until the last language is built.
- The theme's templates are compiled once per process, not once per build and language.
- ``mkdocs serve --dirty`` (``make serve``) renders only the pages whose file changed. Under static-i18n and these
  hooks that left the rebuilt page's navigation untitled, its tags unlinked and the search index piling up
  entries: the pages it does not render keep the title they had, their tags are collected, and the index is
  completed from the last build (``buildcache.LastBuild``). tests/test_build_speed.py checks all of it.
"""

from __future__ import annotations

import pathlib

from material.plugins.search import plugin as material_search
from mkdocs.plugins import event_priority

from handbook.site import buildcache, search_text

SEARCH_ENTRIES = buildcache.Store(
    "search-entries",
    # the plugin's own code (any upgrade or patch of it) and jieba's version (its dictionary) make the entries
    buildcache.code_version(
        material_search,
        str(getattr(material_search.jieba, "__version__", None)),
        search_text.ZH_TERMS.read_text(encoding="utf-8"),  # the handbook's terms, added to jieba's dictionary
    ),
)
_dirty = False


def on_startup(command, dirty, **kwargs):
    global _dirty
    _dirty = dirty  # a --dirty build looks up only the changed pages: it must not prune what the others need


def _building_a_language(config) -> bool:
    i18n = config.plugins.get("i18n")
    return i18n is not None and getattr(i18n, "building", False)


LAST = buildcache.LastBuild()
_present: set[str] | None = None


def _language(config) -> str:
    i18n = config.plugins.get("i18n")
    return str(getattr(i18n, "current_language", None) or "")


@event_priority(-100)  # after Material's search plugin (on_config) and mkdocs-jupyter (on_pre_build) set up this build
def on_pre_build(config, **kwargs):
    for plugin in config.plugins.values():
        index = getattr(plugin, "search_index", None)
        if index is not None and hasattr(index, "add_entry_from_context") and hasattr(index, "entries"):
            # Material's own --dirty support keeps the last index and adds the changed page to it; under
            # static-i18n that piled up both languages' entries build after build: LAST completes the index instead
            plugin.is_dirty, plugin.search_index_prev = False, None
            _cache_entries(index, _language(config))
        if hasattr(plugin, "_used_cache_paths") and not isinstance(plugin._used_cache_paths, _KeptUntilLastLanguage):
            plugin._used_cache_paths = _KeptUntilLastLanguage()


def _cache_entries(index, lang: str) -> None:
    """The index's entries for a page come from SEARCH_ENTRIES; a dirty build's index is completed from LAST."""
    add, generate, indexed = index.add_entry_from_context, index.generate_search_index, {}

    def add_cached(page):
        def compute():
            if material_search.jieba is not None:  # the page is cut into words: with the handbook's terms
                search_text.load_zh_terms(material_search.jieba)
            n = len(index.entries)
            add(page)
            new = index.entries[n:]
            del index.entries[n:]
            return new

        entries = SEARCH_ENTRIES.get(buildcache.search_inputs(page, index.config), compute)
        indexed[page.file.dest_uri] = entries
        index.entries.extend(entries)

    def generate_completed(prev):
        if not getattr(index, "_hb_completed", False):  # a second call is static-i18n's joint index of all languages
            index._hb_completed = True
            index.entries[:] = LAST.search_entries(lang, indexed, _present, _dirty)
        return generate(None)

    index.add_entry_from_context, index.generate_search_index = add_cached, generate_completed


@event_priority(-300)  # after mkdocs-static-i18n (-100) and hooks/notebooks.py (-200) set each page's output path
def on_files(files, config, **kwargs):
    global _present
    _present = {f.dest_uri for f in files.documentation_pages()}
    return files


@event_priority(200)  # before Material's tags plugin (100) lists the pages of each tag
def on_env(env, config, files, **kwargs):
    """The theme's templates are compiled once per process. A dirty build did not read the pages that did not
    change: each is read (its front matter, for the navigation) and its tags are collected, but it is not rendered
    (its content stays empty: the build does not write it); it keeps the title it had when it was last built."""
    env.bytecode_cache = buildcache.template_bytecode(env)
    tags = config.plugins.get("material/tags")
    for file in files.documentation_pages():
        page = file.page
        if page is None or page.markdown is not None:
            continue
        page.read_source(config)
        if tags is not None:
            page.markdown = tags.on_page_markdown(page.markdown, page=page, config=config, files=files) or page.markdown
        page.content = ""
        if file.dest_uri in LAST.titles:
            page.title = LAST.titles[file.dest_uri]
    return env


def on_page_context(context, page, config, nav, **kwargs):
    LAST.titles[page.file.dest_uri] = page.title
    return context


class _KeptUntilLastLanguage(set):
    """mkdocs-jupyter's record of the cache files this build used, which holds every file until the last
    language is built; then on_post_build deletes the files no language used."""

    used: set = set()

    def add(self, item):
        type(self).used.add(pathlib.Path(item).resolve())

    def __contains__(self, item):
        return True


@event_priority(-300)  # after every language is built (mkdocs-static-i18n: -100) and after the other hooks
def on_post_build(config, **kwargs):
    if _building_a_language(config):
        return
    if not _dirty:
        buildcache.prune_all()
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None and jupyter.config.get("cache") and _KeptUntilLastLanguage.used and not _dirty:
        folder = pathlib.Path(jupyter.config["cache_dir"])
        for path in folder.glob("*.json") if folder.is_dir() else ():
            if path.resolve() not in _KeptUntilLastLanguage.used:
                path.unlink(missing_ok=True)
    _KeptUntilLastLanguage.used = set()
