#!/usr/bin/env python3
"""`make bench-corpus`: edgerun against LiteRT.js on every case of ../shared/conformance (or any
folder in its format), one thread, each case's own inputs. `make bench` covers a fixed list of
application models at 1 and 2 threads in more rounds; this sweep checks that no model of the
whole set, op tests included, is slow on edgerun relative to Google's runtime (issue 5: at most
0.5x LiteRT.js on every application model). Cases LiteRT.js rejects (variable tensors, some
dynamic shapes) run on tfjs-tflite's classic interpreter instead, as in `make bench`.

Writes a markdown table sorted by the ratio, highest first. Runtimes alternate within each case
(edgerun first in odd rounds, LiteRT first in even ones); each cell is the median over rounds
of the per-round median.
"""
import argparse
import datetime
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_bench import Bench, log  # noqa: E402


def ms(v):
    """Three significant digits (models here take from tens of nanoseconds to tens of ms)."""
    return "—" if v is None else "%.3g" % v


def attempt(fn, *args, **kwargs):
    """fn's result, or None (logged) when the runtime fails on the model."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # a rejected model or a crash of the other runtime: no number
        log(str(e)[:300])
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edgerun", required=True)
    ap.add_argument("--cases", required=True, help="a folder of conformance cases (case.json, model.tflite, inputs)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--runs", type=int, default=30, help="timed runs per round and runtime")
    a = ap.parse_args()
    bench = Bench(argparse.Namespace(edgerun=a.edgerun, work=os.path.join(os.path.dirname(a.edgerun), "bench")))

    rows = []
    for case_dir in sorted(glob.glob(os.path.join(a.cases, "*", "case.json"))):
        case_dir = os.path.dirname(case_dir)
        with open(os.path.join(case_dir, "case.json")) as f:
            case = json.load(f)
        model = os.path.join(case_dir, "model.tflite")
        inputs = [os.path.join(case_dir, i["file"]) for i in case.get("inputs", [])]
        name = case.get("name", os.path.basename(case_dir))
        backend = "litert"
        ours, theirs = [], []
        for r in range(a.rounds):
            order = ["edgerun", "litert"] if r % 2 == 0 else ["litert", "edgerun"]
            for side in order:
                if side == "edgerun":
                    res = attempt(bench.edgerun, model, inputs, 1, a.runs)
                    ours.append(res["latency_ms"]["median"] if res else None)
                    continue
                res = attempt(bench.litert, model, inputs, 1, a.runs, backend=backend)
                if not res and backend == "litert":
                    backend = "tfjs-tflite"
                    res = attempt(bench.litert, model, inputs, 1, a.runs, backend=backend)
                theirs.append(res["latency_ms"]["median"] if res else None)
        e = statistics.median([v for v in ours if v is not None]) if any(v is not None for v in ours) else None
        l = statistics.median([v for v in theirs if v is not None]) if any(v is not None for v in theirs) else None
        ratio = e / l if e is not None and l else None
        tags = case.get("tags", [])
        rows.append((name, "application" in tags, e, l, ratio, backend if l is not None else "none"))
        log("%-60s edgerun %s ms, %s %s ms, ratio %s" % (name, e, backend, l, "—" if ratio is None else "%.3f" % ratio))

    rows.sort(key=lambda r: -1 if r[4] is None else r[4], reverse=True)
    measured = [r for r in rows if r[4] is not None]
    application = [r for r in measured if r[1]]
    with open(a.out, "w") as out:
        out.write("# edgerun against LiteRT.js on every conformance case (1 thread)\n\n")
        out.write("Written by `make bench-corpus` (bench/corpus_sweep.py) on %s from %s. Median latency of "
                  "`edgerun bench` and bench/litert_bench.mjs on the case's own inputs, %d rounds of %d runs, "
                  "runtimes alternating; for models of microseconds most of either number is the cost of one "
                  "invoke.\n\n" % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), a.cases, a.rounds, a.runs))
        if measured:
            out.write("* %d of %d cases measured on both runtimes; edgerun / LiteRT highest %.2f (%s), median %.2f.\n"
                      % (len(measured), len(rows), measured[0][4], measured[0][0],
                         statistics.median(r[4] for r in measured)))
        if application:
            out.write("* Application models (tag `application`): %d, highest ratio %.2f (%s).\n"
                      % (len(application), application[0][4], application[0][0]))
        missing = [r[0] for r in rows if r[4] is None]
        if missing:
            out.write("* Not measured on either LiteRT build or on edgerun: %s.\n" % ", ".join(missing))
        out.write("\n| case | application | edgerun ms | LiteRT ms | edgerun / LiteRT | LiteRT build |\n")
        out.write("|---|:---:|---:|---:|---:|---|\n")
        for name, app, e, l, ratio, backend in rows:
            out.write("| %s | %s | %s | %s | %s | %s |\n" % (
                name, "yes" if app else "", ms(e), ms(l),
                "—" if ratio is None else "%.3f" % ratio, backend))
    log("wrote %s" % a.out)


if __name__ == "__main__":
    main()
