"""The row-major few-rows gemm kernel (gemv.cu) at 1 row under other geometries (threads across a row x threads)
and numbers of K slices (a cluster; 16 is non-portable), against gemv.cu's own choice, torch.mm, and the dot-product
kernel on the same weights stored [N, K] (what a k-contiguous read reaches); timed as the comparison tool times
(L2 flush, GPU kept busy, interleaved, medians over rounds). Needs no package build: nvcc builds gemv_rows.cu into a
library called through ctypes, and the tool's timer is loaded from its file.

    python3 benchmarks/probe/gemv_rows.py [--kn 4096x4096,4096x11008] [--configs 8,256,8;8,256,16;4,256,8]
    ncu -k regex:gemv ... python3 benchmarks/probe/gemv_rows.py --profile ...   (gpu_ncu_gemv_s44.sh)
"""
import argparse
import ctypes

import torch
from nvcc_probe import build, launcher, medians, profile_calls, rel_errors, tool_timer  # (this script's folder)

ap = argparse.ArgumentParser()
ap.add_argument("--kn", default="4096x4096,4096x11008,2048x2048")
ap.add_argument("--configs", default="8,256,8;8,256,16;4,256,8;4,256,16;4,128,8;8,128,16;8,512,8")
ap.add_argument("--dtypes", default="bfloat16")
ap.add_argument("--reps", type=int, default=40)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--busy-us", type=float, default=200.0)
ap.add_argument("--profile", action="store_true", help="call each kernel twice after a cache flush, untimed (for ncu)")
args = ap.parse_args()
lib = build("gemv_rows.cu")
I, L, P = ctypes.c_int, ctypes.c_longlong, ctypes.c_void_p
lib.gv_launch.argtypes = [I, I, I, I, I, L, L, P, P, P]
lib.gv_launch.restype = ctypes.c_int
timer = tool_timer(args.busy_us)
dev = torch.device("cuda")


def ours(rows, f32, ct, nt, slices, n, k, a, b, c):
    return launcher(lib.gv_launch, rows, f32, ct, nt, slices, n, k, a, b, c)


for dt in [getattr(torch, d) for d in args.dtypes.split(",")]:
    f32 = int(dt == torch.float32)
    for kn in args.kn.split(","):
        k, n = map(int, kn.split("x"))
        a = torch.randn(1, k, device=dev, dtype=dt)
        b = torch.randn(k, n, device=dev, dtype=dt) * 0.05
        bt = b.t().contiguous()
        c = torch.empty(1, n, device=dev, dtype=dt)
        want = (a.float() @ b.float())
        names, fns = ["gemv.cu's choice"], [ours(1, f32, 8, 256, 0, n, k, a, b, c)]
        for cfg in [x for x in args.configs.split(";") if x]:
            ct, nt, sl = map(int, cfg.split(","))
            names.append(f"rows {ct}x{nt} slices {sl}")
            fns.append(ours(1, f32, ct, nt, sl, n, k, a, b, c))
        names += ["dot [N, K]", "torch.mm"]
        fns += [ours(0, f32, 0, 0, 0, n, k, a, bt, c), lambda *_: torch.mm(a, b)]
        errs = rel_errors(fns[:-1], c, want) + [0.0]
        if args.profile:
            profile_calls(timer, fns[:-1])
            continue
        meds = medians(timer, fns, args.reps, args.rounds)
        torch_us = meds[-1]
        for name, us, e in zip(names, meds, errs):
            print(f"{str(dt)[6:]:9s} 1x{k}x{n:<7d} {name:24s} {us:8.2f} us  {torch_us / us:6.3f}x torch  {k * n * a.element_size() / us / 1e3:6.0f} GB/s  rel_l2 {e:.1e}", flush=True)
