"""The default `flashtail compare` tail figure, from the Python package's DataFrames:
read latency tails (1 - CDF, log scale) of every scheme on the bundled DTRS slice and the
dtrs-demo device, as report.html draws them.

    python crates/flashtail-py/examples/compare_figure.py [OUT.png]
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import flashtail  # noqa: E402


def main(out: str = "compare-tail.png") -> str:
    r = flashtail.compare()
    cdf = r.cdf
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for scheme in r.schemes:
        reads = cdf[(cdf.scheme == scheme) & (cdf.op == "read")]
        tail = 1.0 - reads.cdf
        keep = tail > 0
        ax.plot(reads.latency_ns[keep] / 1e6, tail[keep], label=scheme, linewidth=1.2,
                linestyle="--" if scheme == "nogc" else "-")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("read latency (ms)")
    ax.set_ylabel("fraction of reads slower (1 - CDF)")
    ax.set_title(r.json["meta"]["title"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return out


if __name__ == "__main__":
    print("wrote", main(*sys.argv[1:]))
