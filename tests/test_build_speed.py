"""Build speed without a wrong page: a warm cache builds the same site as a cold one, and `make serve` shows a saved
page within seconds, with the navigation, search and Chinese search of a complete build.

Both tests work on the session's copy of the site's sources (tests/conftest.py: ``source_tree``), whose first
build, the session's cold one (``cold_site``), every site test shares: run with tests/test_site.py in one pytest
process, as ``make test`` does, the site is built cold once, not twice. They never touch the checkout's cache or
docs. SOURCE_DATE_EPOCH fixes the only output that depends on the build's time: the sitemaps' dates.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import resource
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

pytestmark = pytest.mark.site

ROOT = pathlib.Path(__file__).resolve().parent.parent
EDIT_SHOWN_WITHIN_S = 10.0
"""A one-page edit in `make serve`: about 1 s of CPU (3 s on two cores shared with four other builds); a complete
rebuild, as `make serve` did before --dirty, took 30 s on an idle machine and 85-105 s on a loaded one."""
PROBE = """
import runpy, sys, json
sys.argv = ["mkdocs", "build", "--strict", "-q", "-d", sys.argv[1]]
try:
    runpy.run_module("mkdocs", run_name="__main__")
except SystemExit as e:
    if e.code:
        raise
jieba = sys.modules.get("jieba")
print(json.dumps({"heavy": sorted(m for m in ("matplotlib", "torch", "trl", "transformers") if m in sys.modules),
                  "jieba_dictionary": bool(jieba and jieba.dt.initialized)}))
"""


def _build(tree: pathlib.Path, out: pathlib.Path, env: dict) -> tuple[dict, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(out)], cwd=tree, env=env, capture_output=True, text=True, timeout=900
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return json.loads(proc.stdout.strip().splitlines()[-1]), cpu


def _files(site: pathlib.Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in site.rglob("*")
        if p.is_file()
    }


def test_a_warm_cache_builds_the_same_site_as_a_cold_one(source_tree, cold_site, build_env, tmp_path):
    cold_out, code, log, cold_cpu = cold_site
    assert code == 0, log[-3000:]
    assert (source_tree / ".cache").is_dir(), "the cold build left no cache to build from"
    warm, warm_cpu = _build(source_tree, tmp_path / "warm", build_env(source_tree))
    a, b = _files(cold_out), _files(tmp_path / "warm")
    assert a.keys() == b.keys(), sorted(a.keys() ^ b.keys())[:10]
    assert not [f for f in a if a[f] != b[f]], [f for f in a if a[f] != b[f]][:10]
    print(f"site build: cold cache {cold_cpu:.1f} s CPU, warm cache {warm_cpu:.1f} s CPU")
    # the warm build drew no chart and cut no Chinese text: it never loaded matplotlib or jieba's dictionary
    assert warm == {"heavy": [], "jieba_dictionary": False}, warm
    assert warm_cpu < 0.6 * cold_cpu, (cold_cpu, warm_cpu)


def _free_port() -> int:
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    except OSError as e:
        pytest.skip(f"cannot bind a local port for mkdocs serve: {e}")


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode("utf-8")
    except (urllib.error.URLError, OSError):
        return None


def _serve_command(tree: pathlib.Path, port: int) -> list[str]:
    """`make serve`'s own mkdocs command line (the Makefile's recipe), on another port."""
    recipe = re.search(r"^serve:.*\n(?:#.*\n)*\t(.+)$", (tree / "Makefile").read_text(), re.M)
    assert recipe, "no serve target in the Makefile"
    args = shlex.split(recipe.group(1))
    args = args[[i for i, a in enumerate(args) if a.endswith("mkdocs")][0] + 1 :]
    args[args.index("-a") + 1] = f"127.0.0.1:{port}"
    return [sys.executable, "-m", "mkdocs", *args]


def _edit(path: pathlib.Path, marker: str) -> None:
    """A word added to the first paragraph after the page's title."""
    lines = path.read_text(encoding="utf-8").split("\n")
    title = next(i for i, line in enumerate(lines) if line.startswith("# "))
    at = next(i for i in range(title + 1, len(lines)) if lines[i].strip() and not lines[i].startswith(("<", "!", "#")))
    lines[at] += " " + marker
    path.write_text("\n".join(lines), encoding="utf-8")


def _docs(html: str) -> int:
    return len(json.loads(html)["docs"])


@pytest.mark.timeout(900)
def test_make_serve_shows_a_saved_page_within_seconds(source_tree, build_env, tmp_path):
    tree = source_tree
    port = _free_port()
    base = f"http://127.0.0.1:{port}/rlhf-pitfalls-handbook/"
    log = (tmp_path / "serve.log").open("w")
    env = {**build_env(tree), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        _serve_command(tree, port), cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        start = time.monotonic()
        while _get(base) is None:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            assert time.monotonic() - start < 600, "mkdocs serve never finished its first build"
            time.sleep(0.5)
        indexes = {lang: _docs(_get(base + lang + "search/search_index.json")) for lang in ("", "zh/")}
        shown = {}
        for lang, page in (("", "sft/eos-never-learned"), ("zh/", "online-rl/grpo-zero-std-group")):
            time.sleep(1.5)  # a save, some time after the last one
            marker = f"Hbedit{len(shown)}x{port}"
            source = tree / "docs" / (page + (".zh.md" if lang else ".md"))
            saved = time.monotonic()
            _edit(source, marker)
            while (html := _get(base + lang + page + "/")) is None or marker not in html:
                assert time.monotonic() - saved < 300, "the edit never showed"
                time.sleep(0.1)
            shown[lang + page] = round(time.monotonic() - saved, 2)
            # the rebuilt page as a complete build makes it: every navigation entry titled, tags linked, and
            # (Chinese) its search pointed at the Chinese index once
            assert not re.search(r'"md-ellipsis">\s*None\s*<', html), f"{page}: a navigation entry without its title"
            assert 'class="md-tag"' in html and '<span class="md-tag">' not in html, f"{page}: tags not linked"
            assert '"base": "../zh/"' in (_get(base + "zh/") or ""), "the Chinese pages' search base"
        for lang, n in indexes.items():  # the search index still holds every page once
            assert _docs(_get(base + lang + "search/search_index.json")) == n
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    print(f"make serve: a saved page shown after {shown} s")
    assert all(s <= EDIT_SHOWN_WITHIN_S for s in shown.values()), shown
