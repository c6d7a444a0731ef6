"""Result objects: the outputs of one comparison as pandas DataFrames.

``summary`` and ``cdf`` are ``summary.csv`` and ``cdf.csv`` exactly (same columns, same
values: they are parsed from the text the command line writes); ``waits`` and ``flash`` are
long tables built from the reports in ``json`` (``summary.json``).
"""

from __future__ import annotations

import io
import json
from typing import Any, List


def frame(csv_text: str) -> Any:
    """A DataFrame of CSV text the library wrote."""
    import pandas as pd

    return pd.read_csv(io.StringIO(csv_text))


class Result:
    """What ``flashtail.compare`` / ``flashtail.run`` return."""

    def __init__(self, summary_json: str, summary_csv: str, cdf_csv: str, notes: List[str]):
        self.json: dict = json.loads(summary_json)
        self.summary_csv = summary_csv
        self.cdf_csv = cdf_csv
        #: ``note: ...`` lines: schemes of the default set left out, and why.
        self.notes = list(notes)

    @property
    def reports(self) -> list:
        """One run report (dict) per scheme (``docs/json.md``)."""
        return self.json["reports"]

    @property
    def schemes(self) -> list:
        return [r["scheme"] for r in self.reports]

    @property
    def summary(self) -> Any:
        """``summary.csv``: one row per scheme x op (read, write, all)."""
        return frame(self.summary_csv)

    @property
    def cdf(self) -> Any:
        """``cdf.csv``: scheme, op, latency_ns, cdf."""
        return frame(self.cdf_csv)

    @property
    def waits(self) -> Any:
        """Wait time by cause: scheme, cause, wait_ns, share (of the scheme's total wait)."""
        import pandas as pd

        rows = []
        for r in self.reports:
            by_cause = r["waits"]["wait_ns_by_cause"]
            total = sum(by_cause.values())
            for cause, ns in by_cause.items():
                rows.append((r["scheme"], cause, ns, ns / total if total else 0.0))
        return pd.DataFrame(rows, columns=["scheme", "cause", "wait_ns", "share"])

    @property
    def flash(self) -> Any:
        """Flash and GC counters: scheme, counter, value (``flash`` of each report, with its
        scheme-specific ``extra`` counters)."""
        import pandas as pd

        rows = []
        for r in self.reports:
            for key, value in r["flash"].items():
                if key == "extra":
                    for k, v in value.items():
                        rows.append((r["scheme"], k, float(v)))
                elif isinstance(value, (int, float)) and not isinstance(value, bool):
                    rows.append((r["scheme"], key, float(value)))
        return pd.DataFrame(rows, columns=["scheme", "counter", "value"])

    def __repr__(self) -> str:
        return f"<flashtail.Result: {', '.join(self.schemes)}>"
