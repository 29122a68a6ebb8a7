#!/usr/bin/env python3
"""Draws the plots of docs/performance.md from records in bench/results/.

`make plots` runs it. Each plot reads one JSON record (one run on one GPU)
and compares tilec with the anchors timed in that same run; its title names
the GPU, the date, the commit and the record. Numbers from different records
never share a plot.

    python3 -m scripts.dev.plots [--results bench/results] [--out docs/plots]

Needs matplotlib (Debian: python3-matplotlib); nothing else outside the
standard library.
"""

import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

DPI = 100
# tilec in blue shades, anchors in greys and warm colours, the same in every plot.
COLORS = {
    "tilec": "#1f5fa8",
    "tilec2": "#7aa6d8",
    "cublas": "#555555",
    "cublas2": "#a0a0a0",
    "cudnn": "#555555",
    "triton": "#d9822b",
    "torch": "#a0a0a0",
    "flash": "#b5b5b5",
}


def load(results, name):
    with open(os.path.join(results, name)) as f:
        return json.load(f)


def short_commit(commit):
    """A full 40-digit hash as its first 7 digits; any other text unchanged."""
    commit = str(commit).strip()
    return commit[:7] if re.fullmatch(r"[0-9a-f]{40}", commit) else commit


def subtitle(rec, name):
    gpu = rec.get("gpu") or rec.get("device")
    date = str(rec.get("date", "?"))[:10]
    return f"{gpu}, {date}, commit {short_commit(rec.get('commit'))}\nbench/results/{name}"


def shape_label(shape):
    return "x".join(str(s) for s in shape)


def grouped_bars(ax, groups, series, values, ylabel):
    """Bars of values[s][g] for each series s, grouped by g."""
    n = len(series)
    width = 0.8 / n
    for i, (key, label, color) in enumerate(series):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        ys = [values[key][g] for g in range(len(groups))]
        ax.bar(xs, [y if y is not None else 0 for y in ys], width, label=label, color=color)
    top = max(y for key, _, _ in series for y in values[key] if y is not None)
    ax.set_ylim(0, top * 1.25)  # room for the legend above the bars
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def finish(fig, title, rec, name, out, file):
    """Title and the record's GPU, date, commit and name above the axes; writes the PNG."""
    height = fig.get_figheight()
    fig.text(0.5, 1 - 0.08 / height, title, ha="center", va="top", fontsize=11)
    fig.text(0.5, 1 - 0.34 / height, subtitle(rec, name), ha="center", va="top", fontsize=8,
             color="#333333")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.70 / height))
    path = os.path.join(out, file)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    print(f"plots: {path} ({os.path.getsize(path) // 1024} KB) from {name}")


def plot_gemm(results, out):
    """bf16 GEMM on sm_90a against cuBLAS and Triton, TFLOP/s."""
    name = "2026-11-30_gemm_sm90a_tma_store_h200.json"
    rec = load(results, name)
    rows = rec["bench"]
    groups = [shape_label(r["shape"]) for r in rows]
    values = {
        "tilec": [r["tilec_tflops"] for r in rows],
        "cublas": [r["cublas_tflops"] for r in rows],
        "triton": [r["triton_tflops"] for r in rows],
    }
    fig, ax = plt.subplots(figsize=(9, 4.2))
    grouped_bars(ax, groups, [("tilec", "tilec sm_90a (tile.gemm)", COLORS["tilec"]),
                              ("cublas", "cuBLAS", COLORS["cublas"]),
                              ("triton", "Triton", COLORS["triton"])],
                 values, "TFLOP/s")
    ax.set_xlabel("M x N x K (bf16)")
    ax.legend(fontsize=8, loc="upper center", ncol=3)
    finish(fig, "bf16 GEMM: tilec vs cuBLAS and Triton", rec, name, out, "gemm_bf16.png")


def plot_attention(results, out):
    """bf16 attention forward, both chips' kernels, against cuDNN, flash and Triton."""
    name = "2026-11-30_attention_full_interleaved_8bcd835_h200.json"
    rec = load(results, name)
    by = {(r["chip"], r["head_dim"], r["S"], r["causal"]): r for r in rec["bench"]}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    for ax, d in zip(axes, (64, 128)):
        keys = sorted({(s, c) for (_, hd, s, c) in by if hd == d})
        groups = [f"{s // 1024}k{' causal' if c else ''}" for s, c in keys]
        fast = [by[("sm_90a", d, s, c)] for s, c in keys]
        slow = [by[("sm_80", d, s, c)] for s, c in keys]
        values = {
            "tilec": [r["tilec_tflops"] for r in fast],
            "cudnn": [r["cudnn_tflops"] for r in fast],
            "triton": [r.get("triton_tflops") for r in fast],
            "tilec2": [r["tilec_tflops"] for r in slow],
            "flash": [r["torch_flash_tflops"] for r in fast],
        }
        grouped_bars(ax, groups, [("tilec", "tilec sm_90a", COLORS["tilec"]),
                                  ("cudnn", "cuDNN (SDPA)", COLORS["cudnn"]),
                                  ("triton", "Triton", COLORS["triton"]),
                                  ("tilec2", "tilec sm_80 path", COLORS["tilec2"]),
                                  ("flash", "torch flash (SDPA)", COLORS["flash"])],
                     values, "TFLOP/s" if d == 64 else "")
        h = fast[0]["H"]
        ax.set_title(f"head dim {d} (B·S = 16k, H = {h})", fontsize=9)
        ax.set_xlabel("S")
    axes[0].legend(fontsize=7, loc="upper left", ncol=3)
    finish(fig, "bf16 attention forward: tilec vs cuDNN, torch flash and Triton",
           rec, name, out, "attention_fwd_bf16.png")


def plot_attention_backward(results, out):
    """bf16 attention backward (deterministic), both chips' kernels, against cuDNN and flash."""
    name = "2026-12-04_attention_backward_h200.json"
    rec = load(results, name)
    rows = rec["speed"]
    groups = [f"hd{r['D']} {r['S'] // 1024}k{' causal' if r['causal'] else ''}" for r in rows]
    t = [r["tflops"] for r in rows]
    values = {k: [x[src] for x in t] for k, src in
              (("tilec", "tilec_sm_90a"), ("cudnn", "cudnn"), ("tilec2", "tilec_sm_80"),
               ("flash", "flash"))}
    fig, ax = plt.subplots(figsize=(9, 4.2))
    grouped_bars(ax, groups, [("tilec", "tilec sm_90a", COLORS["tilec"]),
                              ("cudnn", "cuDNN (SDPA backward)", COLORS["cudnn"]),
                              ("tilec2", "tilec sm_80 path", COLORS["tilec2"]),
                              ("flash", "torch flash (SDPA backward)", COLORS["flash"])],
                 values, "TFLOP/s")
    ax.set_xlabel("head dim, S (B·S = 16k, H·D = 2048)")
    ax.legend(fontsize=7, loc="upper center", ncol=4)
    finish(fig, "bf16 attention backward: tilec vs cuDNN and torch flash",
           rec, name, out, "attention_bwd_bf16.png")


def plot_fp8(results, out):
    """Per-tensor scaled e4m3 GEMM against cuBLAS FP8 (torch._scaled_mm)."""
    name = "2026-12-03_fp8_block_gemm_h200.json"
    rec = load(results, name)
    rows = rec["speed"]
    groups = [shape_label(r["shape"]) for r in rows]
    values = {k: [r["tflops"][src] for r in rows] for k, src in
              (("tilec", "sm_90a"), ("tilec2", "sm_90a_promoted"), ("cublas", "cublas"),
               ("cublas2", "cublas_fast"))}
    fig, ax = plt.subplots(figsize=(10, 4.2))
    grouped_bars(ax, groups, [("tilec", "tilec sm_90a", COLORS["tilec"]),
                              ("tilec2", "tilec sm_90a, promoted (f32 per 128-K block)",
                               COLORS["tilec2"]),
                              ("cublas", "cuBLAS (torch._scaled_mm)", COLORS["cublas"]),
                              ("cublas2", "cuBLAS, use_fast_accum", COLORS["cublas2"])],
                 values, "TFLOP/s")
    ax.set_xlabel("M x N x K (e4m3 in, per-tensor scales)")
    ax.legend(fontsize=7, loc="upper center", ncol=4)
    finish(fig, "FP8 e4m3 GEMM (block program): tilec vs cuBLAS", rec, name, out,
           "gemm_fp8.png")


def plot_int8(results, out):
    """i8 x i8 -> i32 GEMM at one shape against torch._int_mm."""
    name = "2026-12-03_int8_h200.json"
    rec = load(results, name)
    s = rec["speed_int8"]
    tops = s["tops"]
    bars = [("tile.gemm sm_90a", tops["sm_90a/int_mm_i8"], COLORS["tilec"]),
            ("block program sm_90a", tops["sm_90a/linear_block_i8"], COLORS["tilec"]),
            ("tile.gemm mma.sync (sm_89 PTX)", tops["sm_89/int_mm_i8"], COLORS["tilec2"]),
            ("block program mma.sync (sm_89 PTX)", tops["sm_89/linear_block_i8"], COLORS["tilec2"]),
            ("torch._int_mm", tops["int_mm"], COLORS["torch"])]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ys = range(len(bars))
    ax.barh(list(ys), [b[1] for b in bars], color=[b[2] for b in bars])
    ax.set_yticks(list(ys))
    ax.set_yticklabels([b[0] for b in bars], fontsize=8)
    ax.invert_yaxis()
    for y, b in zip(ys, bars):
        ax.text(b[1], y, f" {b[1]:.0f}", va="center", fontsize=8)
    ax.set_xlabel(f"TOPS at {shape_label(s['shape'])}")
    ax.set_xlim(0, max(b[1] for b in bars) * 1.12)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    finish(fig, "INT8 GEMM (i8 x i8 -> i32): tilec vs torch._int_mm", rec, name, out,
           "gemm_int8.png")


def plot_corpus(results, out):
    """The corpus: tilec sm_90a over its Triton twin and over torch's op, per entry."""
    name = "2026-12-06_corpus_a35f69c_h100.json"
    rec = load(results, name)
    tilec = "tilec_sm_90a_fast"
    labels, vs_triton, vs_torch = [], [], []
    for entry in sorted(rec["entries"]):
        rows = rec["entries"][entry]["bench"]
        for r in rows:
            perf = r["perf"]
            if tilec not in perf:
                continue
            labels.append(entry if len(rows) == 1 else f"{entry} {shape_label(r['shape'])}")
            vs_triton.append(perf[tilec] / perf["triton"] if perf.get("triton") else None)
            vs_torch.append(perf[tilec] / perf["torch"] if perf.get("torch") else None)
    n = len(labels)
    fig, ax = plt.subplots(figsize=(8, 0.22 * n + 1.8))
    h = 0.38
    # Bars grow from 1x, left for slower, right for faster.
    ax.barh([i - h / 2 for i in range(n)], [(v or 1) - 1 for v in vs_triton], h, left=1,
            color=COLORS["triton"], label="tilec / Triton twin")
    ax.barh([i + h / 2 for i in range(n)], [(v or 1) - 1 for v in vs_torch], h, left=1,
            color=COLORS["torch"], label="tilec / torch")
    for i, v in enumerate(vs_triton):
        if v is None:
            ax.text(1.03, i - h / 2, "Triton twin does not compile", va="center", fontsize=6)
    ax.set_xscale("log", base=2)
    ax.axvline(1.0, color="black", lw=0.8)
    ticks = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16]
    lo = min(v for v in vs_triton + vs_torch if v)
    hi = max(v for v in vs_triton + vs_torch if v)
    ticks = [t for t in ticks if lo / 2 <= t <= hi * 2]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}x" for t in ticks])
    ax.set_xlim(2 ** math.floor(math.log2(lo)), 2 ** math.ceil(math.log2(hi)))
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_xlabel("speed ratio (TFLOP/s or GB/s), log scale; right of 1 = tilec faster")
    ax.legend(fontsize=7, loc="lower right")
    finish(fig, "Corpus: tilec sm_90a (--fast-math) vs each program's Triton twin and torch",
           rec, name, out, "corpus.png")


PLOTS = [plot_gemm, plot_attention, plot_attention_backward, plot_fp8, plot_int8, plot_corpus]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="bench/results")
    ap.add_argument("--out", default="docs/plots")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for plot in PLOTS:
        plot(args.results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
