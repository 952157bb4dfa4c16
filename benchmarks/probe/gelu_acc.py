"""gelu's erf on the GPU: ours under each value of INFINI_PROBE_GELU (tens digit 1: erfNoBranch, 0: erff)
against float64 on the CPU and torch's own CUDA gelu, float32 and bfloat16; prints max error in float32 ulps
(of the float64 result rounded to float32) and the share of bf16 outputs unlike torch's. 49th session probe.
Usage: python3 gelu_acc.py 0,10"""
import math
import os
import sys

import torch
import torch.nn.functional as F
import infinicore_torch  # noqa: F401

values = sys.argv[1].split(",")
g = torch.Generator().manual_seed(0)
x = torch.cat([torch.linspace(-12, 12, 4_000_001, dtype=torch.float64).float(), torch.randn(4_000_000, generator=g) * 3,
               torch.tensor([0.0, -0.0, 1.0, -1.0, 4.0, -4.0, 1e-30, -1e-30, 1e-45, float("inf"), -float("inf"), float("nan")])])
# every float32 between 0.5 and 8 in steps of 2^-18 (both signs)
x = torch.cat([x, torch.arange(0.5, 8, 2.0 ** -18, dtype=torch.float64).float(), -torch.arange(0.5, 8, 2.0 ** -18, dtype=torch.float64).float()])
ref = (0.5 * x.double() * (1 + torch.special.erf(x.double() / math.sqrt(2))))
ref32 = ref.float()
ulp = (torch.nextafter(ref32.abs(), torch.tensor(float("inf"))) - ref32.abs()).double()
xc = x.cuda()
torch_cuda = F.gelu(xc).cpu()
def report(name, y):
    y = y.cpu()
    both_nan = y.isnan() & ref.isnan()
    fin = ref.isfinite() & ~both_nan
    err = ((y.double() - ref).abs() / ulp)[fin]
    same_inf = (y[~ref.isfinite()] .eq(ref32[~ref.isfinite()]) | both_nan[~ref.isfinite()]).all().item()
    i = err.argmax().item()
    print(f"{name:24s} float32: max {err.max().item():.2f} ulp at x={x[fin][i].item():.9g}, mean {err.mean().item():.4f}, "
          f"> 2 ulp {(err > 2).sum().item()}, inf/nan like float64: {same_inf}; unlike torch cuda {(y != torch_cuda).sum().item()} of {y.numel()}")
report("torch cuda", torch_cuda)
xb = xc.bfloat16()
torch_b = F.gelu(xb).cpu()
ref_b = (0.5 * xb.double() * (1 + torch.special.erf(xb.double() / math.sqrt(2)))).bfloat16().cpu()
for v in values:
    os.environ["INFINI_PROBE_GELU"] = v
    y = torch.ops.infini.gelu(xc)
    report(f"infini GELU={v}", y)
    yb = torch.ops.infini.gelu(xb).cpu()
    d = (yb.float() - torch_b.float()).abs()
    print(f"{'':24s} bfloat16: unlike torch cuda {(yb != torch_b).sum().item()} (nan-aware {((yb != torch_b) & ~(yb.isnan() & torch_b.isnan())).sum().item()}) of {yb.numel()}, "
          f"unlike float64 rounded {((yb != ref_b) & ~(yb.isnan() & ref_b.isnan())).sum().item()} (torch {((torch_b != ref_b) & ~(torch_b.isnan() & ref_b.isnan())).sum().item()})")
