"""flashtail.run / compare / trace_stats: the same numbers, columns and errors as the
command line, results as DataFrames, the GIL released during runs, Ctrl-C stopping them."""

import _thread
import subprocess
import threading
import time

import pandas as pd
import pytest

import flashtail

SUMMARY_COLUMNS = ["scheme", "op", "count"] + [f"{s}_ns" for s in ("mean", "p50", "p90", "p99", "p99_9", "p99_99", "p99_999", "max")] \
    + [f"{s}_ratio" for s in ("mean", "p50", "p90", "p99", "p99_9", "p99_99", "p99_999", "max")] \
    + ["waf", "erases", "gc_pages_migrated", "mb_per_s", "iops", "share_waited_on_gc", "thin"]

SHORT = dict(schemes=["nogc", "base"], window=(0, 30))


@pytest.fixture(scope="module")
def default_compare():
    return flashtail.compare()


def test_default_compare_is_the_cli_default_job(default_compare, cli, tmp_path):
    r = default_compare
    s = r.summary
    assert list(s.columns) == SUMMARY_COLUMNS
    assert r.schemes[:3] == ["nogc", "base", "preemptive"]
    assert len(r.schemes) == 14 and len(s) == 14 * 3
    reads = s[(s.scheme == "nogc") & (s.op == "read")].iloc[0]
    assert reads["count"] == 113123
    assert len(r.notes) == 4 and r.notes[0].startswith("note: wla-gc left out")
    # The command line's default compare writes the same summary.csv and cdf.csv, byte for byte.
    subprocess.run([cli, "compare", "--out", str(tmp_path), "--no-cost"], check=True, capture_output=True)
    assert (tmp_path / "summary.csv").read_text() == r.summary_csv
    assert (tmp_path / "cdf.csv").read_text() == r.cdf_csv
    assert pd.read_csv(tmp_path / "summary.csv").equals(s)


def test_result_frames(default_compare):
    r = default_compare
    cdf = r.cdf
    assert list(cdf.columns) == ["scheme", "op", "latency_ns", "cdf"]
    base_reads = cdf[(cdf.scheme == "base") & (cdf.op == "read")]
    assert base_reads.cdf.is_monotonic_increasing and base_reads.cdf.iloc[-1] == 1.0
    w = r.waits
    assert list(w.columns) == ["scheme", "cause", "wait_ns", "share"]
    base = w[w.scheme == "base"].set_index("cause")
    assert base.loc["gc_copy", "wait_ns"] > 0
    assert abs(base.share.sum() - 1.0) < 1e-9
    assert (w[w.scheme == "nogc"].set_index("cause").loc["gc_copy", "wait_ns"]) == 0
    f = r.flash
    erases = f[(f.scheme == "base") & (f.counter == "erases")].value.iloc[0]
    assert erases == r.summary[(r.summary.scheme == "base") & (r.summary.op == "all")].erases.iloc[0]
    assert r.json["meta"]["config"]["seed"] == 1
    assert r.reports[1]["scheme"] == "base"


def test_overrides_device_dict_and_run(cli, tmp_path):
    a = flashtail.run("base", window=(0, 30), set={"ftl.over_provisioning": 0.2})
    b = flashtail.run("base", window=(0, 30))
    assert a.schemes == ["base"]
    assert a.json["meta"]["config"]["device"]["ftl"]["over_provisioning"] == 0.2
    # A device given as a dict runs as the preset it came from.
    d = flashtail.device("dtrs-demo")
    d["ftl"]["over_provisioning"] = 0.2
    c = flashtail.run("base", window=(0, 30), device=d)
    assert c.summary.equals(a.summary)
    assert not a.summary.equals(b.summary)
    # And as the command line runs it.
    subprocess.run([cli, "compare", "--schemes", "base", "--window", "0:30", "--set", "ftl.over_provisioning=0.2",
                    "--out", str(tmp_path), "--no-cost"], check=True, capture_output=True)
    assert (tmp_path / "summary.csv").read_text() == a.summary_csv


def test_generated_workload_and_seed():
    a = flashtail.compare(["nogc", "base"], device="tiny", gen="rlgc-oltp", gen_count=2000)
    b = flashtail.compare(["nogc", "base"], device="tiny", gen="rlgc-oltp", gen_count=2000, gen_seed=9)
    assert a.summary[a.summary.op == "all"]["count"].tolist() == [2000, 2000]
    assert not a.summary.equals(b.summary)


def test_errors_are_the_cli_messages(cli_error):
    with pytest.raises(flashtail.FlashtailError) as e:
        flashtail.compare(["base", "turbo"], window=(0, 1))
    assert str(e.value) == cli_error("compare", "--schemes", "base,turbo", "--window", "0:1")
    with pytest.raises(ValueError) as e:
        flashtail.run("base", set={"ftl.nope": 1})
    assert str(e.value) == cli_error("run", "--scheme", "base", "--set", "ftl.nope=1")
    with pytest.raises(flashtail.FlashtailError) as e:
        flashtail.run("base", trace="/no/such/trace.csv")
    assert str(e.value) == cli_error("run", "--scheme", "base", "--trace", "/no/such/trace.csv")
    with pytest.raises(flashtail.FlashtailError, match="is neither a preset"):
        flashtail.run(device="nope")


def test_trace_stats_of_the_bundled_slice():
    st = flashtail.trace_stats()
    assert st["stats"]["requests"] == 127043
    assert st["stats"]["reads"] == 113123
    assert abs(st["stats"]["idle_share_gt_10ms"] - 0.196) < 0.001


def test_runs_release_the_gil():
    done = threading.Event()
    counted = [0]

    def count():
        while not done.is_set():
            counted[0] += 1

    t = threading.Thread(target=count)
    t.start()
    started = time.monotonic()
    flashtail.compare(["nogc", "base"], loops=2)
    seconds = time.monotonic() - started
    done.set()
    t.join()
    # A pure-Python loop kept running throughout (it would stall if the run held the GIL).
    assert seconds > 0.2 and counted[0] > 100_000, (seconds, counted[0])


def test_ctrl_c_stops_a_run():
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        flashtail.compare(["base", "nogc"], loops=500)  # minutes of work
    assert time.monotonic() - started < 15
