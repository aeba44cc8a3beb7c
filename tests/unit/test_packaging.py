"""Packaging (issue 54, item 8): pyproject's runtime dependencies hold none of the test, lint
or docs tools (they are its optional groups), every one of them is pinned in
requirements.txt (what scripts/install.sh installs, so `make test` has them), and the README
claims only the platform tried with the Python pyproject requires."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
TOOLS = {"pytest", "pytest-xdist", "ruff", "mypy", "types-networkx", "pdoc"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_runtime_dependencies_hold_no_test_lint_or_docs_tool() -> None:
    runtime = {_name(r) for r in PROJECT["dependencies"]}
    assert runtime & TOOLS == set()
    groups = PROJECT["optional-dependencies"]
    assert {_name(r) for g in ("test", "lint", "docs") for r in groups[g]} == TOOLS


def test_every_dependency_is_pinned_for_the_install() -> None:
    pinned = {_name(line) for line in (ROOT / "requirements.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")}
    groups = PROJECT["optional-dependencies"]
    wanted = {_name(r) for r in PROJECT["dependencies"]} | {
        _name(r) for g in ("test", "lint", "docs", "web") for r in groups[g]}
    assert wanted - pinned == set()


def test_the_readme_claims_a_platform_whose_python_pyproject_takes() -> None:
    assert PROJECT["requires-python"] == ">=3.11"
    readme = (ROOT / "README.md").read_text()
    assert "Ubuntu 22.04 or later" not in readme  # its python3 is 3.10
    assert "Debian 12" in readme
    # the install checks the version pyproject requires before it installs anything
    low = tuple(int(x) for x in PROJECT["requires-python"].removeprefix(">=").split("."))
    install = (ROOT / "scripts" / "install.sh").read_text()
    assert f"sys.version_info < {low}" in install
    assert install.index("sys.version_info") < install.index("apt-get")
    # no page claims a platform beyond the one tried
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        assert "Debian or Ubuntu" not in page.read_text(), page.name
