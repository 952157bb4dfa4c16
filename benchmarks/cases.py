"""The calls the GPU probes (kernel_times.py, launch_gap.py, ncu_probe.py) time or profile: for each
`op[:set[,set]]` item (default set: decode), each shape of the comparison tool's sets, and each
implementation that resolves on `device` (the others are left out), one (op, label, impl, fn, inputs)
case, inputs made once a shape, in bfloat16."""

import argparse
from collections import defaultdict

import torch

from infinicore_torch.bench import impls as IM
from infinicore_torch.bench import measure
from infinicore_torch.bench import specs as S


def probe_setup(doc, reps, impls="infini,compile,triton,liger", extra=()):
    """The probes' common command line (op items, --reps, --busy-us, --impls, and `extra` as (flags,
    keywords) pairs for argparse) and the comparison tool's timer on the CUDA device: (args, device, timer)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("items", nargs="+", help="op or op:shape_set[,shape_set] (default set: decode)")
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--busy-us", type=float, default=100.0)
    ap.add_argument("--impls", default=impls)
    for flags, keywords in extra:
        ap.add_argument(*flags, **keywords)
    args = ap.parse_args()
    dev = torch.device("cuda")
    return args, dev, measure.Timer(dev, args.busy_us)


def cases(items, impls, device, seed=0):
    g = torch.Generator().manual_seed(seed)
    for item in items:
        op, _, sets = item.partition(":")
        spec = S.specs()[op]
        for shape_set in (sets or "decode").split(","):
            for p in spec.shapes[shape_set]:
                inputs = spec.make(p, torch.bfloat16, device, g)
                for impl in impls:
                    try:
                        fn = IM.resolve(impl, spec, device)
                    except IM.Skip:
                        continue
                    yield op, spec.label(p), impl, fn, inputs


def kernel_durations(timer, fn, inputs, reps):
    """{name: [device durations, us]} of the kernels launched while `timer` times fn `reps` times."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        timer.time(fn, inputs, min_reps=reps, max_reps=reps, budget_s=0.0, warmup=0)
    got = defaultdict(list)
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CPU:  # kernels (labelled PrivateUse1 once infini is registered)
            got[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    return got
