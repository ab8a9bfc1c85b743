"""Check a built HTML site: every page reachable from the index, every internal link whole.

``python docs/check_site.py docs/_build/html`` (``tox -e docs`` runs it after
``sphinx-build``).  Starting at ``index.html`` it follows every ``href`` and
``src`` that stays inside the site, and fails when

* a link or image names a file that does not exist,
* a link's ``#fragment`` is not an ``id`` (or ``name``) on the page it names, or
* an HTML page of the site cannot be reached from the index by following links.

External links (``http:``, ``https:``, ``mailto:`` ...) are not followed: the
check needs no network.  Exit status 1 on any problem, each printed on a line.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit


class Page(HTMLParser):
    """The links and the anchors (``id``/``name``) of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("id", "name") if tag in ("a", "span", "section", "div", "dt") else ("id",):
            if values.get(name):
                self.anchors.add(values[name] or "")
        for name in ("href", "src"):
            target = values.get(name)
            if target and not (tag == "link" and values.get("rel") in ("preconnect",)):
                self.links.append(target)


def is_internal(link: str) -> bool:
    parts = urlsplit(link)
    return not parts.scheme and not parts.netloc and not link.startswith("//")


def parse(path: Path, cache: dict[Path, Page]) -> Page:
    if path not in cache:
        page = Page()
        page.feed(path.read_text(encoding="utf-8"))
        cache[path] = page
    return cache[path]


def check(root: Path) -> list[str]:
    """The problems of the site under ``root`` (an empty list when there are none)."""
    root = root.resolve()
    index = root / "index.html"
    if not index.is_file():
        return [f"{index}: no index.html (was the site built?)"]
    cache: dict[Path, Page] = {}
    problems: list[str] = []
    seen = {index}
    todo = [index]
    fragments: list[tuple[Path, Path, str]] = []
    while todo:
        page_path = todo.pop()
        for link in parse(page_path, cache).links:
            if not is_internal(link):
                continue
            url, fragment = urldefrag(link)
            url = urlsplit(url).path  # without ?v=... (static files' cache busting)
            target = (page_path.parent / unquote(url)).resolve() if url else page_path
            if target.is_dir():
                target = target / "index.html"
            if root not in target.parents and target != root:
                problems.append(f"{page_path.relative_to(root)}: {link!r} leaves the site")
                continue
            if not target.is_file():
                problems.append(f"{page_path.relative_to(root)}: {link!r}: no such file")
                continue
            if target.suffix == ".html":
                if fragment:
                    fragments.append((page_path, target, unquote(fragment)))
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
    for page_path, target, fragment in fragments:
        if fragment not in parse(target, cache).anchors:
            problems.append(
                f"{page_path.relative_to(root)}: #{fragment} is no anchor of "
                f"{target.relative_to(root)}"
            )
    for page_path in sorted(root.rglob("*.html")):
        if page_path.resolve() not in seen and "_sources" not in page_path.parts:
            problems.append(f"{page_path.relative_to(root)}: not reachable from index.html")
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "docs/_build/html")
    problems = check(root)
    for problem in problems:
        print(problem)
    pages = len(list(root.rglob("*.html")))
    print(f"{root}: {pages} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
