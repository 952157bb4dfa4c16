"""Twenty-first session: softmax kernel variants chosen by a temporary knob (SM_L2=1,2,3: the two-pass
kernel; SM_V=...: stream kernel variants) against float64 torch on long lines (the stream path's shapes),
dtypes bf16/f16/f32, with NaN / -inf lines. Usage: python3 check_l2_s21.py [VAR=v1,v2,...]"""
import os
import sys

import torch
import infinicore_torch  # noqa: F401

dev = torch.device("cuda")
g = torch.Generator(device=dev).manual_seed(1)
bad = 0
var, _, vals = (sys.argv[1] if len(sys.argv) > 1 else "SM_L2=0,1,2,3").partition("=")
for kv in vals.split(","):
    os.environ[var] = kv
    for dt, tol in [(torch.bfloat16, 1e-2), (torch.float16, 2e-3), (torch.float32, 1e-5)]:
        for rows, n in [(512, 128256), (300, 100000), (700, 32768)]:
            x = (torch.randn(rows, n, device=dev, generator=g) * 3).to(dt)
            x[3, 5] = float("nan")
            x[4] = float("-inf")
            x[5] = float("-inf"); x[5, n - 1] = float("nan")
            x[6, :n // 2] = float("-inf")
            y = torch.ops.infini.softmax(x, -1)
            ref = torch.softmax(x.double(), -1)
            both_nan = torch.isnan(y) == torch.isnan(ref)
            err = ((y.double() - ref).abs() / (ref.abs() + 1e-3)).nan_to_num(0).max().item()
            abs_err = (y.double() - ref).abs().nan_to_num(0).max().item()
            ok = bool(both_nan.all()) and abs_err <= tol
            bad += not ok
            print(f"{var}={kv} {str(dt):15s} {rows}x{n}: nan pattern {'ok' if both_nan.all() else 'DIFFERS'}, "
                  f"max abs err {abs_err:.2e}, max rel err {err:.2e} {'ok' if ok else 'BAD'}", flush=True)
print("bad:", bad)
