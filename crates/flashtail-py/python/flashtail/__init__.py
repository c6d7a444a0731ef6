"""flashtail: a trace-driven SSD simulator for garbage-collection tail latency, from Python.

The simulations run in the compiled Rust library (``flashtail._native``), the same code as
the ``flashtail`` command line; this package turns its outputs into pandas DataFrames.

    import flashtail
    r = flashtail.compare()                 # every scheme on the bundled DTRS slice, dtrs-demo
    r.summary                               # = summary.csv
    flashtail.run(scheme="ttflash", set={"ftl.over_provisioning": 0.2}).summary
    flashtail.sweep("sweep.toml")           # a parameter sweep (backend="ray" for a cluster)

See docs/python.md.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _native
from ._native import FlashtailError
from ._results import Result
from ._sweep import SweepResult, sweep

__all__ = [
    "FlashtailError",
    "Result",
    "SweepResult",
    "compare",
    "device",
    "presets",
    "run",
    "schemes",
    "sweep",
    "trace_stats",
]
__version__ = _native.__version__

Device = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _override_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _overrides(set: Optional[Union[Mapping[str, Any], Iterable[str]]]) -> list:
    """``{"ftl.over_provisioning": 0.2}`` or ``["ftl.over_provisioning=0.2"]`` as --set args."""
    if set is None:
        return []
    if isinstance(set, Mapping):
        return [f"{k}={_override_text(v)}" for k, v in set.items()]
    if isinstance(set, str):
        raise FlashtailError("set: give a dict {key: value} or a list of 'key=value' strings, not one string")
    return [str(s) for s in set]


def _workload(trace, gen, gen_count, gen_seed, format, time_unit, time_scale, window, loops) -> dict:
    if trace is not None and gen is not None:
        raise FlashtailError("give a trace or a generator (gen=...), not both")
    w: dict = {}
    if trace is not None:
        w["trace"] = os.fspath(trace)
    if gen is not None:
        w["gen"] = gen
    for key, value in (("count", gen_count), ("seed", gen_seed), ("format", format), ("time_unit", time_unit),
                       ("time_scale", time_scale), ("loops", loops)):
        if value is not None:
            w[key] = value
    if window is not None:
        w["window"] = [float(window[0]), float(window[1])]
    return w


def _without_none(value: Any) -> Any:
    """A device dict as TOML can hold it: keys whose value is None are left out (unset)."""
    if isinstance(value, Mapping):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_without_none(v) for v in value]
    return value


def _closed_loop(value: Optional[Union[str, int]]) -> Optional[str]:
    """``32``, ``"32"`` or ``"32x8"`` as ``--closed-loop`` takes it."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise FlashtailError("closed_loop: give a queue depth (32) or 'QDxQUEUES' ('32x8'), not a bool")
    return str(value)


def _device_fields(device: Optional[Device]) -> dict:
    if device is None:
        return {}
    if isinstance(device, Mapping):
        return {"device_dict": _without_none(device)}
    return {"device": os.fspath(device)}


def compare(
    schemes: Optional[Sequence[str]] = None,
    *,
    device: Optional[Device] = None,
    set: Optional[Union[Mapping[str, Any], Iterable[str]]] = None,
    trace: Optional[Union[str, "os.PathLike[str]"]] = None,
    gen: Optional[str] = None,
    gen_count: Optional[int] = None,
    gen_seed: Optional[int] = None,
    format: Optional[str] = None,
    time_unit: Optional[float] = None,
    time_scale: Optional[float] = None,
    window: Optional[Sequence[float]] = None,
    loops: Optional[int] = None,
    victim: Optional[str] = None,
    interconnect: Optional[str] = None,
    seed: int = 1,
    oracle: bool = True,
    latency: str = "exact",
    power_loss_every: int = 0,
    power_cut_at: Sequence[int] = (),
    no_cost: bool = False,
    closed_loop: Optional[Union[str, int]] = None,
    timing: Optional[str] = None,
) -> Result:
    """Several GC schemes on one device and workload, as ``flashtail compare`` runs them.

    Defaults are the command line's: every scheme that differs on the device and workload,
    the bundled DTRS slice, the ``dtrs-demo`` device, seed 1, the oracle on. ``device`` is a
    preset name, a TOML path or a dict (the keys of ``flashtail.device(name)``); ``set`` holds
    overrides. ``closed_loop`` (``32`` or ``"32x8"``: queue depth and queues) replays closed
    loop as ``--closed-loop`` does, with ``timing`` ``"trace"`` (the default: the trace's
    arrivals are a lower bound) or ``"ignore"`` (``--timing``); without it, open loop.
    Raises ``FlashtailError`` (a ``ValueError``) with the command line's message.
    """
    if isinstance(schemes, str):
        schemes = [s for s in schemes.split(",")]
    request = {
        **_device_fields(device),
        "set": _overrides(set),
        "workload": _workload(trace, gen, gen_count, gen_seed, format, time_unit, time_scale, window, loops),
        "schemes": list(schemes or []),
        "victim": victim,
        "interconnect": interconnect,
        "seed": int(seed),
        "oracle": bool(oracle),
        "latency": latency,
        "power_loss_every": int(power_loss_every),
        "power_cut_at": [int(n) for n in power_cut_at],
        "no_cost": bool(no_cost),
        "closed_loop": _closed_loop(closed_loop),
        "timing": timing,
    }
    summary_json, summary_csv, cdf_csv, notes = _native.compare(json.dumps(request))
    return Result(summary_json, summary_csv, cdf_csv, notes)


def run(scheme: str = "base", **kwargs: Any) -> Result:
    """One GC scheme (``flashtail run --scheme``); takes ``compare``'s keyword arguments."""
    return compare([scheme], **kwargs)


def trace_stats(
    path: Optional[Union[str, "os.PathLike[str]"]] = None,
    *,
    format: Optional[str] = None,
    time_unit: Optional[float] = None,
) -> dict:
    """``flashtail trace stats --json`` of a trace (default: the bundled DTRS slice):
    ``{"stats": {...}, "source": {...}}``."""
    options = _workload(None, None, None, None, format, time_unit, None, None, None)
    text = _native.trace_stats(None if path is None else os.fspath(path), json.dumps(options))
    return json.loads(text)


def presets() -> list:
    """The bundled device presets' names."""
    return [name for name, _ in _native.presets()]


def device(name: str) -> dict:
    """A bundled preset as a dict: change it and pass it as ``device=``."""
    for n, text in _native.presets():
        if n == name:
            return json.loads(text)
    raise FlashtailError(f"unknown device preset '{name}' (known: {', '.join(presets())})")


def schemes() -> "Any":
    """The GC schemes of this build, as a DataFrame (name, description)."""
    import pandas as pd

    return pd.DataFrame(_native.schemes(), columns=["scheme", "description"])
