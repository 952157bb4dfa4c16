"""Calls to profile under ncu (run it with --profile-from-start off): each implementation of each item
once, between cudaProfilerStart/Stop, in an NVTX range "op shape impl" (after warm-up calls, so compile's
and Triton's code generation is not profiled). Usage:
    ncu --profile-from-start off --nvtx ... python3 benchmarks/probe/ncu_probe.py op[:set[,set]] ... [--impls a,b]"""
import argparse

import torch
import infinicore_torch  # noqa: F401
from cases import cases  # (benchmarks/probe, this script's folder)

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("items", nargs="+", help="op or op:shape_set[,shape_set] (default set: decode)")
ap.add_argument("--impls", default="infini,compile,triton")
args = ap.parse_args()
dev = torch.device("cuda")
work = [(f"{op} {label} {impl}", fn, inputs) for op, label, impl, fn, inputs in cases(args.items, args.impls.split(","), dev)]
for _, fn, inputs in work:
    for _ in range(3):
        fn(*inputs)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for name, fn, inputs in work:
    torch.cuda.nvtx.range_push(name)
    fn(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
torch.cuda.cudart().cudaProfilerStop()
print("\n".join(n for n, _, _ in work))
