"""`mcastlab net`: the interactive network driven non-interactively (a script file, and
standard input), on the real stack: joins become the controller's groups and trees, a send
reaches members only, leave prunes, loss, fail/restore, capture to a pcap, bad commands."""

from __future__ import annotations

import re
import subprocess

from .conftest import MCASTLAB

G = "239.1.2.3"


def net(*args: str, script: str | None = None, stdin: str | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCASTLAB, "net", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout)


def send_tables(text: str) -> list[dict[str, tuple[str, str, str]]]:
    """Every `send` report: host -> (role, frames on its wire, datagrams received)."""
    tables = []
    for block in re.split(r"sent \d+ datagrams to \S+\n", text)[1:]:
        rows = {}
        for line in block.splitlines()[2:]:
            cells = line.split()
            if len(cells) != 4 or not re.fullmatch(r"h\d+", cells[0]):
                break
            rows[cells[0]] = tuple(cells[1:])
        tables.append(rows)
    return tables


def test_script_joins_sends_draws_and_tears_down(caps, clean_after, tmp_path):
    png, pcap = tmp_path / "tree.png", tmp_path / "h1.pcap"
    script = tmp_path / "lab.txt"
    script.write_text("\n".join([
        f"join h1 {G}", f"join h2 {G}", f"capture h1 {pcap}",
        f"send h0 {G} 3", "groups", f"tree {G} {png}",
        "capture h1 stop", f"leave h2 {G}", "sh sleep 4", f"send h0 {G} 3",
        "fail h3", "restore h3", "loss 0.3 h1", "loss 0",
        f"join h9 {G}", "join h1 10.0.0.1", f"leave h3 {G}", "loss 7", "fail",
        "capture h1 stop"]) + "\n")
    out = net("--topo", "star", "--hosts", "4", "--script", str(script))
    assert out.returncode == 0, out.stderr
    text = out.stderr  # Mininet's CLI writes through its logger, to standard error
    first, second = send_tables(text)
    assert first["h0"][0] == "sender"
    assert first["h1"] == ("member", "3", "3") and first["h2"] == ("member", "3", "3")
    assert first["h3"] == ("-", "0", "-")  # the switch kept it off h3's wire
    # after h2's leave the controller pruned its port: nothing reaches h2's wire
    assert second["h1"] == ("member", "3", "3") and second["h2"] == ("-", "0", "-")
    assert re.search(rf"{G}  members: h1 \(s\d+:\d+\), h2", text), text
    assert re.search(r"from h0: tree s\d+->", text), text
    assert re.search(r"from h0: s\d+->h1, s\d+->h2", text), text
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"
    from scapy.all import UDP, rdpcap

    to_group = [p for p in rdpcap(str(pcap)) if UDP in p and p["IP"].dst == G]
    assert len(to_group) == 3, len(to_group)
    assert "failed nodes: 3" in text and "failed nodes: none" in text
    assert "loss 0.3 on h1" in text and "loss 0 on every host link" in text
    errors = [ln for ln in text.splitlines() if ln.startswith("*** error:")]
    assert len(errors) == 6, errors
    assert "no host 'h9'" in errors[0] and "not a routable multicast group" in errors[1]
    assert "h3 is not a member" in errors[2] and "[0, 1]" in errors[3]
    assert "usage: fail HOST" in errors[4] and "no capture runs on h1" in errors[5]


def test_prompt_on_standard_input_and_bad_options(caps, clean_after):
    out = net("--topo", "mesh:rows=2,cols=2", "--loss", "0.01",
              stdin=f"help join\njoin h3 {G}\nsend h0 {G} 2\nexit\n")
    assert out.returncode == 0, out.stderr
    assert "join HOST GROUP: HOST joins GROUP" in out.stdout  # cmd's help: stdout
    assert send_tables(out.stderr)[0]["h3"][0] == "member"
    for bad, message in ((["--loss", "5"], "--loss is a fraction"),
                         (["--script", "/nonexistent"], "--script: no such file"),
                         (["--topo", "blob"], "unknown topology shape")):
        res = net(*bad, timeout=60)
        assert res.returncode == 2, res
        assert res.stderr.strip().splitlines()[-1].startswith("mcastlab: error:"), res.stderr
        assert message in res.stderr
