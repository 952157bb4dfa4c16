"""gemm / linear with 1-4 rows of A (decode) timed as the comparison tool times (L2 flush, GPU kept busy, events):
ours under INFINI_PROBE_GEMV=1 (the few-rows kernels of gemv.cu wherever they fit; for gemm under each --configs
value of INFINI_PROBE_ROWS, the row-major kernel's geometry), ours under INFINI_PROBE_GEMV=0 (cuBLASLt) and
torch.mm / F.linear, interleaved in every round; medians over rounds and the ratios to torch. The knobs are read at
launch only with gemv_knob_s44.patch applied (INFINI_PROBE_ROWS only in the 44th session's call-3 build); on main
both of ours are the landed choice. Usage:
    python3 benchmarks/probe/gemv_sweep.py [--rows 1,2,4] [--dtypes bfloat16,float32] [--kn 4096x4096,...] [--ops gemm,linear]"""
import argparse
import os
import statistics

import torch
import torch.nn.functional as F
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--rows", default="1,2,4")
ap.add_argument("--dtypes", default="bfloat16,float32")
ap.add_argument("--kn", default="4096x4096,4096x11008,11008x4096,4096x14336,2048x2048,4096x1024")
ap.add_argument("--reps", type=int, default=60)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--busy-us", type=float, default=300.0)
ap.add_argument("--ops", default="gemm,linear")
ap.add_argument("--configs", default="", help="INFINI_PROBE_ROWS values for gemm, ';'-separated (default: the built-in one)")
args = ap.parse_args()
dev = torch.device("cuda")
timer = measure.Timer(dev, args.busy_us)
I = torch.ops.infini


def knob(v, fn, rows=""):
    def call(*a):
        os.environ["INFINI_PROBE_GEMV"] = v
        if rows:
            os.environ["INFINI_PROBE_ROWS"] = rows
        else:
            os.environ.pop("INFINI_PROBE_ROWS", None)
        return fn(*a)
    return call


configs = [c for c in args.configs.split(";") if c] or [""]
print(f"{'op':7s} {'dtype':9s} {'m x k x n':18s} {'gemv':>8s} {'cublasLt':>9s} {'torch':>8s}  gemv/torch  lt/torch  GB/s(gemv)  [config]")
for dt in [getattr(torch, d) for d in args.dtypes.split(",")]:
    for kn in args.kn.split(","):
        k, n = map(int, kn.split("x"))
        for m in map(int, args.rows.split(",")):
            x = torch.randn(m, k, device=dev, dtype=dt)
            for op in args.ops.split(","):
                if op == "gemm":
                    w = torch.randn(k, n, device=dev, dtype=dt) * 0.05
                    ours, ref = (lambda a, b: I.gemm(a, b)), torch.mm
                else:
                    w = torch.randn(n, k, device=dev, dtype=dt) * 0.05
                    ours, ref = (lambda a, b: I.linear(a, b)), F.linear
                want = ref(x, w).float()
                cfgs = configs if op == "gemm" else [""]
                errs = []
                for c in cfgs:
                    got = knob("1", ours, c)(x, w).float()
                    errs.append(((got - want).norm() / want.norm()).item())
                fns = [knob("1", ours, c) for c in cfgs] + [knob("0", ours), ref]
                per = [[] for _ in fns]
                for _ in range(args.rounds):
                    ts = timer.time_interleaved(fns, (x, w), min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
                    for i, t in enumerate(ts):
                        per[i].append(statistics.median(t) * 1e6)
                meds = [statistics.median(p) for p in per]
                l, t = meds[-2], meds[-1]
                for c, g, err in zip(cfgs, meds, errs):
                    gbs = (m * k + k * n + m * n) * x.element_size() / g / 1e3
                    print(f"{op:7s} {str(dt)[6:]:9s} {m}x{k}x{n:<10d} {g:8.2f} {l:9.2f} {t:8.2f}  {t / g:9.3f}  {t / l:8.3f}  {gbs:8.0f}  rel_l2 {err:.1e}  [{c}]", flush=True)
os.environ.pop("INFINI_PROBE_GEMV", None)
os.environ.pop("INFINI_PROBE_ROWS", None)
