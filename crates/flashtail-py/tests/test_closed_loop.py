"""The closed-loop host interface from Python (closed_loop= and timing= on run / compare /
sweep): the command line's numbers byte for byte, bandwidth above open loop's when the
trace's arrivals no longer pace the device, and the command line's errors."""

import json
import subprocess

import pytest

import flashtail

GEN = dict(device="tiny", gen="bench-ref", gen_count=3000)
CLI_GEN = ["--device", "tiny", "--gen", "bench-ref", "--gen-count", "3000"]


def _all(r, scheme="base"):
    s = r.summary
    return s[(s.scheme == scheme) & (s.op == "all")].iloc[0]


def test_closed_loop_is_the_cli_run(cli, tmp_path):
    r = flashtail.compare(["base"], closed_loop="4x2", timing="ignore", no_cost=True, **GEN)
    subprocess.run([cli, "compare", "--schemes", "base", "--closed-loop", "4x2", "--timing", "ignore", "--no-cost",
                    "--out", str(tmp_path), *CLI_GEN], check=True, capture_output=True)
    assert (tmp_path / "summary.csv").read_text() == r.summary_csv
    report = r.reports[0]
    cli_report = json.loads((tmp_path / "summary.json").read_text())["reports"][0]
    assert report["throughput"] == cli_report["throughput"]
    assert report["throughput"]["host_interface"] == "closed loop, QD 4 × 2 queues, ignore timing"
    assert report["config"]["host"]["queues"] == 2
    # A queue depth as a number is the same run; run() takes the same arguments.
    again = flashtail.run("base", closed_loop=4, timing="ignore", no_cost=True, **GEN)
    one_queue = flashtail.run("base", closed_loop="4x1", timing="ignore", no_cost=True, **GEN)
    assert again.summary_csv == one_queue.summary_csv
    assert again.reports[0]["throughput"]["host_interface"] == "closed loop, QD 4 × 1 queue, ignore timing"


def test_closed_loop_bandwidth_exceeds_open_loop_when_arrivals_stop_pacing():
    # The bundled DTRS slice's first 30 s: open loop moves its bytes over the 30 s of
    # arrivals; closed loop ignoring the timestamps issues each request as a slot frees, so
    # the same bytes take a fraction of the time.
    open_loop = flashtail.run("base", window=(0, 30))
    closed = flashtail.run("base", window=(0, 30), closed_loop="32x4", timing="ignore")
    paced = flashtail.run("base", window=(0, 30), closed_loop="32x4")  # trace timing: a lower bound
    o, c, p = (x.reports[0]["throughput"] for x in (open_loop, closed, paced))
    assert c["read_bytes"] == o["read_bytes"] and c["write_bytes"] == o["write_bytes"]
    assert c["all_mb_per_s"] > 5 * o["all_mb_per_s"], (c, o)
    assert _all(closed)["mb_per_s"] == pytest.approx(c["all_mb_per_s"])
    # With the trace's timing and 128 slots the device keeps up: within 1 % of open loop.
    assert p["all_mb_per_s"] == pytest.approx(o["all_mb_per_s"], rel=0.01)
    assert p["span_ns"] >= o["span_ns"]


def test_closed_loop_sweep(tmp_path):
    spec = {"schemes": ["base"], "devices": ["tiny"], "seeds": {"start": 1, "stop": 1},
            "workloads": [{"gen": "bench-ref", "count": 3000}]}
    closed = flashtail.sweep(spec, out=tmp_path / "closed", closed_loop="4x2", timing="ignore").table
    open_loop = flashtail.sweep(spec, out=tmp_path / "open").table
    # The spec's own [run] gives the same table as the keywords.
    in_spec = flashtail.sweep(dict(spec, run={"closed_loop": "4x2", "timing": "ignore"}), out=tmp_path / "spec").table
    assert in_spec.equals(closed)

    def mbps(t):
        return t[(t.op == "all") & (t.stat == "mb_per_s")].value.iloc[0]

    # 8 slots issued as they free move the same 3000 requests 3.6x faster than their arrivals
    # (36.9 against 10.1 MB/s); with the trace's timing and 64 slots the device keeps up and
    # every value is open loop's (the point ids differ: the host interface is part of them).
    assert mbps(closed) > 3 * mbps(open_loop), (mbps(closed), mbps(open_loop))
    paced = flashtail.sweep(spec, out=tmp_path / "paced", closed_loop=64).table
    assert paced.point.iloc[0] != open_loop.point.iloc[0]
    assert paced[["scheme", "op", "stat", "value"]].equals(open_loop[["scheme", "op", "stat", "value"]])


def test_closed_loop_errors_are_the_cli_messages(cli_error):
    with pytest.raises(flashtail.FlashtailError) as e:
        flashtail.run("base", closed_loop="4x0", **GEN)
    assert str(e.value) == cli_error("run", "--scheme", "base", "--closed-loop", "4x0", *CLI_GEN)
    with pytest.raises(flashtail.FlashtailError) as e:
        flashtail.run("base", closed_loop="deep", **GEN)
    assert str(e.value) == cli_error("run", "--scheme", "base", "--closed-loop", "deep", *CLI_GEN)
    with pytest.raises(flashtail.FlashtailError, match="timing applies to a closed loop"):
        flashtail.run("base", timing="ignore", **GEN)
    with pytest.raises(flashtail.FlashtailError, match="unknown issue timing 'later'"):
        flashtail.run("base", closed_loop=8, timing="later", **GEN)
    with pytest.raises(flashtail.FlashtailError, match="timing applies to a closed loop"):
        flashtail.sweep({"schemes": ["base"], "devices": ["tiny"], "workloads": [{"gen": "bench-ref", "count": 10}]},
                        out="unused", timing="ignore")
