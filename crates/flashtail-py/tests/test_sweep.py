"""flashtail.sweep: the same tables from the command line, the local backend and a real
local Ray cluster (two worker CPUs); resume; a failing point among good ones."""

import os
import subprocess
import time

import pandas as pd
import pytest

import flashtail

TINY = {
    "schemes": ["base", "nogc"],
    "devices": ["tiny"],
    "seeds": {"start": 1, "stop": 2},
    "workloads": [{"gen": "rlgc-oltp", "count": 3000}],
    "set": {"ftl.over_provisioning": [0.1, 0.2]},
}


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_local_sweep_of_a_dict_spec(tmp_path):
    r = flashtail.sweep(TINY, out=tmp_path / "out")
    t = r.table
    assert list(t.columns) == ["point", "device", "workload", "ftl.over_provisioning", "seed", "scheme", "op", "stat", "value"]
    assert len(t) == 4 * 2 * 39 and r.failures == []
    assert sorted(t["ftl.over_provisioning"].unique()) == [0.1, 0.2]
    assert t[(t.op == "all") & (t.stat == "count")].value.unique().tolist() == [3000]
    # The files are the returned tables; Parquet and CSV agree.
    assert (tmp_path / "out" / "table.csv").read_text() == r.table_csv
    assert pd.read_parquet(tmp_path / "out" / "table.parquet").equals(pd.read_csv(tmp_path / "out" / "table.csv"))
    ci = r.ci
    row = ci[(ci.scheme == "base") & (ci.op == "all") & (ci.stat == "p99_ns") & (ci["ftl.over_provisioning"] == 0.1)].iloc[0]
    seeds = t[(t.scheme == "base") & (t.op == "all") & (t.stat == "p99_ns") & (t["ftl.over_provisioning"] == 0.1)].value
    assert row.seeds == 2 and row["mean"] == seeds.mean()
    assert seeds.min() <= row.ci_low <= row["mean"] <= row.ci_high <= seeds.max()


def test_resume_and_a_failing_point(tmp_path):
    spec = dict(TINY, set={"ftl.over_provisioning": [0.1, 7.0]})
    r = flashtail.sweep(spec, out=tmp_path)
    assert len(r.failures) == 2
    assert r.failures[0][0].startswith("point 2 (device=tiny workload=gen:rlgc-oltp ftl.over_provisioning=7.0 seed=1)")
    assert "over_provisioning" in r.failures[0][1]
    assert len(r.table) == 2 * 2 * 39
    again = flashtail.sweep(spec, out=tmp_path, resume=True)
    assert again.table_csv == r.table_csv


def test_spec_errors_are_raised():
    with pytest.raises(flashtail.FlashtailError, match="unknown field `sedes`"):
        flashtail.sweep(dict(TINY, sedes=[1]), out="unused")
    with pytest.raises(flashtail.FlashtailError, match="unknown backend 'spark'"):
        flashtail.sweep(TINY, backend="spark")


def test_ray_runs_on_at_least_two_worker_processes(ray_cluster):
    ray = ray_cluster
    assert ray.cluster_resources()["CPU"] == 2

    @ray.remote(num_cpus=1)
    def pid():
        time.sleep(1)
        return os.getpid()

    pids = set(ray.get([pid.remote() for _ in range(4)]))
    assert len(pids) >= 2 and os.getpid() not in pids


def test_ray_failing_point_is_reported_and_the_rest_kept(ray_cluster, tmp_path):
    spec = dict(TINY, set={"ftl.over_provisioning": [0.1, 7.0]})
    local = flashtail.sweep(spec, out=tmp_path / "local")
    r = flashtail.sweep(spec, out=tmp_path / "ray", backend="ray")
    assert r.table_csv == local.table_csv
    assert r.failures == local.failures


def test_the_op_seed_sweep_is_identical_through_cli_python_and_ray(ray_cluster, cli, repo, tmp_path):
    """2 schemes × 3 OP values × 3 seeds on the bundled DTRS slice (docs/examples)."""
    spec = repo / "docs" / "examples" / "sweep-op-seeds.toml"
    timings = {}
    started = time.monotonic()
    subprocess.run([cli, "sweep", str(spec), "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    timings["cli"] = time.monotonic() - started
    started = time.monotonic()
    local = flashtail.sweep(spec, out=tmp_path / "local")
    timings["python"] = time.monotonic() - started
    started = time.monotonic()
    ray = flashtail.sweep(spec, out=tmp_path / "ray", backend="ray")
    timings["ray"] = time.monotonic() - started
    print(f"\nsweep wall time (s): {timings}")
    cli_table = (tmp_path / "cli" / "table.csv").read_text()
    assert local.table_csv == cli_table and ray.table_csv == cli_table
    assert local.ci_csv == ray.ci_csv == (tmp_path / "cli" / "ci.csv").read_text()
    for name in ("table.parquet", "ci.parquet"):
        b = (tmp_path / "cli" / name).read_bytes()
        assert (tmp_path / "local" / name).read_bytes() == b == (tmp_path / "ray" / name).read_bytes()
    t = local.table
    assert len(t) == 9 * 2 * 39 and t.point.nunique() == 9 and list(t.seed.unique()) == [1, 2, 3]
    print(t.head(8).to_string())
