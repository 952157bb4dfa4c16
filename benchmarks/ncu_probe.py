"""Calls to profile under ncu (run it with --profile-from-start off): each implementation of each item
once, between cudaProfilerStart/Stop, in an NVTX range "op shape impl" (after warm-up calls, so compile's
and Triton's code generation is not profiled). --flush: each call preceded, outside its range, by the
tool's L2 flush (persisting lines reset, 256 MB written) and 100 us of GPU spin, so that with
`ncu --cache-control none` the call finds the memory system as the tool leaves it (filter the profiled
kernels by name). Usage:
    ncu --profile-from-start off --nvtx ... python3 benchmarks/ncu_probe.py op[:set[,set]] ... [--impls a,b] [--flush]"""

import argparse

import torch
from cases import cases  # (benchmarks, this script's folder)

import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("items", nargs="+", help="op or op:shape_set[,shape_set] (default set: decode)")
ap.add_argument("--impls", default="infini,compile,triton")
ap.add_argument("--flush", action="store_true", help="precede each call by the tool's L2 flush and busy window")
args = ap.parse_args()
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0) if args.flush else None
work = [
    (f"{op} {label} {impl}", fn, inputs)
    for op, label, impl, fn, inputs in cases(args.items, args.impls.split(","), dev)
]
for _, fn, inputs in work:
    for _ in range(3):
        fn(*inputs)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for name, fn, inputs in work:
    if timer is not None:
        torch.cuda.synchronize()
        timer.flush()
        torch.cuda._sleep(timer.busy_cycles)
    torch.cuda.nvtx.range_push(name)
    fn(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
torch.cuda.cudart().cudaProfilerStop()
print("\n".join(n for n, _, _ in work))
