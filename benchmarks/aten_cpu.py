"""A Llama forward on the CPU backend's device ("infini") against plain CPU PyTorch, same machine, same run.

    python benchmarks/aten_cpu.py [--layers 4] [--hidden 512] [--tokens 128] [--reps 10] [--dtype float32]
        [--processes 5] [--csv benchmarks/results/cpu.csv]

Both models hold the same random weights; runs alternate between the two, each ending with a device
synchronization; medians of wall-clock time. The infini run has INFINI_FALLBACK=error (every op native). With
--processes N the figures are the medians over N processes; --csv merges them into a results CSV.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time

import torch

import infinicore_torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.processes > 1 or args.csv:
        return over_processes(args)
    import transformers

    dtype = getattr(torch, args.dtype)
    cfg = transformers.LlamaConfig(
        vocab_size=32000,
        hidden_size=args.hidden,
        intermediate_size=args.hidden * 11 // 4,
        num_hidden_layers=args.layers,
        num_attention_heads=8,
        num_key_value_heads=4,
    )
    torch.manual_seed(0)
    cpu = transformers.LlamaForCausalLM(cfg).to(dtype).eval()
    dev = copy.deepcopy(cpu).to("infini")
    ids = torch.randint(0, 32000, (1, args.tokens), generator=torch.Generator().manual_seed(1))
    ids_dev = ids.to("infini")
    os.environ["INFINI_FALLBACK"] = "error"
    with torch.no_grad():
        ref, got = cpu(ids).logits, dev(ids_dev).logits
        err = (got.cpu().float() - ref.float()).abs().max().item()
        t_cpu, t_dev = [], []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            cpu(ids)
            t_cpu.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            dev(ids_dev)
            torch.infini.synchronize()
            t_dev.append(time.perf_counter() - t0)
    m_cpu, m_dev = statistics.median(t_cpu) * 1e3, statistics.median(t_dev) * 1e3
    if args.json:
        print(json.dumps({"cpu_ms": m_cpu, "infini_ms": m_dev, "err": err}))
        return
    print(
        f"llama {args.layers}x{args.hidden}, {args.tokens} tokens, {args.dtype}, {torch.get_num_threads()} threads: "
        f"cpu {m_cpu:.2f} ms, infini {m_dev:.2f} ms, ratio {m_dev / m_cpu:.2f} (max |diff| {err:.2e}; "
        f"fallbacks {infinicore_torch.fallback_stats()})"
    )


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        return "CPU"


def over_processes(args):
    cmd = [sys.executable, __file__, "--json"]
    for name in ("layers", "hidden", "tokens", "reps", "dtype"):
        cmd += [f"--{name}", str(getattr(args, name))]
    runs = []
    for _ in range(args.processes):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        runs.append(json.loads(out))
    m_cpu = statistics.median(r["cpu_ms"] for r in runs)
    m_dev = statistics.median(r["infini_ms"] for r in runs)
    label = f"llama {args.layers}x{args.hidden}, {args.tokens} tokens"
    print(
        f"{label}, {args.dtype}, {torch.get_num_threads()} threads, median of {len(runs)} processes: "
        f"cpu {m_cpu:.2f} ms, infini {m_dev:.2f} ms, ratio {m_dev / m_cpu:.2f}"
    )
    if args.csv:
        from infinicore_torch.bench import report

        meta = {"device_name": f"{cpu_name()}, {torch.get_num_threads()} threads", "torch": torch.__version__}
        common = dict(op="aten:llama_forward", set="model", shape=f"{args.layers}x{args.hidden}x{args.tokens}")
        rows = [
            dict(common, dtype=args.dtype, impl="infini", median_us=m_dev * 1e3),
            dict(common, dtype=args.dtype, impl="torch", median_us=m_cpu * 1e3),
        ]
        report.write_csv(args.csv, rows, meta)


if __name__ == "__main__":
    main()
