"""Packaging for djony and tastypie_djony.

The version lives in ``djony/__init__.py`` and is read from there without
importing the package (importing it would need Django to be installed).
The long description is README.md with its relative links made absolute
(:func:`long_description`); ``scripts/check_links.py`` checks every link of it.
"""

import posixpath
import re
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
VERSION = re.search(
    r'^__version__ = "([^"]+)"', (HERE / "djony" / "__init__.py").read_text(), re.MULTILINE
).group(1)

# psycopg 3 is what Django recommends and picks when both drivers are installed;
# djony brings its own Pony provider for it (djony/bridge/backends/postgresql.py).
# 3.1.8 is the oldest psycopg Django 5.2 accepts.
POSTGRES = ["psycopg[binary]>=3.1.8"]
POSTGRES_POOL = ["psycopg[binary,pool]>=3.1.8"]  # Django's OPTIONS["pool"]
PSYCOPG2 = ["psycopg2-binary>=2.9"]
MYSQL = ["mysqlclient>=2.2.1"]  # compiled: needs libmysqlclient/libmariadb headers and gcc

REPOSITORY = "https://github.com/djony/djony"
# The target of a Markdown link: [text](target "title"), ![alt](target), [label]: target
MARKDOWN_LINK = re.compile(r"(\]\(\s*<?|^ {0,3}\[[^\]]+\]:[ \t]*<?)([^\s<>()]+)")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def requirements(name: str) -> list[str]:
    """The requirements in ``requirements/<name>.txt`` (the one place their versions are pinned)."""
    lines = (HERE / "requirements" / f"{name}.txt").read_text().splitlines()
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]


def long_description() -> str:
    """README.md as PyPI shows it: each relative link made absolute, at this release's tag.

    The README links the pages of ``docs/`` and the other files relatively, so that they
    resolve in a checkout and on the code host.  PyPI has no checkout: there each link
    goes to the file in the repository at the tag ``v<version>`` (``blob/``; ``tree/``
    for a folder, ``raw/`` for an image), and ``#anchor`` to the README's own heading
    there.  Absolute links and fenced code blocks are left as they are.
    """

    def absolute(match: re.Match) -> str:
        target = match.group(2)
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|//", target):
            return match.group()
        path, hash_, fragment = target.partition("#")
        path = posixpath.normpath(path) if path else "README.md"
        kind = "tree" if (HERE / path).is_dir() else "blob"
        if re.search(r"!\[[^\]]*$", match.string[: match.start()]):  # ![alt](path)
            kind = "raw"
        return f"{match.group(1)}{REPOSITORY}/{kind}/v{VERSION}/{path}{hash_}{fragment}"

    lines, fence = [], ""
    for line in (HERE / "README.md").read_text(encoding="utf-8").splitlines(keepends=True):
        opening = FENCE.match(line)
        if fence:
            closing = opening and opening.group(1)[0] == fence[0]
            if closing and len(opening.group(1)) >= len(fence) and not line.strip().strip(fence):
                fence = ""
        elif opening:
            fence = opening.group(1)
        else:
            line = MARKDOWN_LINK.sub(absolute, line)
        lines.append(line)
    return "".join(lines)


setup(
    name="djony",
    version=VERSION,
    description=(
        "Every Django model as a Pony ORM entity (Model.p) on Django's own connection, "
        "and DjonyResource: a drop-in Tastypie ModelResource served by Pony."
    ),
    long_description=long_description(),
    long_description_content_type="text/markdown",
    author="the djony authors",
    license="BSD-3-Clause",
    license_files=["LICENSE", "AUTHORS"],
    url=REPOSITORY,
    # The documentation site is not published: its pages as the repository holds them,
    # at this release's tag.
    project_urls={
        "Homepage": REPOSITORY,
        "Documentation": f"{REPOSITORY}/tree/v{VERSION}/docs",
        "Source": REPOSITORY,
        "Changelog": f"{REPOSITORY}/blob/v{VERSION}/CHANGELOG.md",
        "Issues": f"{REPOSITORY}/issues",
    },
    keywords=["django", "pony", "ponyorm", "tastypie", "rest", "api", "orm"],
    packages=find_packages(include=["djony", "djony.*", "tastypie_djony", "tastypie_djony.*"]),
    include_package_data=True,
    zip_safe=False,
    python_requires=">=3.10",
    install_requires=[
        "Django>=5.2,<6.2",
        "django-tastypie>=0.15,<0.16",
        "pony>=0.7.20,<0.8",
        "python-dateutil",
        "python-mimeparse>=0.1.4,!=1.5",  # (Tastypie's own requirement; imported directly)
    ],
    extras_require={
        "postgres": POSTGRES,
        "postgres-pool": POSTGRES_POOL,
        "psycopg2": PSYCOPG2,
        "mysql": MYSQL,
        # Aliases named like the values of DJONY_TEST_DATABASE, so tox can pick
        # the driver with ``extras = {env:DJONY_TEST_DATABASE:sqlite}``; on
        # PostgreSQL both drivers and the pool, for every DJONY_PG_* variant.
        "postgresql": POSTGRES_POOL + PSYCOPG2,
        "sqlite": [],
        "test": [
            "pytest>=7.4",
            "pytest-django>=4.5",
            "hypothesis>=6.0",
            # Tastypie's optional serializers: xml needs lxml + defusedxml,
            # yaml needs PyYAML, plist needs biplist.
            "lxml>=4.9",
            "defusedxml>=0.7",
            "PyYAML>=6.0",
            "biplist>=1.0.3",
            # The test settings install rest_framework and the example's app (whose
            # benchmarks answer XML too).
            "djangorestframework>=3.14",
            "djangorestframework-xml>=2.0",
            # Third-party fields and managers (tests/thirdparty), in releases that
            # install on Django 5.2, 6.0 and 6.1.
            "django-taggit>=6.0,<7",
            "django-sortedm2m>=4.0,<5",
            "django-mptt>=0.16,<0.21",
            "django-polymorphic>=4.0,<5",
            "django-model-utils>=5.0,<6",
            "django-money>=3.5,<4",
            "django-countries>=7.6,<10",
        ],
        "example": [
            "djangorestframework>=3.14",
            "gunicorn>=21.2",
            # The benchmarks' XML cases: Tastypie writes XML with lxml (and reads it with
            # defusedxml); DRF with djangorestframework-xml.
            "lxml>=4.9",
            "defusedxml>=0.7",
            "djangorestframework-xml>=2.0",
        ],
        # Only for ``manage.py compare --plot``.
        "plot": ["matplotlib>=3.7"],
        # The documentation site (tox -e docs, Read the Docs) and the linter (tox -e lint,
        # .ci/run): their versions are pinned in requirements/docs.txt and lint.txt.
        "docs": requirements("docs"),
        "lint": requirements("lint"),
    },
    classifiers=[
        "Development Status :: 4 - Beta",
        "Environment :: Web Environment",
        "Framework :: Django",
        "Framework :: Django :: 5.2",
        "Framework :: Django :: 6.0",
        "Framework :: Django :: 6.1",
        "Intended Audience :: Developers",
        "Operating System :: OS Independent",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        "Programming Language :: Python :: 3.10",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
        "Topic :: Database",
        "Topic :: Database :: Front-Ends",
        "Topic :: Internet :: WWW/HTTP",
        "Topic :: Internet :: WWW/HTTP :: Dynamic Content",
        "Topic :: Software Development :: Libraries :: Python Modules",
    ],
)
