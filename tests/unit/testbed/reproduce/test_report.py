"""testbed.reproduce.report: a run writes JSON, markdown and HTML, and the report names a
difference's kind and draws each interval."""

from __future__ import annotations

import json
from pathlib import Path

from testbed.reproduce.all_claims import CLAIMS
from testbed.reproduce.run import run
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    REPRODUCED,
    UNDECIDED,
    VERDICTS,
)


def test_a_run_writes_json_markdown_and_html(tmp_path: Path) -> None:
    doc = run(tmp_path, only=["nupairoj.table-4.3", "nupairoj.mesh-6x6"],
              progress=lambda _m: None, command="mcastlab reproduce --only ...")
    got = json.loads((tmp_path / "reproduce.json").read_text())
    assert got == json.loads(json.dumps(doc))
    assert {"schema", "command", "quick", "only", "started", "machine", "networks",
            "claims", "seconds", "summary"} <= got.keys()
    assert [c["key"] for c in got["claims"]] == [c.key for c in CLAIMS]
    by = {c["key"]: c for c in got["claims"]}
    assert by["nupairoj.table-4.3"]["verdict"] == REPRODUCED
    assert by["nupairoj.table-4.3"]["paper_figure"]["values"]["t"][-1] == 135
    assert by["coll.table-1"]["verdict"] == "skipped"
    assert set(got["summary"]) == set(VERDICTS)
    assert got["summary"][REPRODUCED] == 2
    md = (tmp_path / "reproduce.md").read_text()
    assert "| nupairoj.mesh-6x6 | Nupairoj1998 | section 5.2 |" in md
    page = (tmp_path / "report.html").read_text()
    assert "id='nupairoj.mesh-6x6'" in page and "OPT-Mesh 130, U-Mesh 165" in page


def test_the_report_names_a_differences_kind_and_draws_each_interval(tmp_path: Path) -> None:
    from testbed.reproduce.report import write

    doc = run(tmp_path, only=["nupairoj.table-4.3"], progress=lambda _m: None)
    claim = doc["claims"][0] | {
        "key": "x.judged", "verdict": DIFFERS, "why_kind": EMULATOR, "why": "slow here",
        "testbed_figure": {"text": "t", "values": {"intervals": {
            "4 hosts": {"figure": 1.0, "interval": [0.9, 1.1], "margin": [1.05, None],
                        "verdict": UNDECIDED},
            "9 hosts": {"figure": 0.8, "interval": [0.7, 0.85], "margin": [1.05, None],
                        "verdict": DIFFERS}}}}}
    write(tmp_path / "out", {**doc, "claims": [claim]})
    md = (tmp_path / "out" / "reproduce.md").read_text()
    assert "| differs (the emulator cannot show it): slow here |" in md
    assert "<i>the emulator cannot show it</i>: slow here" in (
        tmp_path / "out" / "report.html").read_text()
    assert (tmp_path / "out" / "plots" / "x.judged.png").stat().st_size > 1000


