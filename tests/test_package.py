"""The package as users adopt it: its version, its documentation, its README.

The version is one (djony's, shared by tastypie_djony and the management
commands' ``--version``) and has a changelog entry; every system check the
code can emit is documented in ``docs/checks.md``; every documentation page
is in the index's table of contents; the README keeps the two commands CI
runs and links into the docs site by absolute URLs (it is the PyPI page).
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import subprocess
import sys
import types
from pathlib import Path
from unittest import mock

import pytest
from django.core.management import load_command_class

import djony
import tastypie_djony

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_one_version_with_a_changelog_entry():
    setup_py = (ROOT / "setup.py").read_text()
    assert "djony/__init__.py" in setup_py  # setup.py reads the version from there
    assert re.fullmatch(r"\d+\.\d+\.\d+", djony.__version__)
    assert tastypie_djony.__version__ == djony.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[?{re.escape(djony.__version__)}\]? - ", changelog, re.M)


def test_the_resource_and_the_field_import_from_the_package():
    from tastypie_djony import DjonyResource, SetField
    from tastypie_djony.fields import SetField as field_class
    from tastypie_djony.resources import DjonyResource as resource_class

    assert DjonyResource is resource_class
    assert SetField is field_class
    with pytest.raises(AttributeError, match="no attribute 'ModelResource'"):
        tastypie_djony.ModelResource  # noqa: B018 - the attribute access is the test


def test_the_package_imports_before_django_is_set_up():
    """``INSTALLED_APPS`` names the package before the app registry is ready: importing it
    must not import Tastypie's resources (they need the registry)."""
    code = (
        "import sys, tastypie_djony; "
        "assert 'tastypie.resources' not in sys.modules, 'tastypie.resources imported'; "
        "assert 'tastypie_djony.resources' not in sys.modules"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "app, command", [("djony", "djony_mapping"), ("tastypie_djony", "djony_verify")]
)
def test_commands_print_the_package_version(app, command):
    parser = load_command_class(app, command).create_parser("manage.py", command)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser.parse_args(["--version"])
    assert out.getvalue().strip() == djony.__version__


def test_every_system_check_is_documented():
    sources = [*(ROOT / "djony").rglob("*.py"), *(ROOT / "tastypie_djony").rglob("*.py")]
    ids = {
        found
        for path in sources
        for found in re.findall(r"\b((?:djony|tastypie_djony)\.[EW]\d{3})\b", path.read_text())
    }
    assert {"djony.E002", "djony.W001", "tastypie_djony.E002", "tastypie_djony.W002"} <= ids
    headings = set(re.findall(r"^## `([^`]+)`", (DOCS / "checks.md").read_text(), re.M))
    assert ids <= headings, f"not in docs/checks.md: {sorted(ids - headings)}"


def test_every_page_is_in_the_index():
    index = (DOCS / "index.md").read_text()
    toctree = set()
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index, re.S):
        toctree |= {line.strip() for line in block.splitlines() if line and line[0] != ":"}
    pages = {path.stem for path in DOCS.glob("*.md")} - {"index"}
    assert pages - toctree == set(), "pages no table of contents lists"
    assert toctree - pages == set(), "toctree entries without a page"


def setup_arguments() -> dict:
    """What ``setup.py`` hands to ``setuptools.setup()`` (setuptools itself not needed)."""
    arguments: dict = {}
    fake = types.ModuleType("setuptools")
    fake.setup = lambda **kwargs: arguments.update(kwargs)
    fake.find_packages = lambda **kwargs: []
    with mock.patch.dict(sys.modules, {"setuptools": fake}):
        runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    return arguments


def test_readme_is_a_pypi_page():
    """The README's two commands are there; its links resolve in the checkout, and the
    package's long description (its PyPI page) links the same files absolutely."""
    commands = [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[example]' && "
        ".venv/bin/python example_project/manage.py compare",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]
    for command in commands:
        assert command in README
    targets = re.findall(r"\]\(([^)]+)\)", README)
    assert targets, "no links"
    for target in targets:
        if not re.match(r"https?://", target):
            assert (ROOT / target.split("#")[0]).exists(), target
        assert "readthedocs" not in target, target
    described = setup_arguments()["long_description"]
    published = re.findall(r"\]\(([^)]+)\)", described)
    assert len(published) == len(targets)
    assert [t for t in published if not t.startswith("https://")] == [], "relative on PyPI"
