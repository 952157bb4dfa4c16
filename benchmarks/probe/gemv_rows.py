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
import importlib.util
import os
import statistics
import subprocess

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--kn", default="4096x4096,4096x11008,2048x2048")
ap.add_argument("--configs", default="8,256,8;8,256,16;4,256,8;4,256,16;4,128,8;8,128,16;8,512,8")
ap.add_argument("--dtypes", default="bfloat16")
ap.add_argument("--reps", type=int, default=40)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--busy-us", type=float, default=200.0)
ap.add_argument("--profile", action="store_true", help="call each kernel twice after a cache flush, untimed (for ncu)")
args = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "backends")
so = "/tmp/gemv_rows.so"
subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC", "-o", so,
                "-I", os.path.join(root, "include"), "--expt-relaxed-constexpr", os.path.join(here, "gemv_rows.cu")], check=True)
lib = ctypes.CDLL(so)
spec = importlib.util.spec_from_file_location("measure", os.path.join(here, "..", "..", "infinicore_torch", "bench", "measure.py"))
measure = importlib.util.module_from_spec(spec)
spec.loader.exec_module(measure)
dev = torch.device("cuda")
timer = measure.Timer(dev, args.busy_us)


def ours(rows, f32, ct, nt, slices, n, k, a, b, c):
    def fn(*_):
        rc = lib.gv_launch(rows, f32, ct, nt, slices, ctypes.c_longlong(n), ctypes.c_longlong(k), ctypes.c_void_p(a.data_ptr()),
                           ctypes.c_void_p(b.data_ptr()), ctypes.c_void_p(c.data_ptr()))
        if rc != 0:
            raise RuntimeError(f"launch failed ({rc})")
    return fn


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
        errs = []
        for fn in fns[:-1]:
            c.zero_()
            fn()
            torch.cuda.synchronize()
            errs.append(((c.float() - want).norm() / want.norm()).item())
        errs.append(0.0)
        if args.profile:
            for fn in fns[:-1]:
                for _ in range(2):
                    timer.flush()
                    fn()
            torch.cuda.synchronize()
            continue
        per = [[] for _ in fns]
        for _ in range(args.rounds):
            ts = timer.time_interleaved(fns, (), min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
            for i, t in enumerate(ts):
                per[i].append(statistics.median(t) * 1e6)
        torch_us = statistics.median(per[-1])
        for name, p, e in zip(names, per, errs):
            us = statistics.median(p)
            print(f"{str(dt)[6:]:9s} 1x{k}x{n:<7d} {name:24s} {us:8.2f} us  {torch_us / us:6.3f}x torch  {k * n * a.element_size() / us / 1e3:6.0f} GB/s  rel_l2 {e:.1e}", flush=True)
