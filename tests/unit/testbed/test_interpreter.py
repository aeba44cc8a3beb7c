"""testbed.interpreter: a helper's Python does not import from the directory it starts in,
where a plain `python -m` or `python -c` does (so the test can tell the two apart)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from testbed.interpreter import code, module

PROBE = "import planted_probe"


def plant(where: Path) -> None:
    (where / "planted_probe").mkdir()
    (where / "planted_probe" / "__init__.py").write_text("print('planted')\n")
    (where / "planted_probe" / "__main__.py").write_text("print('planted main')\n")


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_plain_python_imports_from_its_directory_a_helper_does_not(tmp_path: Path) -> None:
    plant(tmp_path)
    assert "planted" in run([sys.executable, "-c", PROBE], tmp_path).stdout
    assert "planted main" in run([sys.executable, "-m", "planted_probe"], tmp_path).stdout
    for argv in (code(PROBE), module("planted_probe")):
        out = run(argv, tmp_path)
        assert out.returncode != 0 and "planted" not in out.stdout, argv
        assert re.search("No module named '?planted_probe", out.stderr), out.stderr


def test_helpers_still_find_the_project_and_take_arguments(tmp_path: Path) -> None:
    plant(tmp_path)
    out = run(code("import sys, testbed; print(testbed.__name__, sys.argv[1:])", "a", 2),
              tmp_path)
    assert out.returncode == 0 and out.stdout.split() == ["testbed", "['a',", "'2']"]
    assert module("x", python="/other/python")[:3] == ["/other/python", "-P", "-s"]
