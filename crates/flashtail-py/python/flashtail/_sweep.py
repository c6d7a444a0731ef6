"""Parameter sweeps from Python, on this machine or on a Ray cluster.

``backend="local"`` runs the whole sweep in the compiled library (threads over points, as
``flashtail sweep`` does). ``backend="ray"`` runs one Ray task per point: each task calls the
compiled module's per-point function, the driver gathers the rows and the library assembles
and writes the same tables (a point that fails is listed in ``failures`` and the others are
kept). Ray is imported only for ``backend="ray"``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Callable, List, Mapping, Optional, Tuple, Union

from . import _native
from ._results import frame

Spec = Union[str, "os.PathLike[str]", Mapping[str, Any]]


class SweepResult:
    """The tables of a sweep (also written to ``out``: table.csv/.parquet, ci.csv/.parquet)."""

    def __init__(self, out: str, table_csv: str, ci_csv: str, failures: List[Tuple[str, str]], wall_seconds: float):
        self.out = out
        self.table_csv = table_csv
        self.ci_csv = ci_csv
        #: (point, error) of every point that failed.
        self.failures = list(failures)
        self.wall_seconds = wall_seconds

    @property
    def table(self) -> Any:
        """The tidy long table: one row per point x scheme x op x statistic."""
        return frame(self.table_csv)

    @property
    def ci(self) -> Any:
        """Across seeds: mean, std and bootstrap interval (ci_low, ci_high) per statistic."""
        return frame(self.ci_csv)

    def __repr__(self) -> str:
        return f"<flashtail.SweepResult: {self.out}, {len(self.failures)} failed points>"


def _spec_args(spec: Spec) -> Tuple[str, str, str]:
    """(kind, text, base folder) for the compiled module."""
    if isinstance(spec, Mapping):
        return "json", json.dumps(dict(spec)), os.getcwd()
    text = os.fspath(spec)
    if isinstance(spec, str) and "\n" in text and not os.path.exists(text):
        return "toml", text, os.getcwd()
    return "file", text, os.path.dirname(os.path.abspath(text))


def _point_task(spec_json: str, base: str, index: int) -> Tuple[Optional[str], Optional[str]]:
    """One point, inside a Ray task: (rows as JSON, None) or (None, the error)."""
    from flashtail import _native as native

    try:
        return native.sweep_run_point(spec_json, base, index), None
    except Exception as e:  # noqa: BLE001 - every error of a point is reported, not raised
        return None, str(e)


def _run_ray(kind: str, text: str, base: str, out: str, resume: bool, address: Optional[str],
             num_cpus: Optional[int], task_cpus: float, progress: Optional[Callable[[str], None]],
             closed_loop: Optional[str], timing: Optional[str]):
    import ray

    started = time.monotonic()
    started_here = False
    if not ray.is_initialized():
        if address is None:
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started_here = True
    try:
        spec_json, total, pending = _native.sweep_plan(kind, text, base, out, resume, closed_loop, timing)
        task = ray.remote(num_cpus=task_cpus, max_retries=0)(_point_task)
        refs = {task.remote(spec_json, base, i): i for i in pending}
        results = []
        waiting = list(refs)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            ref = done[0]
            i = refs[ref]
            try:
                rows, error = ray.get(ref)
            except Exception as e:  # a worker that died, a task Ray could not run
                rows, error = None, f"ray: {e}"
            results.append((i, rows, error))
            if progress is not None:
                failed = sum(1 for r in results if r[1] is None)
                progress(f"sweep: {total - len(pending) + len(results)}/{total} points "
                         f"({total - len(pending)} resumed, {failed} failed), {time.monotonic() - started:.1f} s")
        return _native.sweep_finish(spec_json, base, out, results, time.monotonic() - started)
    finally:
        if started_here:
            ray.shutdown()


def sweep(
    spec: Spec,
    *,
    out: Union[str, "os.PathLike[str]"] = "flashtail-sweep",
    backend: str = "local",
    jobs: Optional[int] = None,
    resume: bool = False,
    address: Optional[str] = None,
    num_cpus: Optional[int] = None,
    task_cpus: float = 1,
    progress: Optional[Callable[[str], None]] = None,
    closed_loop: Optional[Union[str, int]] = None,
    timing: Optional[str] = None,
) -> SweepResult:
    """Runs a sweep spec (a TOML file's path, TOML text, or a dict of the same keys; see
    docs/sweeps.md) and writes its tables into ``out``.

    ``backend="local"``: this machine, ``jobs`` threads (default: one per core).
    ``backend="ray"``: one Ray task per point, each asking ``task_cpus`` CPUs; joins the
    cluster at ``address`` (e.g. ``"auto"`` or ``"ray://head:10001"``) or, when Ray is not
    initialised and no address is given, starts a local one with ``num_cpus`` CPUs.
    ``resume=True`` reuses the points recorded in ``out`` by an earlier run of the same spec.
    ``closed_loop`` (``32`` or ``"32x8"``) and ``timing`` (``"trace"`` or ``"ignore"``), when
    given, replace the spec's ``[run]`` ``closed_loop`` and ``timing`` (as ``compare`` takes them).
    """
    from . import _closed_loop

    kind, text, base = _spec_args(spec)
    closed_loop = _closed_loop(closed_loop)
    out = os.fspath(out)
    if backend == "local":
        if address is not None or num_cpus is not None:
            raise _native.FlashtailError("address and num_cpus are for backend='ray'")
        tables = _native.sweep_local(kind, text, base, out, jobs, resume, closed_loop, timing)
    elif backend == "ray":
        if jobs is not None:
            raise _native.FlashtailError("jobs is for backend='local' (Ray places one task per point; see num_cpus, task_cpus)")
        tables = _run_ray(kind, text, base, out, resume, address, num_cpus, task_cpus, progress, closed_loop, timing)
    else:
        raise _native.FlashtailError(f"unknown backend '{backend}' (local or ray)")
    return SweepResult(out, *tables)


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m flashtail sweep SPEC [--out DIR] [--backend local|ray] [--jobs N]
    [--resume] [--address ADDR] [--num-cpus N]``: the command line's ``sweep``, with Ray."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m flashtail", description="flashtail from Python")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("sweep", help="run a parameter sweep from a TOML spec")
    sp.add_argument("spec")
    sp.add_argument("--out", default="flashtail-sweep")
    sp.add_argument("--backend", default="local", choices=["local", "ray"])
    sp.add_argument("--jobs", type=int)
    sp.add_argument("--resume", action="store_true")
    sp.add_argument("--address", help="Ray cluster to join (default: start a local one)")
    sp.add_argument("--num-cpus", type=int, help="CPUs of the local Ray cluster started for the run")
    a = ap.parse_args(argv)
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        r = sweep(a.spec, out=a.out, backend=a.backend, jobs=a.jobs, resume=a.resume, address=a.address,
                  num_cpus=a.num_cpus, progress=say if a.backend == "ray" else None)
    except _native.FlashtailError as e:
        say(f"error: {e}")
        return 2
    for point, error in r.failures:
        say(f"error: {point}: {error}")
    for name in ("table.csv", "table.parquet", "ci.csv", "ci.parquet"):
        print(f"wrote {os.path.join(a.out, name)}")
    rows = r.table_csv.count("\n") - 1
    print(f"{rows} rows, {len(r.failures)} failed points, in {r.wall_seconds:.2f} s wall time ({a.backend})")
    return 1 if r.failures else 0
