"""The HTML of a walkthrough notebook page made light (hooks/notebooks.py is the MkDocs adapter): JupyterLab's
stylesheets moved into one shared file and pruned to what the pages use, and the plots moved out of the page."""

from __future__ import annotations

import html
import re

NOTEBOOK_STYLE = re.compile(r'<style type="text/css">\s*(?:@charset "UTF-8";)?\.jupyter-wrapper\{.*?</style>', re.S)


def share_notebook_css(output: str, href: str) -> tuple[str, str]:
    """mkdocs-jupyter inlines JupyterLab's stylesheets (about 580 KB) into every notebook page: move them into
    one file at ``href`` that the browser caches once. Returns the page without them (one ``<link>`` where the
    first stood) and the CSS to write; a page without them comes back unchanged with ``""``."""
    blocks = [m.group(0) for m in NOTEBOOK_STYLE.finditer(output)]
    if not blocks:
        return output, ""
    css = "\n".join(re.sub(r"^<style[^>]*>|</style>$", "", b) for b in blocks)
    out = output.replace(blocks[0], f'<link rel="stylesheet" href="{html.escape(href, quote=True)}">', 1)
    for b in blocks[1:]:
        out = out.replace(b, "", 1)
    return out, css


_DATA_IMAGE = re.compile(r'<img\b([^>]*?)\ssrc="data:image/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/=\s]+)"')


def move_images_out(output: str) -> tuple[str, dict[str, bytes]]:
    """A notebook's plots are inlined as base64 (20-25 KB each, and a page holds up to three): each becomes a
    file beside the page, named by its content, that the browser loads lazily (when it nears the screen) and
    caches. Returns the page and {file name: bytes}."""
    import base64
    import hashlib

    files: dict[str, bytes] = {}

    def move(m: re.Match) -> str:
        data = base64.b64decode(re.sub(r"\s+", "", m.group(3)))
        name = f"plot-{hashlib.sha256(data).hexdigest()[:12]}.{'jpg' if m.group(2) == 'jpeg' else m.group(2)}"
        files[name] = data
        lazy = "" if "loading=" in m.group(1) else ' loading="lazy"'
        return f'<img{m.group(1)}{lazy} src="{name}"'

    return _DATA_IMAGE.sub(move, output), files


_RENDERED_IMAGE = re.compile(r'<div class="jp-RenderedImage[^"]*"[^>]*>\s*<img\b(?:[^>"]|"[^"]*")*>')


def add_zoom_hints(output: str, hint: str) -> str:
    """Each notebook plot gets a line under it saying that a tap enlarges it (docs/javascripts/zoom.js; the
    stylesheet shows it on phones, where a plot's text is a few pixels high). ``hint`` is text, escaped here."""
    span = f'<span class="hb-zoom-hint" aria-hidden="true">{html.escape(hint)}</span>'
    return _RENDERED_IMAGE.sub(lambda m: m.group(0) + span, output)


_CLASS_ATTR = re.compile(r'\bclass="([^"]*)"')
_SELECTOR_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_VAR_USE = re.compile(r"var\(\s*(--[\w-]+)")


def used_classes(*pages: str) -> set[str]:
    """Every class name in the ``class`` attributes of the given HTML pages."""
    return {c for page in pages for m in _CLASS_ATTR.finditer(page) for c in m.group(1).split()}


def _selectors(prelude: str) -> list[str]:
    """A rule's selector list split at its top-level commas."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(prelude):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(prelude[start:k].strip())
            start = k + 1
    return out + [prelude[start:].strip()]


def _css_tree(rules, classes: set[str]) -> list:
    """The rules whose selectors use only ``classes``, as ("rule", selectors, [[name, value]]),
    ("block", "@media …", [items]) or ("raw", at-rule text, None)."""
    import tinycss2

    out = []
    for rule in rules:
        if rule.type == "qualified-rule":
            keep = [
                sel
                for sel in _selectors(tinycss2.serialize(rule.prelude))
                # a class inside :not() need not be used: ".jp-Cell:not(.jp-mod-active)" matches every cell
                if all(c in classes for c in _SELECTOR_CLASS.findall(re.sub(r":not\([^()]*\)", "", sel)))
            ]
            if keep:
                decls = tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True)
                body = [
                    [d.name, tinycss2.serialize(d.value).strip() + (" !important" if d.important else "")]
                    for d in decls
                    if d.type == "declaration"
                ]
                out.append(("rule", ", ".join(keep), body))
        elif rule.type == "at-rule" and rule.lower_at_keyword in ("media", "supports") and rule.content:
            inner = tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
            out.append(("block", f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}", _css_tree(inner, classes)))
        elif rule.type == "at-rule":
            out.append(("raw", tinycss2.serialize([rule]), None))
    return out


def _css_declarations(tree):
    for kind, _, body in tree:
        if kind == "block":
            yield from _css_declarations(body)
        elif kind == "rule":
            yield body


def _css_text(tree) -> str:
    out = []
    for kind, head, body in tree:
        if kind == "raw":
            out.append(head)
            continue
        text = _css_text(body) if kind == "block" else ";".join(f"{n}:{v}" for n, v in body)
        if text:
            out.append(head + "{" + text + "}")
    return "\n".join(out)


def prune_css(css: str, classes: set[str], read_elsewhere: str = "") -> str:
    """``css`` without the selectors that name a class no page uses (JupyterLab's stylesheets style a whole IDE;
    a rendered notebook uses a few dozen of their classes), then without the custom properties nothing reads
    (80 KB of icons as --jp-icon-* data URLs). A rule keeps the selectors whose classes all occur in ``classes``
    and goes when none is left; @media and @supports blocks are pruned the same way; other at-rules stay. A
    property that ``read_elsewhere`` (the pages' own styles) reads with var() stays."""
    import tinycss2

    tree = _css_tree(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True), classes)
    outside = set(_VAR_USE.findall(read_elsewhere))
    while True:  # drop custom properties nothing reads, until the ones left only read each other
        used = outside | {v for body in _css_declarations(tree) for _, val in body for v in _VAR_USE.findall(val)}
        unused = {n for body in _css_declarations(tree) for n, _ in body if n.startswith("--") and n not in used}
        if not unused:
            return _css_text(tree)
        for body in _css_declarations(tree):
            body[:] = [d for d in body if d[0] not in unused]
