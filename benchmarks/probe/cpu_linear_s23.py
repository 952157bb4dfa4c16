"""Twenty-third session: infinicore_torch.ops.linear / gemm on CPU tensors against F.linear / torch.mm for
[M, 4096] x [4096, 4096], float32 and bfloat16, at several M (medians of interleaved calls, two input
copies). Usage: python3 cpu_linear_s23.py [--dtypes float32,bfloat16] [--ms 1,16,64,256,512] [--reps 10]"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F
import infinicore_torch

ap = argparse.ArgumentParser()
ap.add_argument("--dtypes", default="float32,bfloat16")
ap.add_argument("--ms", default="1,16,24,64,256,512")
ap.add_argument("--reps", type=int, default=10)
args = ap.parse_args()
I = infinicore_torch.ops
K = N = 4096
print(f"# torch {torch.__version__}, {torch.get_num_threads()} threads")
print(f"{'op':8} {'dtype':9} {'M':>5} {'ours ms':>9} {'torch ms':>9} {'ratio':>6}")
for dt in [getattr(torch, d) for d in args.dtypes.split(",")]:
    for M in [int(m) for m in args.ms.split(",")]:
        for name, ours, theirs, wshape in (("linear", I.linear, F.linear, (N, K)), ("gemm", I.gemm, torch.mm, (K, N))):
            sets = [(torch.randn(M, K).to(dt), torch.randn(*wshape).to(dt)) for _ in range(2)]
            a, b = [], []
            for j in range(args.reps + 2):
                x, w = sets[j % 2]
                for fn, out in ((ours, a), (theirs, b)) if j % 2 == 0 else ((theirs, b), (ours, a)):
                    t0 = time.perf_counter()
                    fn(x, w)
                    out.append(time.perf_counter() - t0)
            m1, m2 = statistics.median(a[2:]) * 1e3, statistics.median(b[2:]) * 1e3
            print(f"{name:8} {str(dt)[6:]:9} {M:5d} {m1:9.2f} {m2:9.2f} {m1 / m2:6.2f}", flush=True)
