"""`mcastlab net`: the interactive network driven non-interactively (a script file, and
standard input), on the real stack: joins become the controller's groups and trees, a send
reaches members only, leave prunes, loss (host links and switch links), fail/restore, capture
to a pcap, a broadcast timed per rank, bad commands."""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

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


def test_script_joins_sends_draws_times_every_rank_and_tears_down(caps, clean_after, tmp_path):
    """One script on a 4-host star: joins, sends, the tree drawn, a capture, leave, fail and
    restore, loss, bad commands; then broadcasts timed per rank (a test of its own brought
    the same star up again for them: 3 s)."""
    png, pcap = tmp_path / "tree.png", tmp_path / "h1.pcap"
    script = tmp_path / "lab.txt"
    script.write_text("\n".join([
        f"join h1 {G}", f"join h2 {G}", f"capture h1 {pcap}",
        f"send h0 {G} 3", "groups", f"tree {G} {png}",
        "capture h1 stop", f"leave h2 {G}", f"wait h2 left {G}", f"send h0 {G} 3",
        "fail h3", "restore h3", "loss 0.3 h1", "loss 0",
        f"join h9 {G}", "join h1 10.0.0.1", f"leave h3 {G}", "loss 7", "fail",
        "capture h1 stop", f"wait h2 joined {G} 0.5", f"wait h2 gone {G}", *BCASTS]) + "\n")
    # group-specific queries 0.25 s apart: h2 is pruned 0.5 s after its leave (2 s at the
    # default 1 s); the script waits for that
    out = net("--topo", "star", "--hosts", "4", "--bw", "100", "--last-member-interval",
              "0.25", "--script", str(script))
    assert out.returncode == 0, out.stderr
    text = out.stderr  # Mininet's CLI writes through its logger, to standard error
    first, second = send_tables(text)
    assert first["h0"][0] == "sender"
    assert first["h1"] == ("member", "3", "3") and first["h2"] == ("member", "3", "3")
    assert first["h3"] == ("-", "0", "-")  # the switch kept it off h3's wire
    took = re.search(rf"the controller stopped listing h2 in {G} after ([\d.]+) s", text)
    assert took and 0.3 < float(took[1]) < 10, text  # two queries 0.25 s apart, unanswered
    # after h2's leave the controller pruned its port: nothing reaches h2's wire
    assert second["h1"] == ("member", "3", "3") and second["h2"] == ("-", "0", "-")
    assert re.search(rf"{G}  members: h1 \(s\d+:\d+, expires in [\d.]+ s\), h2", text), text
    assert re.search(r"from h0: tree s\d+->", text), text
    assert re.search(r"from h0: s\d+->h1, s\d+->h2", text), text
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"
    from scapy.all import UDP, rdpcap

    to_group = [p for p in rdpcap(str(pcap)) if UDP in p and p["IP"].dst == G]
    assert len(to_group) == 3, len(to_group)
    assert "failed nodes: 3" in text and "failed nodes: none" in text
    assert "loss 30% on h1" in text and "loss 0% on every host link" in text
    errors = errors_of(text)
    assert len(errors) == 8 + 3, errors
    assert "no host 'h9'" in errors[0] and "not a routable multicast group" in errors[1]
    assert "h3 is not a member" in errors[2] and "[0, 1]" in errors[3]
    assert "usage: fail HOST" in errors[4] and "no capture runs on h1" in errors[5]
    assert f"does not list h2 in {G} after 0.5 s" in errors[6]
    assert "'gone' is neither 'joined' nor 'left'" in errors[7]
    bcasts_time_every_rank(text, errors[8:])


def test_prompt_on_standard_input_and_bad_options(caps, clean_after):
    out = net("--topo", "mesh:rows=2,cols=2,bw=100", "--loss", "0.01",
              stdin=f"help join\njoin h3 {G}\nsend h0 {G} 2\nexit\n")
    assert out.returncode == 0, out.stderr
    assert "join HOST GROUP: HOST joins GROUP" in out.stdout  # cmd's help: stdout
    assert send_tables(out.stderr)[0]["h3"][0] == "member"
    bad = ((["--loss", "5"], "(500% of the packets) is not a fraction"),
           (["--script", "/nonexistent"], "--script: no such file"),
           (["--topo", "blob"], "unknown topology shape"))
    # each refused before any network comes up: all at once (each is mostly its start)
    with ThreadPoolExecutor(len(bad)) as pool:
        refused = list(pool.map(lambda b: net(*b[0], timeout=60), bad))
    for (_args, message), res in zip(bad, refused, strict=True):
        assert res.returncode == 2, res
        last = res.stderr.strip().splitlines()[-1]  # argparse's own, or the command's
        assert last.startswith(("mcastlab net: error:", "mcastlab: error:")), res.stderr
        assert message in res.stderr


def errors_of(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("*** error:")]


def rank_rows(text: str) -> dict[str, tuple[int, float, float]]:
    """The per-rank table of the first `bcast` report: host -> (rank, holds, returns) in us."""
    rows = {}
    for m in re.finditer(r"^ +(\d+) +(h\d+) +(\d+) us +(\d+) us$", text, re.M):
        rows.setdefault(m[2], (int(m[1]), float(m[3]), float(m[4])))
    return rows


BCASTS = ["bcast binomial 4096", "bcast nope 4096", "bcast binomial 4096 9",
          "bcast chain 4096 h2 h0", "bcast chain 4096 h1 h1"]


def bcasts_time_every_rank(text: str, errors: list[str]) -> None:
    """BCASTS' reports in `text` and their `errors`: every rank timed, bad ones refused."""
    head = re.search(r"binomial 4096 B from h0 to 4 hosts \(5 broadcasts, bytes verified\): "
                     r"t_mcast median (\d+) us, model (\d+) us", text)
    assert head, text
    rows = rank_rows(text)
    assert sorted(rows) == ["h0", "h1", "h2", "h3"], text
    assert [rows[h][0] for h in ("h0", "h1", "h2", "h3")] == [0, 1, 2, 3]
    assert rows["h0"][1] < 200, rows  # the root holds the message from its start
    for host, (_rank, holds, returns) in rows.items():
        assert holds <= returns + 1, (host, rows)  # it holds the message before returning
        if host != "h0":
            assert holds > 0, (host, rows)
    # t_mcast is the median of each broadcast's last return: no rank's median beyond it
    assert max(r for _, _, r in rows.values()) <= int(head[1]) + 1, (head[0], rows)
    assert len(errors) == 3, errors
    assert "unknown broadcast 'nope'; choose from mpich," in errors[0] and "binomial" in errors[0]
    assert "N must be 1 to 4" in errors[1]
    assert "a host is named twice" in errors[2]
    # named hosts: the first is the root
    assert re.search(r"chain 4096 B from h2 to 2 hosts .*bytes verified", text), text


def test_loss_on_a_switch_link(caps, clean_after, tmp_path):
    # tree-2x2: h0 and h1 on s2, h2 and h3 on s3, both under s1. Cutting s1-s2 keeps h0's
    # datagrams on s2: h1 still gets them, h2 and h3 nothing; restoring brings them back.
    script = tmp_path / "linkloss.txt"
    script.write_text("\n".join([
        f"join h1 {G}", f"join h2 {G}", f"join h3 {G}", f"send h0 {G} 3",
        "loss 100% s1 s2", f"send h0 {G} 3", "loss 0 s2 s1", f"send h0 {G} 3",
        "loss 0.5 s1 s9", "loss 0.5 s2 s3", "loss 0.5 s1", "loss 0.5 h0 s2"]) + "\n")
    out = net("--topo", "tree:leaves=2,hosts_per_leaf=2,bw=100", "--script", str(script))
    assert out.returncode == 0, out.stderr
    text = out.stderr
    before, cut, restored = send_tables(text)
    member = ("member", "3", "3")
    assert before["h1"] == before["h2"] == before["h3"] == member, before
    assert cut["h1"] == member, cut  # same switch as the sender: unaffected
    assert cut["h2"] == cut["h3"] == ("member", "0", "0"), cut
    assert restored["h1"] == restored["h2"] == restored["h3"] == member, restored
    assert "loss 100% on the link s1-s2 (each way)" in text
    assert "loss 0% on the link s2-s1 (each way)" in text
    errors = errors_of(text)
    assert len(errors) == 4, errors
    assert "no switch 's9' (switches: s1, s2, s3)" in errors[0]
    assert "no link between s2 and s3 (s2 links to s1)" in errors[1]
    assert "s1 is a switch" in errors[2] and "s2 is a switch" in errors[3]
