"""Variants of the few-rows dot-product kernel (k-contiguous B: linear's weight) for 1, 2 and 4 rows of bf16 A:
R output columns a warp (1, 2, 4) and A staged in shared memory, against gemv.cu's own kernel and F.linear
(cuBLASLt), timed as the comparison tool times (L2 flush, GPU kept busy, interleaved, medians over rounds). No
package build: nvcc builds gemv_dot.cu (gemv.cu included) into a library called through ctypes, and the tool's
timer is loaded from its file.

    python3 benchmarks/probe/gemv_dot.py [--rows 1,2,4] [--kn 4096x4096,...] [--configs "1,0;2,0;4,0;1,1;2,1;4,1"]
"""
import argparse
import ctypes
import importlib.util
import os
import statistics
import subprocess

import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--rows", default="1,2,4")
ap.add_argument("--kn", default="4096x4096,4096x11008,11008x4096,4096x14336")
ap.add_argument("--configs", default="1,0;2,0;4,0;1,1;2,1;4,1", help="R,SA pairs, ';'-separated")
ap.add_argument("--reps", type=int, default=40)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--busy-us", type=float, default=200.0)
args = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
so = "/tmp/gemv_dot.so"
subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC", "-o", so, "-I",
                os.path.join(here, "..", "..", "backends", "include"), "--expt-relaxed-constexpr",
                os.path.join(here, "gemv_dot.cu")], check=True)
lib = ctypes.CDLL(so)
spec = importlib.util.spec_from_file_location("measure", os.path.join(here, "..", "..", "infinicore_torch", "bench", "measure.py"))
measure = importlib.util.module_from_spec(spec)
spec.loader.exec_module(measure)
dev = torch.device("cuda")
timer = measure.Timer(dev, args.busy_us)


def ours(m, r, sa, n, k, x, w, c):
    def fn(*_):
        rc = lib.gd_launch(m, r, sa, 0, ctypes.c_longlong(n), ctypes.c_longlong(k), ctypes.c_void_p(x.data_ptr()),
                           ctypes.c_void_p(w.data_ptr()), ctypes.c_void_p(c.data_ptr()))
        if rc != 0:
            raise RuntimeError(f"launch failed ({rc})")
    return fn


for kn in args.kn.split(","):
    k, n = map(int, kn.split("x"))
    w = torch.randn(n, k, device=dev, dtype=torch.bfloat16) * 0.05
    for m in map(int, args.rows.split(",")):
        x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        c = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
        want = x.float() @ w.float().t()
        names, fns = ["gemv.cu dot"], [ours(m, 0, 0, n, k, x, w, c)]
        for cfg in [s for s in args.configs.split(";") if s]:
            r, sa = map(int, cfg.split(","))
            names.append(f"R={r}{' A in smem' if sa else ''}")
            fns.append(ours(m, r, sa, n, k, x, w, c))
        names.append("F.linear")
        fns.append(lambda *_: F.linear(x, w))
        errs = []
        for fn in fns[:-1]:
            c.zero_()
            fn()
            torch.cuda.synchronize()
            errs.append(((c.float() - want).norm() / want.norm()).item())
        errs.append(0.0)
        per = [[] for _ in fns]
        for _ in range(args.rounds):
            ts = timer.time_interleaved(fns, (), min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
            for i, t in enumerate(ts):
                per[i].append(statistics.median(t) * 1e6)
        ref = statistics.median(per[-1])
        for name, p, e in zip(names, per, errs):
            us = statistics.median(p)
            print(f"{m}x{k}x{n:<7d} {name:16s} {us:8.2f} us  {ref / us:6.3f}x F.linear  {n * k * 2 / us / 1e3:6.0f} GB/s  rel_l2 {e:.1e}", flush=True)
