"""Prints the Triton code torch.compile (inductor) generates for one of the comparison tool's reference
functions on CUDA bf16 inputs, for reading its launch configuration. Usage:
python3 benchmarks/probe/compile_code.py silu_and_mul 16x11008 (or paged_caching 64: tokens)"""
import sys

import torch
from torch._inductor.utils import run_and_get_code
from infinicore_torch.bench import specs

name, shape = sys.argv[1], sys.argv[2]
if name == "paged_caching":  # shape: tokens
    tokens = int(shape)
    inputs = specs._paged_caching_make({"tokens": tokens, "blocks": 4096}, torch.bfloat16, torch.device("cuda"),
                                       torch.Generator().manual_seed(0))
    ref = specs._paged_caching_ref
else:
    rows, d = (int(v) for v in shape.split("x"))
    inputs = (torch.randn(rows, 2 * d, device="cuda", dtype=torch.bfloat16),)
    ref = {"silu_and_mul": specs._silu_and_mul_ref}[name]
_, code = run_and_get_code(torch.compile(ref), *inputs)
print("\n".join(code))
