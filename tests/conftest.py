"""Fixtures of the site tests (tests/test_site.py, tests/test_site_doctor.py, tests/test_build_speed.py): one strict
build of the site per session, from a copy of the sources with an empty cache (a cold build, the one a fresh clone
makes), served under the path of site_url, and Debian's Chromium through Playwright.

Run the three files in one pytest process (``make test`` does): the site is built once for all of them, and the
build-speed tests build again on the same copy, its cache now warm.
"""

from __future__ import annotations

import functools
import http.server
import math
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("HANDBOOK_CHROMIUM", "/usr/bin/chromium")
PREFIX = "/rlhf-pitfalls-handbook"  # the path of site_url in mkdocs.yml


SOURCES = ["docs", "snippets", "hooks", "handbook", "overrides", "compat", "doctor", "requirements"]
"""What a build reads: copied, with mkdocs.yml and the Makefile, into the session's source tree."""
SOURCE_DATE_EPOCH = "1767225600"
"""Fixes the only output that depends on the build's time: the sitemaps' dates (and their .gz headers)."""


@pytest.fixture(scope="session")
def source_tree(tmp_path_factory):
    """A copy of the site's sources with its own, empty .cache/ (its ``handbook`` package, first on PYTHONPATH,
    reads its pages from there): builds in it never touch the checkout's cache or docs."""
    copy = tmp_path_factory.mktemp("tree")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.egg-info", "trainer_output")
    for name in SOURCES:
        shutil.copytree(ROOT / name, copy / name, ignore=ignore)
    for name in ("mkdocs.yml", "Makefile"):
        shutil.copy2(ROOT / name, copy / name)
    return copy


def _build_env(tree: pathlib.Path) -> dict:
    path = os.pathsep.join([str(tree), str(tree / "doctor"), os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path, NO_MKDOCS_2_WARNING="1", SOURCE_DATE_EPOCH=SOURCE_DATE_EPOCH)


@pytest.fixture(scope="session")
def build_env():
    """The environment a build of a source tree runs in: ``build_env(tree)``."""
    return _build_env


@pytest.fixture(scope="session")
def cold_site(source_tree, tmp_path_factory):
    """(output folder, return code, log, CPU seconds) of a cold strict build of the source tree."""
    # Serve under the path of site_url, as GitHub Pages and `mkdocs serve` do: Material fetches
    # <base>/sitemap.xml for the language switcher and would get a 404 at the wrong prefix.
    assert not (source_tree / ".cache").exists(), "the session's first build must be a cold one"
    root = tmp_path_factory.mktemp("site")
    out = root / PREFIX.strip("/")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Never -q: it hides the warnings we want to fail on.
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=source_tree,
        env=_build_env(source_tree),
        capture_output=True,
        text=True,
        timeout=900,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    log = proc.stdout + proc.stderr
    return out, proc.returncode, log, cpu


@pytest.fixture(scope="session")
def site(cold_site):
    """(output folder, return code, log) of the session's build."""
    return cold_site[:3]


@pytest.fixture(scope="session")
def server(site):
    out, code, log = site
    if code != 0:
        pytest.fail(f"site did not build:\n{log[-2000:]}")
    handler = functools.partial(_QuietHandler, directory=str(out.parent))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}{PREFIX}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a missing address as GitHub Pages does: the site's 404.html, with status 404."""

    def log_message(self, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        page = pathlib.Path(self.directory) / PREFIX.strip("/") / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A browser that leaves a page drops the requests still loading (BrokenPipeError): not a server error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def browser():
    if not (shutil.which(CHROMIUM) or pathlib.Path(CHROMIUM).exists()):
        if os.environ.get("HANDBOOK_REQUIRE_BROWSER"):
            pytest.fail(f"HANDBOOK_REQUIRE_BROWSER is set but there is no Chromium at {CHROMIUM}")
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's 'chromium' (apt-get install chromium) to run browser tests"
        )
    sync_api = pytest.importorskip("playwright.sync_api", reason="python package 'playwright' is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    external = []

    def route(r):
        if r.request.url.startswith(server):
            return r.continue_()
        external.append(r.request.url)
        return r.abort()

    context.route("**/*", route)
    pg = context.new_page()
    pg.external_requests = external
    yield pg
    context.close()


@pytest.fixture(scope="session")
def benchmark_log():
    """The log doctor's synthetic long log: ``benchmark_log(n)`` is n logged steps of every metric the rules read,
    none of them a symptom (tests/test_doctor.py times it; tests/test_doctor_js.py compares both engines on it)."""

    def build(steps: int) -> list[dict]:
        return [
            {
                "step": i,
                "loss": math.sin(i) + 1,
                "grad_norm": 1.0 + (i % 7) / 10,
                "kl": 0.001 * i,
                "reward": 0.5,
                "frac_reward_zero_std": 0.25,
                "entropy": 2.0 - i / 10_000,
                "rewards/margins": 0.1,
            }
            for i in range(1, steps + 1)
        ]

    return build
