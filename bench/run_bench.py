#!/usr/bin/env python3
"""`make bench`: edgerun side by side with Google's LiteRT.js (and ONNX Runtime for the float
MobileNet v2), alternating runtimes round by round on a fixed model list, at 1 and 2 threads.
Writes bench/results.md (medians, ratios, GOP/s, fraction of this CPU's FP32 peak) and the raw
numbers as JSON under the work folder. Only the Python standard library is used here; the ONNX
twin is written by tflite_to_onnx.py with Debian's python3-onnx (/usr/bin/python3).
"""
import argparse
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (label, conformance case or synthetic network, kind). kind: what to call the LiteRT side with.
CONFORMANCE_MODELS = [
    ("MobileNet v1 0.25 128 uint8 (coral)", "coral_mobilenet_v1_0.25_128_quant"),
    ("MobileNet v2 1.0 224 uint8 (coral)", "coral_mobilenet_v2_1.0_224_quant"),
    ("MobileNet v2 1.0 224 int8 (TF2 PTQ)", "coral_tf2_mobilenet_v2_1.0_224_ptq"),
    ("MobileNet v1 0.25 224 float32", "tfls_mobilenet_v1_0.25_224_float"),
    ("ResNet (mlperf) float32", "mlperf_pretrainedResnet_float"),
    ("VWW 96 int8 (mlperf)", "mlperf_vww_96_int8"),
    ("DeepLab v3 MNv2 0.5 uint8 (coral)", "coral_deeplabv3_mnv2_dm05_pascal_quant"),
    ("LSTM MNIST float32 (tflm)", "tflm_trained_lstm"),
    # The other application models of the corpus (issue 5: <= 0.5x LiteRT on each).
    ("MoveNet Lightning int8 (coral)", "coral_movenet_single_pose_lightning_ptq"),
    ("Traffic SSD uint8 (coral)", "coral_traffic_model"),
    ("BlazeFace float32 (mlkit)", "litert_blazeface_mlkit_v1"),
    ("ResNet (mlperf) int8", "mlperf_pretrainedResnet_quant"),
    ("VWW 96 float32 (mlperf)", "mlperf_vww_96_float"),
    ("ToyCar int8 (mlperf)", "mlperf_toycar_int8"),
    ("ToyCar hybrid (mlperf)", "mlperf_toycar_hybrid"),
    ("DeepLab v3 float32 (tfls)", "tfls_deeplabv3_float"),
    ("YAMNet float32 (tfls)", "tfls_yamnet_classifier"),
    ("Micro speech int8 (tflm)", "tflm_micro_speech_quantized"),
    ("Keyword spotting int8 (tflm)", "tflm_keyword_scrambled_8bit"),
    ("Hello world float32 (tflm)", "tflm_hello_world_float"),
    ("Hello world int8 (tflm)", "tflm_hello_world_int8"),
    ("ToyCar float32 (mlperf)", "mlperf_toycar_float"),
    ("LSTM MNIST int8 (coral keras PTQ)", "coral_keras_lstm_mnist_ptq"),
    ("Feed-forward block float32 (litert)", "litert_ff"),
    ("RoPE float32 (litert)", "litert_rope"),
    ("Einsum K float32 (litert)", "litert_k_einsum"),
    ("Einsum V float32 (litert)", "litert_v_einsum"),
]
SYNTHETIC_MODELS = [
    ("MobileNet v2 1.0 224 float32 (synthetic)", "mobilenet_v2", False),
    ("MobileNet v2 1.0 224 int8 (synthetic)", "mobilenet_v2", True),
]

CAVEAT = ("Numbers are indicative: this is a 2-core virtual machine shared with other engineers' "
          "compilers, so absolute times vary from run to run by tens of percent. Runtimes alternate "
          "round by round so that load changes hit both sides; ratios measured in the same run are "
          "more trustworthy than absolute times.")


def log(*parts):
    print("bench:", *parts, file=sys.stderr, flush=True)


def run_json(cmd, timeout=900):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[:3]), p.returncode, p.stderr.strip()[-600:]))
    return json.loads(p.stdout)


def load_average():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def max_abs_diff(a_path, b_path, dtype):
    fmt = {"float32": "f", "int8": "b", "uint8": "B", "int16": "h", "int32": "i"}.get(dtype)
    if fmt is None or not (os.path.exists(a_path) and os.path.exists(b_path)):
        return None
    a, b = open(a_path, "rb").read(), open(b_path, "rb").read()
    if len(a) != len(b):
        return None
    size = struct.calcsize(fmt)
    n = len(a) // size
    va, vb = struct.unpack("<%d%s" % (n, fmt), a), struct.unpack("<%d%s" % (n, fmt), b)
    return max((abs(x - y) for x, y in zip(va, vb)), default=0)


class Bench:
    def __init__(self, args):
        self.a = args
        self.work = os.path.abspath(args.work)
        os.makedirs(self.work, exist_ok=True)
        self.node = shutil.which("node") or "node"

    def edgerun(self, model, inputs, threads, runs, extra=()):
        cmd = [self.a.edgerun, "bench", model, "--json", "--threads", str(threads), "--runs", str(runs),
               "--warmup", "3", "--min-secs", "0", "--no-progress"] + list(extra)
        for i in inputs:
            cmd += ["--input", i]
        return run_json(cmd)

    def core_speeds(self, model, inputs):
        """Median of coral MobileNet v2 on one thread pinned to each CPU in turn: on a shared
        virtual machine the cores do not always run at the same speed, which bounds what a
        second thread can add."""
        speeds = {}
        for cpu in sorted(os.sched_getaffinity(0)):
            cmd = ["taskset", "-c", str(cpu), self.a.edgerun, "bench", model, "--json", "--threads", "1", "--runs",
                   "100", "--warmup", "3", "--min-secs", "0", "--no-progress"]
            for i in inputs:
                cmd += ["--input", i]
            try:
                speeds[cpu] = run_json(cmd)["latency_ms"]["median"]
            except Exception as e:  # taskset missing or the run failed: no line in the report
                log("core speed probe failed: %s" % e)
                return {}
        return speeds

    def litert(self, model, inputs, threads, runs, backend="litert", out_dir=None):
        cmd = [self.node, os.path.join(HERE, "litert_bench.mjs"), model, "--threads", str(threads),
               "--runs", str(runs), "--warmup", "3", "--backend", backend]
        for i in inputs:
            cmd += ["--in", i]
        if out_dir:
            cmd += ["--out-dir", out_dir]
        return run_json(cmd)

    def ort(self, model, nhwc_input, threads, runs, out=None):
        cmd = [self.node, os.path.join(HERE, "ort_bench.mjs"), model, "--threads", str(threads), "--runs", str(runs),
               "--warmup", "3", "--in", nhwc_input, "--nhwc"]
        if out:
            cmd += ["--out", out]
        return run_json(cmd)

    def synth(self, network, int8):
        path = os.path.join(self.work, "%s_%s.tflite" % (network, "int8" if int8 else "float32"))
        if not os.path.exists(path):
            cmd = [self.a.edgerun, "synth", network, "-o", path] + (["--int8"] if int8 else [])
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return path

    def onnx_twin(self, tflite_path):
        onnx_path = tflite_path.replace(".tflite", ".onnx")
        if os.path.exists(onnx_path):
            return onnx_path
        generated = os.path.join(self.work, "tflite_py")
        if not os.path.isdir(os.path.join(generated, "tflite")):
            subprocess.run(["flatc", "--python", "-o", generated, os.path.join(ROOT, "schema", "tflite.fbs")], check=True)
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "tflite_to_onnx.py"), tflite_path, onnx_path, generated],
                       check=True, stdout=subprocess.DEVNULL)
        return onnx_path


def float_input(path, shape, seed=1):
    """Seeded uniform [-1, 1) float32 input, written once."""
    import random
    if not os.path.exists(path):
        rng = random.Random(seed)
        n = 1
        for d in shape:
            n *= d
        with open(path, "wb") as f:
            f.write(struct.pack("<%df" % n, *(rng.uniform(-1, 1) for _ in range(n))))
    return path


def int8_input(path, shape, seed=1):
    import random
    if not os.path.exists(path):
        rng = random.Random(seed)
        n = 1
        for d in shape:
            n *= d
        with open(path, "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(n)))
    return path


def median_of(results, key="median"):
    values = [r["latency_ms"][key] for r in results if r]
    return statistics.median(values) if values else None


def min_of(results):
    values = [r["latency_ms"]["min"] for r in results if r]
    return min(values) if values else None


def fmt(v, digits=2):
    return "—" if v is None else ("%.*f" % (digits, v))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--edgerun", required=True)
    ap.add_argument("--fma-peak", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=6, help="back-to-back 1 / N thread pairs for the paired speed-ups")
    ap.add_argument("--pair-runs", type=int, default=300, help="runs of each side of a pair")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per round and runtime")
    ap.add_argument("--round-ms", type=float, default=50.0,
                    help="fast models get runs up to this many ms of edgerun per round (same count for all)")
    ap.add_argument("--max-runs", type=int, default=1000)
    ap.add_argument("--models", default="", help="comma-separated substrings: only these models")
    ap.add_argument("--delegate", default="", help="passed to edgerun bench --delegate")
    a = ap.parse_args()
    b = Bench(a)
    threads_list = [int(t) for t in a.threads.split(",")]
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    load_start = load_average()
    extra = ["--delegate", a.delegate] if a.delegate else []

    log("FP32 peak (FMA loop)")
    peak_before = json.loads(subprocess.run([a.fma_peak, str(max(threads_list))], check=True, stdout=subprocess.PIPE,
                                            text=True).stdout)

    # The model list: conformance cases use their own input files; synthetic ones a seeded input.
    models = []
    for label, case in CONFORMANCE_MODELS:
        d = os.path.join(a.shared, "conformance", case)
        if not os.path.isdir(d):
            log("skip %s: %s not found" % (label, d))
            continue
        meta = json.load(open(os.path.join(d, "case.json")))
        inputs = [os.path.join(d, i.get("file", "input_%d.bin" % k)) for k, i in enumerate(meta["inputs"])]
        backend = "tfjs-tflite" if "tfjs-tflite" in meta.get("oracle", "") else "litert"
        dtypes = sorted({o["dtype"] for o in meta["outputs"]})
        models.append(dict(label=label, path=os.path.join(d, "model.tflite"), inputs=inputs, backend=backend,
                           out_dtype=dtypes[0] if len(dtypes) == 1 else None, float=("float32" in meta.get("tags", []) and
                                                                                      "quantized" not in meta.get("tags", []))))
    for label, network, int8 in SYNTHETIC_MODELS:
        path = b.synth(network, int8)
        if int8:
            inputs = [int8_input(os.path.join(b.work, "input_224_int8.bin"), [1, 224, 224, 3])]
        else:
            inputs = [float_input(os.path.join(b.work, "input_224_float32.bin"), [1, 224, 224, 3])]
        models.append(dict(label=label, path=path, inputs=inputs, backend="litert", out_dtype="int8" if int8 else "float32",
                           float=not int8, synthetic=network, onnx=None if int8 else b.onnx_twin(path)))
    if a.models:
        wanted = [w.strip() for w in a.models.split(",") if w.strip()]
        models = [m for m in models if any(w in m["label"] or w in m["path"] for w in wanted)]

    probe = next((m for m in models if "coral_mobilenet_v2" in m["path"]), None)
    speeds_before = b.core_speeds(probe["path"], probe["inputs"]) if probe and len(threads_list) > 1 else {}

    rows = []
    for m in models:
        for threads in threads_list:
            if m["backend"] == "tfjs-tflite" and threads > 1:
                lite_ok = False  # the classic interpreter build runs on one thread only
            else:
                lite_ok = True
            # Fast models get more runs (the same count for every runtime), so that each round of
            # edgerun lasts about --round-ms: 20 runs of a 16 us model are mostly cold caches.
            runs = a.runs
            try:
                probe_ms = b.edgerun(m["path"], m["inputs"], threads, a.runs, extra)["latency_ms"]["median"]
                if probe_ms > 0:
                    runs = int(min(a.max_runs, max(a.runs, math.ceil(a.round_ms / probe_ms))))
            except Exception:
                pass  # the rounds below report the error
            log("%s, %d thread(s), %d runs a round" % (m["label"], threads, runs))
            er, lr, orr = [], [], []
            errors = []
            for r in range(a.rounds):
                # Alternate which runtime goes first, so drifting load hits both sides alike.
                order = ["edgerun", "litert", "ort"] if r % 2 == 0 else ["ort", "litert", "edgerun"]
                for who in order:
                    try:
                        if who == "edgerun":
                            er.append(b.edgerun(m["path"], m["inputs"], threads, runs, extra))
                        elif who == "litert" and lite_ok:
                            out_dir = os.path.join(b.work, "litert_out", os.path.basename(os.path.dirname(m["path"])) +
                                                   os.path.basename(m["path"]))
                            lr.append(b.litert(m["path"], m["inputs"], threads, runs, m["backend"],
                                               out_dir if r == 0 else None))
                        elif who == "ort" and m.get("onnx"):
                            orr.append(b.ort(m["onnx"], m["inputs"][0], threads, runs,
                                             os.path.join(b.work, "ort_output_0.bin") if r == 0 else None))
                    except Exception as e:  # keep going: one failing runtime must not stop the table
                        errors.append("%s: %s" % (who, str(e).splitlines()[0][:200]))
            # Outputs: edgerun run on the same inputs against what LiteRT (and ORT) wrote.
            agree, agree_ort = None, None
            if threads == threads_list[0]:
                out = os.path.join(b.work, "edgerun_out", os.path.basename(m["path"]) + "_" + str(len(rows)))
                cmd = [a.edgerun, "run", m["path"], "--output-dir", out]
                for i in m["inputs"]:
                    cmd += ["--input", i]
                if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0 and m["out_dtype"]:
                    lite_dir = os.path.join(b.work, "litert_out", os.path.basename(os.path.dirname(m["path"])) +
                                            os.path.basename(m["path"]))
                    agree = max_abs_diff(os.path.join(out, "output_0.bin"), os.path.join(lite_dir, "output_0.bin"),
                                         m["out_dtype"])
                    if m.get("onnx"):
                        agree_ort = max_abs_diff(os.path.join(out, "output_0.bin"),
                                                 os.path.join(b.work, "ort_output_0.bin"), "float32")
            ops = er[0].get("ops_per_run", 0) if er else 0
            rows.append(dict(label=m["label"], path=m["path"], threads=threads, float=m["float"], backend=m["backend"],
                             edgerun=median_of(er), litert=median_of(lr), ort=median_of(orr), ops=ops,
                             edgerun_min=min_of(er), litert_min=min_of(lr),
                             edgerun_init=statistics.median([x["init_ms"] for x in er]) if er else None,
                             edgerun_load=statistics.median([x["load_ms"] for x in er]) if er else None,
                             weights=er[0]["weight_bytes"] if er else None,
                             peak_rss=max([x["peak_rss_bytes"] for x in er]) if er else None,
                             arena=er[0]["arena_bytes"] if er else None, agree=agree, agree_ort=agree_ort,
                             errors=errors, raw=dict(edgerun=er, litert=lr, ort=orr)))

    # Where the time goes in the float MobileNet v2: op types with GOP/s.
    profiles = {}
    for m in models:
        if m.get("synthetic") == "mobilenet_v2" and m["float"]:
            for threads in threads_list:
                try:
                    profiles[threads] = b.edgerun(m["path"], m["inputs"], threads, a.runs, extra + ["--profile"])
                except Exception as e:
                    log("profile failed: %s" % e)

    peak_after = json.loads(subprocess.run([a.fma_peak, str(max(threads_list))], check=True, stdout=subprocess.PIPE,
                                           text=True).stdout)
    peak = {t: max(peak_before["peak_fp32_gflops"][str(t)], peak_after["peak_fp32_gflops"][str(t)]) for t in threads_list}
    if "peak_int8_gops" in peak_before:
        peak_int8 = {t: max(peak_before["peak_int8_gops"][str(t)], peak_after["peak_int8_gops"][str(t)])
                     for t in threads_list}
    else:
        peak_int8 = {}

    speeds_after = b.core_speeds(probe["path"], probe["inputs"]) if probe and len(threads_list) > 1 else {}
    core_speeds = dict(before=speeds_before, after=speeds_after,
                       core_to_core_ns=[p["core_to_core_ns"] for p in (peak_before, peak_after) if "core_to_core_ns" in p])
    paired = paired_scaling(a, b, models, threads_list, extra) if len(threads_list) > 1 else {}

    with open(os.path.join(b.work, "results.json"), "w") as f:
        json.dump(dict(started=started, peak_before=peak_before, peak_after=peak_after, rows=rows,
                       profiles=profiles, core_speeds=core_speeds, paired_scaling=paired), f, indent=1)
    write_markdown(a, rows, profiles, peak, peak_int8, peak_before, started, load_start, load_average(), threads_list,
                   core_speeds, paired)
    log("wrote %s" % a.out)


def paired_scaling(a, b, models, threads_list, extra):
    """edgerun's thread scaling on the MobileNet v2 models from back-to-back pairs: one thread, then
    the most threads (the order alternating pair by pair), --pairs times. The table's speed-ups
    divide medians taken tens of seconds apart, and this VM's cores change speed by the minute; a
    pair's two runs see nearly the same machine. Returns {label: [ratio of each pair]}."""
    out = {}
    most = threads_list[-1]
    for m in models:
        if not (m.get("synthetic") == "mobilenet_v2" or "mobilenet_v2_1.0_224" in m["path"]):
            continue
        ratios = []
        try:
            for i in range(a.pairs):
                order = [1, most] if i % 2 == 0 else [most, 1]
                ms = {t: b.edgerun(m["path"], m["inputs"], t, a.pair_runs, extra)["latency_ms"]["median"] for t in order}
                ratios.append(ms[1] / ms[most])
        except Exception as e:
            log("paired scaling failed on %s: %s" % (m["label"], e))
        if ratios:
            out[m["label"]] = ratios
            log("%s: paired speed-ups %s" % (m["label"], " ".join("%.2f" % r for r in ratios)))
    return out


def write_markdown(a, rows, profiles, peak, peak_int8, peak_raw, started, load_start, load_end, threads_list,
                   core_speeds, paired=None):
    L = []
    L.append("# edgerun vs LiteRT.js and ONNX Runtime")
    L.append("")
    L.append("Written by `make bench` (bench/run_bench.py) on %s. %s" % (started, CAVEAT))
    L.append("")
    L.append("* CPU: %s, %d cores visible; load average %s at the start, %s at the end." %
             (cpu_model(), os.cpu_count() or 0, load_start, load_end))
    isas = ", ".join("%s %s GFLOP/s" % (isa, " / ".join("%s@%sT" % (v, t) for t, v in vals.items()))
                     for isa, vals in peak_raw.items() if isinstance(vals, dict) and not isa.startswith("peak_"))
    L.append("* FP32 peak from an FMA loop (bench/fma_peak.cc, per thread CPU second, best of the runs before "
             "and after): %s. Per ISA: %s." % (", ".join("%.1f GFLOP/s on %d thread%s" % (peak[t], t, "s" if t > 1 else "")
                                                         for t in threads_list), isas))
    if peak_int8:
        L.append("* int8 peak from an AVX-512 VNNI dot-product loop (same program): %s." %
                 ", ".join("%.0f GOP/s on %d thread%s" % (peak_int8[t], t, "s" if t > 1 else "") for t in threads_list))
    L.append("* edgerun: `edgerun bench --runs N --warmup 3` (N >= %d)%s; LiteRT.js: @litertjs/core 2.5.3 (XNNPACK, "
             "WebAssembly with relaxed SIMD; the threaded build for 2 threads), LSTM models on @tensorflow/tfjs-tflite "
             "(classic interpreter, one thread) because LiteRT.js rejects variable tensors; ONNX Runtime: "
             "onnxruntime-node 1.30.0 (native CPU provider). Each cell is the median over %d alternating rounds of "
             "the per-round median of at least %d runs (more for fast models: as many as fill %.0f ms of edgerun, at "
             "most %d, the same count for every runtime); \"of the fastest runs\" is the ratio of the minimum "
             "latencies, which load from other processes disturbs least." %
             (a.runs, (" --delegate " + a.delegate) if a.delegate else "", a.rounds, a.runs, a.round_ms, a.max_runs))
    L.append("* GOP/s counts 2 operations per multiply-accumulate of conv, depthwise, fully connected, matmul and "
             "LSTM layers (`edgerun bench` prints the count); \"% peak\" is edgerun's GOP/s over the peak at the same "
             "thread count: the FP32 FMA peak for float models, the int8 VNNI peak for quantized ones.")
    L.append("")
    L.append("## Median latency (ms) and the ratio edgerun / LiteRT.js")
    L.append("")
    L.append("| model | threads | edgerun | LiteRT.js | edgerun / LiteRT | same, of the fastest runs | GOP per run | "
             "edgerun GOP/s | LiteRT GOP/s | edgerun % peak | max abs diff of output 0 |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = r["edgerun"] / r["litert"] if r["edgerun"] and r["litert"] else None
        gops = lambda ms: r["ops"] / (ms * 1e6) if r["ops"] and ms else None
        ref = peak.get(r["threads"]) if r["float"] else peak_int8.get(r["threads"])
        pct = 100 * gops(r["edgerun"]) / ref if ref and gops(r["edgerun"]) else None
        lite = fmt(r["litert"]) if r["litert"] else ("n/a (1 thread only)" if r["backend"] == "tfjs-tflite" else "failed")
        ratio_min = r["edgerun_min"] / r["litert_min"] if r["edgerun_min"] and r["litert_min"] else None
        L.append("| %s%s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["label"], " (tfjs-tflite)" if r["backend"] == "tfjs-tflite" else "", r["threads"], fmt(r["edgerun"]),
            lite, fmt(ratio), fmt(ratio_min), ("%.3g" % (r["ops"] / 1e9)) if r["ops"] else "—", fmt(gops(r["edgerun"]), 1),
            fmt(gops(r["litert"]), 1), fmt(pct, 1) + ("%" if pct else ""),
            "" if r["agree"] is None else ("%.3g" % r["agree"])))
    L.append("")
    for r in rows:
        for e in r["errors"]:
            L.append("* %s, %d thread(s): %s" % (r["label"], r["threads"], e))
    ort_rows = [r for r in rows if r["ort"]]
    if ort_rows:
        L.append("## Float32 MobileNet v2 1.0 224 (synthetic) against ONNX Runtime")
        L.append("")
        L.append("The same network and weights: `edgerun synth mobilenet_v2` and its ONNX twin written by "
                 "bench/tflite_to_onnx.py (NCHW, same weights).")
        L.append("")
        L.append("| threads | edgerun | ONNX Runtime | edgerun / ORT | LiteRT.js | ORT GOP/s | ORT % FP32 peak | "
                 "max abs diff edgerun vs ORT |")
        L.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in ort_rows:
            g = r["ops"] / (r["ort"] * 1e6) if r["ops"] else None
            L.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
                r["threads"], fmt(r["edgerun"]), fmt(r["ort"]), fmt(r["edgerun"] / r["ort"] if r["edgerun"] else None),
                fmt(r["litert"]), fmt(g, 1), (fmt(100 * g / peak[r["threads"]], 1) + "%") if g else "—",
                "" if r["agree_ort"] is None else "%.3g" % r["agree_ort"]))
        L.append("")
    ints = {r["label"]: r for r in rows if r["threads"] == threads_list[0]}
    fl, q = ints.get(SYNTHETIC_MODELS[0][0]), ints.get(SYNTHETIC_MODELS[1][0])
    if fl and q and fl["edgerun"] and q["edgerun"]:
        L.append("int8 twin against float32 (synthetic MobileNet v2, %d thread): edgerun %.2f ms vs %.2f ms "
                 "(int8/float = %.2f); LiteRT.js %s ms vs %s ms." % (threads_list[0], q["edgerun"], fl["edgerun"],
                                                                     q["edgerun"] / fl["edgerun"], fmt(q["litert"]),
                                                                     fmt(fl["litert"])))
        L.append("")
    scaling = [(r["label"], r) for r in rows if r["threads"] == 1]
    if len(threads_list) > 1:
        L.append("## Thread scaling (edgerun, 1 thread / %d threads)" % threads_list[-1])
        L.append("")
        L.append("| model | edgerun speed-up | LiteRT.js speed-up |")
        L.append("|---|---:|---:|")
        for label, r1 in scaling:
            r2 = next((r for r in rows if r["label"] == label and r["threads"] == threads_list[-1]), None)
            if r2:
                L.append("| %s | %s | %s |" % (label, fmt(r1["edgerun"] / r2["edgerun"] if r1["edgerun"] and r2["edgerun"] else None),
                                              fmt(r1["litert"] / r2["litert"] if r1["litert"] and r2["litert"] else None)))
        L.append("")
        if paired:
            L.append("Paired speed-ups (MobileNet v2; edgerun at 1 thread, then at %d, back to back, the order "
                     "alternating, %d pairs of %d runs each; median of the pairs' ratios, then the lowest and highest). "
                     "The speed-ups above divide medians taken tens of seconds apart, while this VM's cores change "
                     "speed by the minute:" % (threads_list[-1], a.pairs, a.pair_runs))
            L.append("")
            L.append("| model | paired speed-up | lowest | highest |")
            L.append("|---|---:|---:|---:|")
            for label, ratios in paired.items():
                L.append("| %s | %.2f | %.2f | %.2f |" % (label, statistics.median(ratios), min(ratios), max(ratios)))
            L.append("")
        for when, speeds in (("before", core_speeds.get("before")), ("after", core_speeds.get("after"))):
            if not speeds or len(speeds) < 2:
                continue
            fastest = min(speeds.values())
            ideal = fastest * sum(1.0 / t for t in speeds.values())
            L.append("Core speeds %s the runs (coral MobileNet v2, one thread pinned to each CPU, median ms): %s. "
                     "A thread on the slowest core runs at %.0f%% of the fastest; with work shared perfectly, "
                     "%d threads could be at most %.2f x as fast as one thread on the fastest core." % (
                         when, ", ".join("CPU %d %.2f" % (c, t) for c, t in sorted(speeds.items())),
                         100 * fastest / max(speeds.values()), len(speeds), ideal))
            L.append("")
        latencies = core_speeds.get("core_to_core_ns") or []
        if latencies:
            L.append("A cache line written on CPU 0 reaches CPU 1 in %s ns (bench/fma_peak.cc, one way, best of "
                     "5 ping-pong runs before%s the runs). Within one core complex of a desktop CPU this is 20-80 ns; "
                     "hundreds of ns mean the two vCPUs sit on different core complexes (or sockets) without a "
                     "shared last-level cache, so every value one thread writes and the other reads crosses the "
                     "fabric, and every hand-off between them (each multi-threaded node) costs microseconds." % (
                         " / ".join("%.0f" % v for v in latencies), " and after" if len(latencies) > 1 else ""))
            L.append("")
    L.append("## Memory and start-up (edgerun)")
    L.append("")
    L.append("The targets: load + allocate within 5 ms for a 4 MB model, peak RSS within weights + arena + 15 MiB "
             "(the arena here is edgerun's; XNNPACK plans the values inside its partitions in memory of its own).")
    L.append("")
    L.append("| model | weights | load ms | init ms (create + allocate) | arena | peak RSS | weights + arena + 15 MiB |")
    L.append("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["threads"] == threads_list[0] and r["arena"] is not None:
            budget = (r["weights"] + r["arena"]) / 2**20 + 15
            L.append("| %s | %.2f MiB | %s | %s | %.2f MiB | %.1f MiB | %.1f MiB%s |" % (
                r["label"], r["weights"] / 2**20, fmt(r["edgerun_load"]), fmt(r["edgerun_init"]), r["arena"] / 2**20,
                r["peak_rss"] / 2**20, budget, "" if r["peak_rss"] / 2**20 <= budget else " (over)"))
    L.append("")
    for threads, p in sorted(profiles.items()):
        L.append("## Where edgerun's time goes: synthetic float32 MobileNet v2, %d thread%s" % (threads, "s" if threads > 1 else ""))
        L.append("")
        L.append("| op type | nodes | % of run | ms per run | GOP/s | % FP32 peak |")
        L.append("|---|---:|---:|---:|---:|---:|")
        runs = max(1, p["profile"]["runs"])
        for t in p["profile"]["op_types"]:
            g = t["ops"] / (t["total_ms"] * 1e6) if t["ops"] and t["total_ms"] else None
            L.append("| %s | %d | %.1f | %.3f | %s | %s |" % (t["type"], t["nodes"], t["percent"], t["total_ms"] / runs,
                                                             fmt(g, 1), fmt(100 * g / peak[threads], 1) + "%" if g else "—"))
        L.append("")
    L.append("Reproduce: `make bench` (options: `make bench BENCH_ARGS='--models mobilenet_v2 --rounds 5'`).")
    with open(a.out, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
