"""The documentation site: built strict and silent, offline, every link whole,
every measure and public name on a page, and search working from the files.

The site is built once (``mkdocs build`` into a temporary folder, as ``make
docs`` does into build/site); the link checker and the page-entry checks read
the built HTML, the browser tests open it in headless Chromium with the
network cut off (tests/support/browser.py).
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from browser import DevTools, needs_chromium
from paths import ROOT, SRC

sys.path.insert(0, str(ROOT / "scripts" / "docs"))
import api_pages  # noqa: E402
import measure_pages  # noqa: E402

pytestmark = pytest.mark.slow

# Attributes that make the browser load something (an <a href> is a link, not a load).
LOADS = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src"),
         ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data"), ("image", "href")}
LOCAL_SCHEMES = {"", "file", "data", "about", "blob"}


class Page(HTMLParser):
    """Every id and name (anchors), and every (tag, attribute, URL) of a built page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.urls: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if value is None:
                continue
            if key in ("id", "name") and tag != "meta":
                self.ids.add(value)
            if key in ("href", "src", "data"):
                self.urls.append((tag, key, value))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, str, float]:
    """(the built site, mkdocs' log, seconds the build took)."""
    folder = tmp_path_factory.mktemp("site")
    # The atlas's two slowest peers (a JVM for Spark, Numba's compilation for ranx: a minute
    # between them) are left to `make docs`; tests/docs/test_atlas.py holds the atlas's cells.
    env = {"RANKPROOF_ATLAS_SKIP": "spark,ranx", **os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-4000:]
    return folder, done.stderr, took


@pytest.fixture(scope="module")
def pages(site) -> dict[Path, Page]:
    parsed = {}
    for path in sorted(site[0].rglob("*.html")):
        page = Page()
        page.feed(path.read_text(encoding="utf-8"))
        parsed[path] = page
    return parsed


def test_the_build_is_strict_and_has_no_warning(site):
    folder, log, took = site
    noisy = [line for line in log.splitlines() if line.strip() and not line.startswith("INFO")]
    assert noisy == [], noisy
    assert (folder / "index.html").is_file() and (folder / "search" / "search_index.js").is_file()
    print(f"docs build: {took:.1f} s")


def test_nothing_is_loaded_from_the_network(site, pages):
    remote = [(path.relative_to(site[0]).as_posix(), url) for path, page in pages.items()
              for tag, key, url in page.urls if (tag, key) in LOADS and urlsplit(url).scheme not in LOCAL_SCHEMES]
    assert remote == []
    for sheet in site[0].rglob("*.css"):
        text = sheet.read_text(encoding="utf-8")
        assert "@import url(http" not in text and "url(http" not in text, sheet
    # The web fonts the theme would fetch (font: false) and the CDN polyfill (ours is shipped).
    html = "".join(path.read_text(encoding="utf-8") for path in pages)
    assert "fonts.googleapis" not in html and "unpkg.com" not in html and "api.github.com" not in html


def _target(site_root: Path, page: Path, url: str) -> tuple[Path, str] | None:
    """The file and anchor an internal link points at, or None for an external one."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith("//"):
        return None
    if parts.path.startswith("/"):  # root-relative (404.html, served by the host at the site's root)
        path = (site_root / unquote(parts.path).lstrip("/")).resolve()
    else:
        path = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
    if path.is_dir():
        path = path / "index.html"
    return path, unquote(parts.fragment)


def test_every_internal_link_and_anchor_exists(site, pages):
    root = site[0].resolve()
    broken = []
    for page_path, page in pages.items():
        for tag, key, url in page.urls:
            found = _target(root, page_path.resolve(), url)
            if found is None:
                continue
            path, anchor = found
            where = f"{page_path.relative_to(site[0]).as_posix()}: {tag} {key}={url}"
            if not path.exists():
                broken.append(where + " (no such file)")
            elif anchor and path.suffix == ".html" and anchor not in pages[site[0] / path.relative_to(root)].ids:
                broken.append(where + " (no such anchor)")
    assert broken == []


def test_the_link_checker_sees_a_broken_link(tmp_path):
    (tmp_path / "a.html").write_text('<a href="b.html#there">b</a><a href="#here">here</a><p id="x"></p>')
    (tmp_path / "b.html").write_text('<p id="elsewhere"></p>')
    page = Page()
    page.feed((tmp_path / "a.html").read_text())
    missing = []
    for _, _, url in page.urls:
        path, anchor = _target(tmp_path, tmp_path / "a.html", url)
        target = Page()
        target.feed(path.read_text())
        if anchor not in target.ids:
            missing.append(url)
    assert missing == ["b.html#there", "#here"]


def _ids(site_root: Path, relative: str) -> set[str]:
    page = Page()
    page.feed((site_root / relative).read_text(encoding="utf-8"))
    return page.ids


def test_every_registry_measure_has_its_entry(site):
    from rankproof.measures import REGISTRY

    generated = measure_pages.pages()
    for name, spec in REGISTRY.items():
        if spec.defined_by_user:   # defined by a test of this session (rankproof.measures.define): not in the site
            continue
        assert f"{{#{name}}}" in generated[f"reference/measures/{spec.family}.md"], name
        assert name in _ids(site[0], f"reference/measures/{spec.family}.html"), name
        assert f"{spec.family}.html#{name}" in (site[0] / "reference/measures/index.html").read_text(), name


def test_a_measure_added_to_the_registry_appears_with_no_edit(monkeypatch):
    from rankproof.measures import REGISTRY, MeasureSpec

    monkeypatch.setitem(REGISTRY, "toy_measure", MeasureSpec("toy_measure", "a toy: 1 for every query", ("rel",),
                                                             family="toys"))
    generated = measure_pages.pages()
    assert "## `toy_measure` {#toy_measure}" in generated["reference/measures/toys.md"]
    assert "a toy: 1 for every query" in generated["reference/measures/toys.md"]
    assert "[`toy_measure`](toys.md#toy_measure)" in generated["reference/measures/index.md"]
    assert {"Toys": "reference/measures/toys.md"} in measure_pages.nav()


def test_measure_entries_state_engines_aliases_and_ties():
    entries = {entry.name: entry for entry in measure_pages.entries()}
    # The compiled engine has a kernel for ndcg; the dense one reads score matrices; numpy is the reference.
    assert entries["ndcg"].engines == "`dense` (score matrices), `compiled`, `numpy`"
    assert "trec_eval `ndcg_cut` (with a cutoff)" in entries["ndcg"].other_names
    assert "ranx `mrr`" in entries["rr"].other_names and "ir_measures `RR`" in entries["rr"].other_names
    assert entries["iprec"].ties.startswith("needs one order")
    assert "`gain`" in entries["ndcg"].policies and any("zero_ideal" in p for p in entries["ndcg"].policies)


def _public(module_name: str) -> list[tuple[str, str]]:
    """(anchor, page) of every public name of a module."""
    module = importlib.import_module(module_name)
    found = []
    for name in api_pages.public_names(module_name):
        if inspect.ismodule(getattr(module, name)):
            found.append((f"{module_name}.{name}", api_pages.page_path(f"{module_name}.{name}")))
        else:
            anchor = api_pages.shadowed(module_name, name) or f"{module_name}.{name}"
            page = f"{api_pages.FOLDER}/index.md" if module_name == "rankproof" else api_pages.page_path(module_name)
            found.append((anchor, page))
    return found


def test_every_public_name_has_its_entry(site):
    import rankproof

    modules = api_pages.public_modules()
    assert {"rankproof.stats", "rankproof.protocol", "rankproof.measures", "rankproof.trec"} <= set(modules)
    expected = [(module, api_pages.page_path(module)) for module in modules]
    expected += [entry for module in ["rankproof", *modules] for entry in _public(module)]
    assert len([name for name in rankproof.__all__ if name != "__version__"]) == len(_public("rankproof"))
    missing = [(anchor, page) for anchor, page in expected
               if anchor not in _ids(site[0], page.removesuffix(".md") + ".html")]
    assert missing == []
    assert api_pages.missing_docstrings() == []


def _search_index(site_root: Path) -> list[dict]:
    return json.loads((site_root / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]


@pytest.mark.parametrize("word, page", [("ndcg", "reference/measures/core.html"),
                                        ("unjudged", "reference/measures/trec.html"),
                                        ("trec-eval", "getting-started.html")])
def test_the_search_index_holds_each_word(site, word, page):
    docs = _search_index(site[0])
    # lunr splits on spaces and hyphens: trec-eval is found as trec and eval.
    hits = {doc["location"].split("#")[0] for doc in docs
            if all(part in (doc["title"] + " " + doc["text"]).lower() or part in doc["location"]
                   for part in word.split("-"))}
    assert page in hits


SEARCH = """(async (word, wanted) => {
  const input = document.querySelector('input.md-search__input');
  input.focus();
  input.value = word;
  for (const type of ['focus', 'input', 'keyup']) input.dispatchEvent(new Event(type, {bubbles: true}));
  const wrap = document.querySelector('.md-search__scrollwrap');
  let links = [];
  for (let i = 0; i < 200; i++) {
    links = [...document.querySelectorAll('.md-search-result__item a')].map(a => a.getAttribute('href'));
    if (links.some(link => wanted.some(page => link.includes(page)))) break;
    // The theme shows results ten pages at a time, more as the list scrolls.
    wrap.scrollTop = wrap.scrollHeight;
    wrap.dispatchEvent(new Event('scroll'));
    await new Promise(r => setTimeout(r, 50));
  }
  return links;
})"""


@needs_chromium
def test_the_site_opens_offline_and_its_search_box_finds(site, tmp_path):
    root = site[0]
    # The pages whose text holds the word as written: one of them must be among the results.
    wanted = {word: sorted({doc["location"].split("#")[0] for doc in _search_index(root)
                            if word in (doc["title"] + " " + doc["text"]).lower()})
              for word in ("ndcg", "unjudged", "trec-eval")}
    assert all(wanted.values()), wanted
    browser = DevTools(tmp_path / "profile")
    try:
        for page in ("index.html", "reference/measures/core.html", "reference/api/index.html"):
            browser.open((root / page).as_uri())
        found = {}
        for word in ("ndcg", "unjudged", "trec-eval"):  # a fresh page each: no results left from the last word
            session = browser.open((root / "index.html").as_uri())
            found[word] = browser.evaluate(session, f"{SEARCH}({json.dumps(word)}, {json.dumps(wanted[word])})")
        remote = [url for url in browser.requested() if urlsplit(url).scheme not in LOCAL_SCHEMES]
        errors = browser.errors()
    finally:
        browser.close()
    assert remote == []
    assert errors == []
    found = {word: [urlsplit(link)._replace(query="").geturl() for link in links] for word, links in found.items()}
    for word, links in found.items():
        pages = {urlsplit(link).path.removeprefix(root.resolve().as_posix() + "/") for link in links}
        assert pages & set(wanted[word]), (word, links)
    assert any(link.endswith("reference/measures/core.html#ndcg") for link in found["ndcg"])
