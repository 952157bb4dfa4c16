"""The GPU kernels each implementation launches for one call, with their device durations (torch.profiler,
CUPTI), the L2 flushed and the GPU kept busy before every call as the comparison tool does: tells a slow
kernel from extra kernels or gaps. Usage: python3 benchmarks/probe/kernel_times.py op[:set] ... [--reps N]"""
import statistics
import sys
from collections import defaultdict

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import impls as IM
from infinicore_torch.bench import specs as S

dev = torch.device("cuda")
args = [a for a in sys.argv[1:] if not a.startswith("--")]
reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 30
args = [a for a in args if not a.isdigit()]
flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=dev)


def prelude():
    flush.zero_()
    torch.cuda._sleep(200000)


def kernels(fn, inputs, n):
    """[(name, [durations us])] of the kernels fn launches per call, prelude kernels left out."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            prelude()
            if fn is not None:
                fn(*inputs)
        torch.cuda.synchronize()
    got = defaultdict(list)
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CPU:  # kernels (labelled PrivateUse1 once infini is registered)
            got[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    return got


base = set(kernels(None, (), 3))
g = torch.Generator().manual_seed(0)
for item in args:
    op, _, sets = item.partition(":")
    spec = S.specs()[op]
    for shape_set in (sets or "decode").split(","):
        for p in spec.shapes[shape_set]:
            inputs = spec.make(p, torch.bfloat16, dev, g)
            for impl in IM.IMPLS[:]:
                if impl == "torch" and op not in ("softmax",):
                    continue
                try:
                    fn = IM.resolve(impl, spec, dev)
                except Exception:
                    continue
                for _ in range(3):
                    fn(*inputs)
                torch.cuda.synchronize()
                got = kernels(fn, inputs, reps)
                rows = [(k, v) for k, v in got.items() if k not in base]
                total = sum(statistics.median(v) * len(v) / reps for k, v in rows)
                desc = "; ".join(f"{k[:60]} x{len(v) / reps:g} {statistics.median(v):.2f}" for k, v in rows)
                print(f"{op:16s} {spec.label(p):16s} {impl:8s} kernels {total:6.2f} us | {desc}", flush=True)
