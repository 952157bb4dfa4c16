"""The cpu backend's kernels exist in two builds (AVX2, and AVX-512 with BF16/AMX; see
backends/cpu/ops/isa.h). The tests run with the one this CPU picks; this file checks that the
other agrees: the same ops computed in a subprocess forced to the AVX2 build (INFINI_CPU_ISA=avx2),
and with AMX off (INFINI_CPU_AMX=0), against this process and against float64 references."""

import os
import subprocess
import sys

import torch

import infinicore_torch  # noqa: F401

I = torch.ops.infini

SCRIPT = r"""
import sys, torch, infinicore_torch
I = torch.ops.infini
torch.manual_seed(0)
out = {}
for dt in (torch.float32, torch.float16, torch.bfloat16):
    x = torch.randn(7, 769).to(dt); y = torch.randn(7, 769).to(dt); w = torch.randn(769).to(dt)
    name = str(dt).split(".")[-1]
    out[name + "_silu"] = I.silu(x)
    out[name + "_gelu"] = I.gelu(x)
    out[name + "_swiglu"] = I.swiglu(x, y)
    out[name + "_rms_norm"] = I.rms_norm(x, w, 1e-6)
    out[name + "_layer_norm"] = I.layer_norm(x, w, w, 1e-5)
    out[name + "_softmax"] = I.softmax(x, -1)
    a = torch.randn(83, 130).to(dt); b = torch.randn(130, 77).to(dt); wt = torch.randn(300, 130).to(dt)
    out[name + "_gemm"] = I.gemm(a, b)
    out[name + "_gemm_t"] = I.gemm(b.t(), a.t())
    out[name + "_linear"] = I.linear(a, wt)
    q = torch.randn(3, 8, 64).to(dt)
    kc = torch.randn(12, 2, 16, 64).to(dt); vc = torch.randn(12, 2, 16, 64).to(dt)
    tables = torch.arange(12, dtype=torch.int32).view(3, 4); lens = torch.tensor([1, 33, 64], dtype=torch.int32)
    out[name + "_paged_attention"] = I.paged_attention(q, kc, vc, tables, lens, None, 0.125)
torch.save(out, sys.argv[1])
"""

TOL = {"float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2}


def run(tmp_path, tag, env):
    path = tmp_path / f"{tag}.pt"
    subprocess.run([sys.executable, "-c", SCRIPT, str(path)], check=True, env={**os.environ, **env})
    return torch.load(path)


def test_builds_agree(tmp_path):
    default = run(tmp_path, "default", {})
    for tag, env in (("avx2", {"INFINI_CPU_ISA": "avx2"}), ("noamx", {"INFINI_CPU_AMX": "0"})):
        other = run(tmp_path, tag, env)
        assert other.keys() == default.keys()
        for key, value in default.items():
            ref = value.double()
            scale = max(1.0, ref.abs().max().item())
            tol = TOL[key.split("_")[0]] * (8 if "gemm" in key or "linear" in key else 2)
            err = (other[key].double() - ref).abs().max().item() / scale
            assert err <= tol, f"{tag} {key}: max error {err:.3g} relative to the default build (tolerance {tol:.3g})"
