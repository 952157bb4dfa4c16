"""Variants of the few-rows dot-product kernel (k-contiguous B: linear's weight) for 1, 2 and 4 rows of bf16 A:
R output columns a warp (1, 2, 4) and A staged in shared memory, against gemv.cu's own kernel and F.linear
(cuBLASLt), timed as the comparison tool times (L2 flush, GPU kept busy, interleaved, medians over rounds). No
package build: nvcc builds gemv_dot.cu (gemv.cu included) into a library called through ctypes, and the tool's
timer is loaded from its file.

    python3 benchmarks/probe/gemv_dot.py [--rows 1,2,4] [--kn 4096x4096,...] [--configs "1,0;2,0;4,0;1,1;2,1;4,1"]
"""
import argparse
import ctypes

import torch
import torch.nn.functional as F
from nvcc_probe import build, launcher, medians, rel_errors, tool_timer  # (this script's folder)

ap = argparse.ArgumentParser()
ap.add_argument("--rows", default="1,2,4")
ap.add_argument("--kn", default="4096x4096,4096x11008,11008x4096,4096x14336")
ap.add_argument("--configs", default="1,0;2,0;4,0;1,1;2,1;4,1", help="R,SA pairs, ';'-separated")
ap.add_argument("--reps", type=int, default=40)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--busy-us", type=float, default=200.0)
args = ap.parse_args()
lib = build("gemv_dot.cu")
I, L, P = ctypes.c_int, ctypes.c_longlong, ctypes.c_void_p
lib.gd_launch.argtypes = [I, I, I, I, L, L, P, P, P]
lib.gd_launch.restype = ctypes.c_int
timer = tool_timer(args.busy_us)
dev = torch.device("cuda")


def ours(m, r, sa, n, k, x, w, c):
    return launcher(lib.gd_launch, m, r, sa, 0, n, k, x, w, c)


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
        errs = rel_errors(fns[:-1], c, want) + [0.0]
        meds = medians(timer, fns, args.reps, args.rounds)
        ref = meds[-1]
        for name, us, e in zip(names, meds, errs):
            print(f"{m}x{k}x{n:<7d} {name:16s} {us:8.2f} us  {ref / us:6.3f}x F.linear  {n * k * 2 / us / 1e3:6.0f} GB/s  rel_l2 {e:.1e}", flush=True)
