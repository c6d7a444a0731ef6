#!/usr/bin/env python3
"""Derive the tables of docs/ttflash.md from the comparison runs in experiments/out/.

Reads only the summary.json files written by `flashtail compare` (see experiments/ttflash.sh);
computes nothing the simulator did not report except ratios and percentages.
Usage: tables.py OUT_DIR RSTAR RNOM
"""
import json
import os
import sys

TRACES = [("dtrs", "DTRS (bundled, 300 s)"),
          ("fin1", "Financial1 50k (853 s)"),
          ("tpcc", "TPC-C 30 loops, 0.1x speed (41 s)")]
VARIANTS = [("fin1-buf8m", "Financial1, 8 MiB buffers"),
            ("tpcc-buf8m", "TPC-C, 8 MiB buffers")]
SCHEMES = ["base", "ttflash-pbl", "ttflash-gtr", "ttflash-rgc", "ttflash"]


def load(out, name, r):
    path = os.path.join(out, f"{name}-r{r}", "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return {rep["scheme"]: rep for rep in json.load(f)["reports"]}


def ms(ns):
    return f"{ns / 1e6:.3g}"


def ratio(a, b):
    return f"{a / b:.1f}" if b else "n/a"


def main():
    out, rstar, rnom = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = {(n, r): load(out, n, r) for n, _ in TRACES + VARIANTS for r in (rstar, rnom)}

    print("## Starting state (from each run's config.precondition and free_blocks[0])\n")
    print("| trace | r | layout | mapped pages | invalid pages | free blocks (mean/plane) | "
          "min plane free at t=0 (base) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for n, _ in TRACES + VARIANTS:
        for r in (rstar, rnom):
            rep = runs[(n, r)]
            if rep is None:
                continue
            for sch, lay in (("base", "plain"), ("ttflash-gtr", "RAIN")):
                p = rep[sch]["config"]["precondition"]
                fb = rep[sch]["free_blocks"][0]
                print(f"| {n} | {r} | {lay} | {p['mapped_pages']} | {p['invalid_pages']} | "
                      f"{p['free_blocks'] / 64:.1f} | {fb['min_plane_free_blocks']} |")
    print()

    for r in (rstar, rnom):
        print(f"## Read latency as a ratio to nogc, r = {r}\n")
        print("| trace | nogc p99 / p99.9 / p99.99 (ms) | " +
              " | ".join(f"{s} p99 / p99.9 / p99.99" for s in SCHEMES) + " |")
        print("|---|---|" + "---|" * len(SCHEMES))
        for n, label in TRACES + VARIANTS:
            rep = runs[(n, r)]
            if rep is None:
                continue
            ng = rep["nogc"]["reads"]
            cells = [f"{ms(ng['p99_ns'])} / {ms(ng['p99_9_ns'])} / {ms(ng['p99_99_ns'])}"]
            for s in SCHEMES:
                rd = rep[s]["reads"]
                cells.append(" / ".join(ratio(rd[k], ng[k]) for k in ("p99_ns", "p99_9_ns", "p99_99_ns")))
            print(f"| {label} | " + " | ".join(cells) + " |")
        print()

    for r in (rstar, rnom):
        print(f"## GC-blocked reads (share of reads that waited on GC) and all requests, r = {r}\n")
        print("| trace | reads | GC runs (base) | " +
              " | ".join(f"{s} reads / all" for s in SCHEMES) + " |")
        print("|---|---:|---:|" + "---|" * len(SCHEMES))
        for n, label in TRACES + VARIANTS:
            rep = runs[(n, r)]
            if rep is None:
                continue
            cells = []
            for s in SCHEMES:
                w = rep[s]["waits"]
                cells.append(f"{100 * w['share_reads_waited_on_gc']:.3f}% / {100 * w['share_waited_on_gc']:.3f}%")
            print(f"| {label} | {rep['nogc']['reads']['count']} | {rep['base']['flash']['gc_runs']} | "
                  + " | ".join(cells) + " |")
        print()

    print("## Extra P/E cycles of parity (vs ttflash-pbl: same GC, no parity)\n")
    print("| trace | r | pbl erases | gtr erases (+%) | rgc erases (+%) | ttflash erases (+%) | "
          "pages programmed pbl -> gtr / rgc / ttflash (host+GC+parity, +%) |")
    print("|---|---|---:|---:|---:|---:|---|")
    for n, label in TRACES + VARIANTS:
        for r in (rstar, rnom):
            rep = runs[(n, r)]
            if rep is None:
                continue
            def prog(s):
                fl = rep[s]["flash"]
                return fl["host_pages_programmed"] + fl["gc_pages_programmed"] + fl["parity_pages_programmed"]
            e0 = rep["ttflash-pbl"]["flash"]["erases"]
            p0 = prog("ttflash-pbl")
            cells = []
            for s in ("ttflash-gtr", "ttflash-rgc", "ttflash"):
                e = rep[s]["flash"]["erases"]
                cells.append(f"{e} ({100 * (e - e0) / e0:+.1f}%)" if e0 else f"{e} (n/a)")
            pc = " / ".join(f"{prog(s)} ({100 * (prog(s) - p0) / p0:+.1f}%)"
                            for s in ("ttflash-gtr", "ttflash-rgc", "ttflash"))
            print(f"| {label} | {r} | {e0} | " + " | ".join(cells) + f" | {p0} -> {pc} |")
    print()

    print("## Other starts on DTRS: r* settled to the threshold; staggered at r = 0.698 and 0.695 "
          "(planes start above the threshold)\n")
    print("| r | scheme | read p99 / p99.9 / p99.99 ratio | reads / all waited on GC | erases (vs pbl) | "
          "max GC planes/group |")
    print("|---|---|---|---|---|---:|")
    for name, r in (("settled-dtrs", rstar), ("stagger-dtrs", "0.698"), ("stagger-dtrs", "0.695")):
        rep = load(out, name, r)
        if rep is None:
            continue
        label = f"{r} settled" if name == "settled-dtrs" else r
        ng = rep["nogc"]["reads"]
        e0 = rep["ttflash-pbl"]["flash"]["erases"]
        for s in SCHEMES:
            rd = rep[s]["reads"]
            w = rep[s]["waits"]
            e = rep[s]["flash"]["erases"]
            rel = f"{100 * (e - e0) / e0:+.1f}%" if e0 else "n/a"
            print(f"| {label} | {s} | " + " / ".join(ratio(rd[k], ng[k]) for k in ("p99_ns", "p99_9_ns", "p99_99_ns"))
                  + f" | {100 * w['share_reads_waited_on_gc']:.3f}% / {100 * w['share_waited_on_gc']:.3f}% | "
                  f"{e} ({rel}) | {rep[s]['flash']['extra'].get('max_gc_planes_per_group', '-')} |")
    print()

    print("## Scheme details (rotation, GC-tolerant reads, flush)\n")
    print("| trace | r | scheme | max GC planes/group | rebuilt reads | rotation overrides | "
          "flush steered around GC | write p99 ratio |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for n, label in TRACES + VARIANTS:
        for r in (rstar, rnom):
            rep = runs[(n, r)]
            if rep is None:
                continue
            wn = rep["nogc"]["writes"]["p99_ns"]
            for s in ("ttflash-gtr", "ttflash-rgc", "ttflash"):
                ex = rep[s]["flash"]["extra"]
                det = rep[s].get("scheme_details") or {}
                print(f"| {n} | {r} | {s} | {ex.get('max_gc_planes_per_group', '-')} | "
                      f"{ex.get('gtr_rebuilt_reads', '-')} | {det.get('rotation_overrides', '-')} | "
                      f"{ex.get('flush_steered_around_gc', '-')} | "
                      f"{ratio(rep[s]['writes']['p99_ns'], wn)} |")
    print()


if __name__ == "__main__":
    main()
