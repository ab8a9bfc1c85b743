"""Fail on a link of the README, the docs or the package's metadata that resolves nowhere.

    python scripts/check_links.py              # the checkout this script is in
    python scripts/check_links.py PATH         # another checkout or an unpacked sdist
    python scripts/check_links.py --self-test  # first: does the check fail where it must?

``tox -e docs`` and ``.ci/run``'s docs step run both.  What is read:

* every Markdown file of the checkout (those ``git ls-files`` lists; outside a git
  checkout, as in an unpacked sdist, every ``*.md`` but hidden folders and what the
  docs build writes): inline links and images, reference definitions, autolinks
  (``<https://...>``), bare URLs (the code host makes links of them) and the ``href``
  and ``src`` of raw HTML.  Fenced code blocks, inline code and HTML comments hold no
  links;
* the package's metadata, from ``setup.py`` run with ``setuptools.setup`` replaced by a
  function that keeps its arguments: the long description (what PyPI shows), ``url``
  and ``project_urls``.

A link fails when

* it is relative and names a file or folder that does not exist or lies outside the
  checkout, or it starts with ``/`` (a code host, Sphinx and PyPI read that
  differently);
* its ``#fragment`` is no anchor of the Markdown file it names (a heading's id as the
  code host and MyST make it, or an ``id``/``name`` of raw HTML; a MyST target
  ``(label)=`` is none); into any other file only a line (``#L10``, ``#L10-L20``);
* it goes to the documentation site, which is not published (``UNPUBLISHED``);
* it goes into the repository on its code host (setup.py's ``url``:
  ``.../blob/REF/PATH``, ``tree/``, ``raw/``) and ``PATH`` (or its fragment) does not
  exist in the checkout, or it names a page the code host does not have;
* it is absolute and malformed.  Nothing is fetched (no network needed): a web link
  needs ``http``/``https``, a host name, and only characters a URL can hold; a
  ``mailto:`` an address;
* it is in the package's metadata and is not absolute (PyPI has no checkout to resolve
  it against), or goes into the repository at another ``REF`` than the release's tag,
  ``v<version>``.

Exit status 1 on any problem, each printed on a line as ``FILE:LINE: LINK: why``.
"""

from __future__ import annotations

import argparse
import html
import ipaddress
import re
import runpy
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from unittest import mock
from urllib.parse import SplitResult, unquote, urlsplit

# Documentation sites of this project that are not published: no link may go there.
# Remove a host once its site is really published (and only then link it from setup.py).
UNPUBLISHED = ("djony.readthedocs.io", "djony.readthedocs.org", "djony.rtfd.io")

# What the docs build writes into the checkout (not read outside a git checkout).
GENERATED = ("docs/_build", "docs/_api")

# The pages of a repository on GitHub besides its files (blob/tree/raw), by first segment.
REPOSITORY_PAGES = {
    "",
    "issues",
    "pulls",
    "pull",
    "releases",
    "tags",
    "branches",
    "commits",
    "commit",
    "compare",
    "actions",
    "discussions",
    "wiki",
    "security",
    "archive",
}
FILE_PAGES = {"blob", "tree", "raw", "blame"}

HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}|localhost")
NOT_IN_URL = re.compile(r"[\s<>{}|\\^`\"]|%(?![0-9A-Fa-f]{2})")
EMAIL = re.compile(r"[^@\s/]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}")
LINE_ANCHOR = re.compile(r"L\d+(?:-L\d+)?")

FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")  # (also indented, in a list item)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_TEXT = r"(?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*"
_DESTINATION = r"<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*"
_TITLE = r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?"
INLINE_LINK = re.compile(rf"!?\[{_TEXT}\]\(\s*({_DESTINATION}){_TITLE}\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[(?!\^)(?:[^\[\]\\]|\\.)+\]:[ \t]*(<[^<>\n]*>|\S+)", re.MULTILINE)
AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
HTML_LINK = re.compile(r"<(?:a|img|source|link)\b[^>]*?\s(?:href|src)\s*=\s*(\"[^\"]*\"|'[^']*')")
HTML_ANCHOR = re.compile(r"<[A-Za-z][^>]*?\s(?:id|name)\s*=\s*[\"']([^\"']+)[\"']")
BARE_URL = re.compile(r"(?:(?<=[\s*_~(])|^)(?:https?://|www\.)[^\s<]*", re.MULTILINE)
ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
LIST_OR_BLOCK = re.compile(r"^ {0,3}(?:[-+*>](?:\s|$)|\d+[.)]|#|\|)")


@dataclass(frozen=True)
class Problem:
    source: str  # a file of the checkout, relative to it, or "setup.py (long_description)"
    line: int  # 0: the whole source (a metadata field)
    link: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.link or '()'}: {self.reason}"


@dataclass(frozen=True)
class Metadata:
    name: str
    version: str
    url: str
    long_description: str
    project_urls: dict[str, str]


# --- Markdown ------------------------------------------------------------------------
def blank(text: str) -> str:
    """``text`` with every character but the line breaks made a space (offsets are kept)."""
    return re.sub(r"[^\n]", " ", text)


def without_blocks(text: str) -> str:
    """The Markdown with its fenced code blocks and HTML comments blanked out."""
    lines = text.split("\n")
    fence = ""
    for number, line in enumerate(lines):
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                if not line.strip().strip(fence[0]):
                    fence = ""
            lines[number] = ""
        elif match and not (match.group(1)[0] == "`" and "`" in line[match.end() :]):
            fence = match.group(1)
            lines[number] = ""
    return COMMENT.sub(lambda comment: blank(comment.group()), "\n".join(lines))


def markdown_links(text: str) -> list[tuple[int, str]]:
    """The ``(line, target)`` of every link and image of a Markdown text, by line."""
    text = without_blocks(text)
    text = CODE_SPAN.sub(lambda span: blank(span.group()), text)
    found: list[tuple[int, str]] = []

    def take(pattern: re.Pattern[str], unwrap: bool = False) -> None:
        nonlocal text
        for match in pattern.finditer(text):
            target = match.group(1)
            if unwrap and target[:1] in "<\"'":
                target = target[1:-1]
            found.append((match.start(), html.unescape(target) if unwrap else target))
        text = pattern.sub(lambda match: blank(match.group()), text)

    take(INLINE_LINK, unwrap=True)
    take(REFERENCE, unwrap=True)
    take(AUTOLINK)
    take(HTML_LINK, unwrap=True)
    for match in BARE_URL.finditer(text):
        url = trim_bare_url(match.group())
        found.append((match.start(), url if "://" in url else f"http://{url}"))
    return sorted((line_of(text, start), target) for start, target in found)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def trim_bare_url(url: str) -> str:
    """A bare URL as GFM's autolink extension ends it: no trailing punctuation or ``)``."""
    while url:
        if url[-1] in "?!.,:*_~'\"":
            url = url[:-1]
        elif url[-1] == ")" and url.count(")") > url.count("("):
            url = url[:-1]
        elif re.search(r"&\w+;$", url):
            url = re.sub(r"&\w+;$", "", url)
        else:
            break
    return url


def slug(heading: str) -> str:
    """The id GitHub gives a heading (MyST's heading anchors are made the same way)."""
    pieces = []
    for number, piece in enumerate(re.split(r"(`+)(.+?)\1", heading)):
        if number % 3 == 2:  # inline code: its text as it is
            pieces.append(piece)
        elif number % 3 == 0:
            piece = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", piece)  # a link: its text
            piece = re.sub(r"<[^>]+>", "", piece)  # raw HTML
            piece = re.sub(r"\\(.)", r"\1", piece)  # backslash escapes
            piece = re.sub(r"(?<!\w)_+(?=\S)|(?<=\S)_+(?!\w)", "", piece)  # _emphasis_
            pieces.append(html.unescape(piece))
    return re.sub(r"[^\w\- ]", "", "".join(pieces).strip().lower()).replace(" ", "-")


def markdown_anchors(text: str) -> set[str]:
    """The fragments a link into this Markdown file may name."""
    text = without_blocks(text)
    lines = text.split("\n")
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for number, line in enumerate(lines):
        heading = None
        match = ATX_HEADING.match(line)
        if match:
            heading = match.group(1) or ""
        elif (
            number
            and SETEXT_UNDERLINE.match(line)
            and lines[number - 1].strip()
            and not LIST_OR_BLOCK.match(lines[number - 1])
        ):
            heading = lines[number - 1].strip()
        if heading is None:
            continue
        anchor = slug(heading)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchors.add(f"{anchor}-{count}" if count else anchor)
    anchors.update(HTML_ANCHOR.findall(text))
    return anchors


# --- links -----------------------------------------------------------------------------
class Checker:
    """Checks links against one checkout: its files, its repository, its release."""

    def __init__(self, root: Path, metadata: Metadata) -> None:
        self.root = root.resolve()
        self.metadata = metadata
        self.anchors: dict[Path, set[str]] = {}
        repository = urlsplit(metadata.url)
        self.host = (repository.hostname or "").lower()
        self.repository = repository.path.strip("/").lower()  # "owner/name"
        self.tag = f"v{metadata.version}"

    def name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def check(self, link: str, base: Path | None) -> str | None:
        """Why ``link`` resolves nowhere (None when it resolves).

        ``base`` is the file the link is in; None for the package's metadata, where
        every link must be absolute.
        """
        if not link.strip():
            return "an empty link"
        parts = urlsplit(link)
        if parts.scheme or link.startswith("//"):
            return self.check_absolute(link, parts, published=base is None)
        if base is None:
            return (
                "not absolute: PyPI has no checkout to resolve it against "
                f"(link {self.metadata.url}/blob/{self.tag}/...)"
            )
        if link.startswith("/"):
            return "starts with /: a code host, Sphinx and PyPI resolve that differently"
        path = (base.parent / unquote(parts.path)).resolve() if parts.path else base
        if path != self.root and self.root not in path.parents:
            return "leaves the checkout"
        return self.check_file(path, unquote(parts.fragment) if "#" in link else None)

    def check_file(self, path: Path, fragment: str | None) -> str | None:
        if not path.exists():
            return f"no such file: {self.name(path)}"
        if fragment is None:
            return None
        if path.is_dir():
            return f"#{fragment}: {self.name(path) or '.'} is a folder"
        if path.suffix.lower() in (".md", ".markdown"):
            if path not in self.anchors:
                self.anchors[path] = markdown_anchors(path.read_text(encoding="utf-8"))
            if fragment not in self.anchors[path]:
                return f"#{fragment} is no heading or anchor of {self.name(path)}"
            return None
        if LINE_ANCHOR.fullmatch(fragment):
            return None
        return f"#{fragment}: only a line (#L10) can be linked in {self.name(path)}"

    def check_absolute(self, link: str, parts: SplitResult, published: bool) -> str | None:
        scheme = parts.scheme.lower()
        if scheme == "mailto":
            return None if EMAIL.fullmatch(unquote(parts.path)) else "no e-mail address"
        if scheme not in ("http", "https"):
            return f"{scheme or 'no'} scheme: not a web link (http, https or mailto)"
        bad = NOT_IN_URL.search(link)
        if bad:
            return f"{bad.group()!r} cannot be in a URL (percent-encode it)"
        host = (parts.hostname or "").rstrip(".")
        try:
            _ = parts.port  # (raises on a port that is not a number)
        except ValueError:
            return "not a port number"
        if not (HOST.fullmatch(host) or is_ip_address(host)):
            return f"no host name: {host!r}" if host else "no host"
        if host in UNPUBLISHED:
            return (
                "the documentation site is not published: link the page in docs/ "
                "(relatively in the checkout)"
            )
        return self.check_repository(parts, host, published)

    def check_repository(self, parts: SplitResult, host: str, published: bool) -> str | None:
        """Links into this repository on its code host: the file must be in the checkout."""
        segments = [unquote(segment) for segment in parts.path.split("/")[1:]]
        if host == self.host:
            if [segment.lower() for segment in segments[:2]] != self.repository.split("/"):
                return None
            page, rest = (segments[2] if len(segments) > 2 else ""), segments[3:]
        elif host == "raw.githubusercontent.com" and self.host == "github.com":
            if [segment.lower() for segment in segments[:2]] != self.repository.split("/"):
                return None
            page, rest = "raw", segments[2:]
        else:
            return None
        if page in REPOSITORY_PAGES:
            return None
        if page not in FILE_PAGES:
            return (
                f"the repository has no page {page!r} (a file is at "
                f"{self.metadata.url}/blob/REF/PATH)"
            )
        if not rest or not rest[0]:
            return "no branch or tag after /" + page + "/"
        if published and rest[0] != self.tag:
            return (
                f"at {rest[0]!r}, not at the release's tag {self.tag!r} (what PyPI shows "
                "is that release)"
            )
        path = self.root.joinpath(*[segment for segment in rest[1:] if segment])
        if self.root not in path.resolve().parents and path.resolve() != self.root:
            return "leaves the repository"
        fragment = unquote(parts.fragment) if parts.fragment else None
        return self.check_file(path, fragment)


def is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


# --- what is checked -----------------------------------------------------------------
def markdown_files(root: Path) -> list[Path]:
    """The Markdown files of the checkout (git's list when there is one)."""
    if (root / ".git").exists():
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--", "*.md", "*.markdown"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return sorted(root / name for name in listed.split("\0") if (root / name).is_file())
    return sorted(
        path
        for pattern in ("*.md", "*.markdown")
        for path in root.rglob(pattern)
        if not any(part.startswith(".") for part in path.relative_to(root).parts[:-1])
        and not any(path.relative_to(root).as_posix().startswith(g + "/") for g in GENERATED)
    )


def package_metadata(root: Path) -> Metadata:
    """What ``setup.py`` hands to ``setuptools.setup()``."""
    import setuptools

    arguments: dict = {}
    with mock.patch.object(setuptools, "setup", lambda **kwargs: arguments.update(kwargs)):
        runpy.run_path(str(root / "setup.py"), run_name="__main__")
    if not arguments:
        raise SystemExit(f"{root / 'setup.py'} did not call setuptools.setup()")
    return Metadata(
        name=arguments.get("name", ""),
        version=str(arguments.get("version", "")),
        url=arguments.get("url", ""),
        long_description=arguments.get("long_description", ""),
        project_urls=dict(arguments.get("project_urls", {})),
    )


def check(root: Path) -> list[Problem]:
    """The links of the checkout at ``root`` that resolve nowhere (none: an empty list)."""
    root = root.resolve()
    metadata = package_metadata(root)
    checker = Checker(root, metadata)
    problems = []
    for path in markdown_files(root):
        for line, link in markdown_links(path.read_text(encoding="utf-8")):
            reason = checker.check(link, path)
            if reason:
                problems.append(Problem(checker.name(path), line, link, reason))
    source = "setup.py (long_description)"
    for line, link in markdown_links(metadata.long_description):
        reason = checker.check(link, None)
        if reason:
            problems.append(Problem(source, line, link, reason))
    urls = {"url": metadata.url} | {
        f"project_urls[{name!r}]": url for name, url in metadata.project_urls.items()
    }
    for field, url in urls.items():
        reason = checker.check(url, None)
        if reason:
            problems.append(Problem(f"setup.py ({field})", 0, url, reason))
    return problems


# --- the self-test ---------------------------------------------------------------------
SELF_TEST_LONG_DESCRIPTION = """
[kept](https://github.com/example/demo/blob/v1.0/docs/guide.md#faq-1)
[BAD relative](docs/guide.md)
[BAD anchor only](#demo)
[BAD not at the tag](https://github.com/example/demo/blob/main/docs/guide.md)
"""
SELF_TEST_SETUP = f"""
from setuptools import setup

setup(
    name="demo",
    version="1.0",
    url="https://github.com/example/demo",
    long_description={SELF_TEST_LONG_DESCRIPTION!r},
    project_urls={{
        "Source": "https://github.com/example/demo",
        "Documentation": "https://djony.readthedocs.io",
    }},
)
"""

# Every line holding "BAD" has exactly one link, which the check must report; no other
# link may be reported.
SELF_TEST_FILES = {
    "setup.py": SELF_TEST_SETUP,
    "docs/img.png": "",
    "docs/guide.md": """
        # Guide

        ## A section with `code_here` and [a link](index.md)

        ## FAQ
        ## FAQ

        <a id="explicit"></a>

        Setext heading
        --------------

        (a-myst-target)=
        Back to [the index](index.md#demo-docs) and [the readme](../README.md#demo).
        [BAD myst target](#a-myst-target)
        """,
    "docs/index.md": """
        Demo docs
        =========

        [guide](guide.md), [its FAQ](guide.md#faq-1), [setext](guide.md#setext-heading)
        """,
    "README.md": """
        # Demo

        [guide](docs/guide.md) [section](docs/guide.md#a-section-with-code_here-and-a-link)
        [folder](docs/) [here](#demo) ![image](docs/img.png "a title") [line](setup.py#L1-L3)
        <https://example.org/path?q=1> and https://example.org/bare. (www.example.org/x)
        <a href="docs/guide.md#explicit">html</a> [mail](mailto:someone@example.org)
        [own](https://github.com/example/demo/blob/main/docs/guide.md#faq)
        [issue](https://github.com/example/demo/issues/3) [lan](http://127.0.0.1:8000/api/)
        [ref]: docs/index.md#demo-docs
        `[code](missing.md)` ``[code `too`](missing.md)``
        <!-- [comment](missing.md) -->

        ```sh
        [fenced](missing.md) https://djony.readthedocs.io
        ```

        - a list item, its code block indented:

            ~~~text
            [fenced in a list](missing.md)
            ~~~

        [BAD missing file](docs/missing.md)
        [BAD missing anchor](docs/guide.md#no-such-heading)
        [BAD own anchor](#nowhere)
        [BAD outside](../elsewhere.md)
        [BAD root-relative](/docs/guide.md)
        [BAD empty]()
        [BAD unpublished](https://djony.readthedocs.io/en/latest/install.html)
        BAD autolink <https://djony.readthedocs.io>
        BAD bare https://djony.readthedocs.io/en/latest/.
        [BAD brace](https://example.org/{version}/x)
        [BAD host](https://exa_mple/x)
        [BAD no host](https:///x)
        [BAD scheme](ftp://example.org/x)
        [BAD mail](mailto:nobody)
        [BAD own missing](https://github.com/example/demo/blob/main/docs/missing.md)
        [BAD own anchor](https://github.com/example/demo/blob/main/README.md#nowhere)
        [BAD own no blob](https://github.com/example/demo/docs/guide.md)
        [BAD not a line](setup.py#setup)
        [BAD folder anchor](docs/#guide)
        <img src="docs/missing.png"> BAD html
        [BAD ref]: docs/gone.md
        """,
}


def self_test() -> int:
    """Run the check on a made-up checkout with a broken link of every kind."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory, "demo")
        for name, text in SELF_TEST_FILES.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        expected = {
            (name, number)
            for name, text in SELF_TEST_FILES.items()
            if name.endswith(".md")
            for number, line in enumerate(textwrap.dedent(text).lstrip("\n").split("\n"), 1)
            if "BAD" in line
        }
        expected |= {
            ("setup.py (long_description)", number)
            for number, line in enumerate(SELF_TEST_LONG_DESCRIPTION.split("\n"), 1)
            if "BAD" in line
        }
        expected.add(("setup.py (project_urls['Documentation'])", 0))
        problems = check(root)
    found = {(problem.source, problem.line) for problem in problems}
    failures = [f"not reported: {source}:{line}" for source, line in sorted(expected - found)]
    failures += [
        f"reported, but resolves: {p}" for p in problems if (p.source, p.line) not in expected
    ]
    failures += [
        f"reported twice: {source}:{line}"
        for source, line in sorted(found)
        if sum((p.source, p.line) == (source, line) for p in problems) > 1
    ]
    for failure in failures:
        print(f"self-test: {failure}")
    print(
        f"self-test: {len(expected)} broken links, {len(found & expected)} reported"
        + (f", {len(failures)} failures" if failures else "")
    )
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "root", nargs="?", type=Path, default=Path(__file__).resolve().parent.parent
    )
    parser.add_argument("--self-test", action="store_true", help="check the check, then stop")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    problems = check(args.root)
    for problem in problems:
        print(problem)
    files = len(markdown_files(args.root.resolve()))
    print(
        f"{args.root}: {files} Markdown files and the package's metadata, {len(problems)} problems"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
