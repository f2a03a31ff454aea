"""MkDocs hook: the navigation, built from ``handbook.content.pages.CHAPTERS`` and each page's ``order`` / ``title``.

Adding a page never means editing mkdocs.yml, and the chapters' Chinese titles live only in CHAPTERS: this
hook hands them to mkdocs-static-i18n as its ``nav_translations`` (its own ``on_config`` runs after ours).

The sidebar shows a page's short ``nav_title`` where it has one (its title stays the full sentence):
``overrides/partials/nav-item.html`` renders it through the ``hb_nav_label`` filter given to Jinja here
(``handbook.site.render.nav_label``: `code` marked up, everything else escaped).
"""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from handbook import ui
from handbook.content import pages as hp
from handbook.site import render


def _sort_key(path):
    meta = hp.load(path).meta if path.suffix == ".md" else {}
    return (0 if path.stem == "index" else 1, meta.get("order", 100), str(meta.get("title", path.stem)).lower())


def build_nav() -> list:
    nav: list = [{ui.HOME[0]: "index.md"}]
    for chapter, (title, _zh) in ui.CHAPTERS.items():
        folder = hp.DOCS / chapter
        if not folder.is_dir():
            continue
        entries = [
            p
            for p in folder.iterdir()
            if (p.suffix == ".md" and not p.name.endswith(".zh.md"))
            or (p.suffix == ".ipynb" and not p.name.endswith(".zh.ipynb"))
        ]
        entries.sort(key=_sort_key)
        if entries:
            nav.append({title: [p.relative_to(hp.DOCS).as_posix() for p in entries]})
    return nav


def on_config(config, **kwargs):
    config["nav"] = build_nav()
    i18n = config.plugins.get("i18n")
    if i18n is None:
        raise PluginError("hooks/nav.py: the i18n plugin is not configured")
    translations = {ui.HOME[0]: ui.HOME[1], **{en: zh for en, zh in ui.CHAPTERS.values()}}
    for language in i18n.config.languages:
        if language.locale == "zh":
            language.nav_translations = {**translations, **(language.nav_translations or {})}
    return config


def on_env(env, config, files, **kwargs):
    env.filters["hb_nav_label"] = render.nav_label
    return env
