"""The calls the GPU probes time or profile: for each `op[:set[,set]]` item (default set: decode), each
shape of the comparison tool's sets, and each implementation that resolves on `device` (the others are
left out), one (op, label, impl, fn, inputs) case, inputs made once a shape, in bfloat16; and the rounds of
kernel durations the A/B probes (ab_knobs.py, pa_layout.py) print."""
import argparse
import os
import statistics
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


def knob_setup(doc, reps):
    """The knob A/B probes' command line (VAR=v1,v2,... then op items, --reps, --rounds, --busy-us, --impls
    for the peers) and the tool's timer on the CUDA device: (args, var, values, device, timer)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("knob", help="VAR=v1,v2,...")
    ap.add_argument("items", nargs="+")
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--busy-us", type=float, default=100.0)
    ap.add_argument("--impls", default="compile,triton")
    args = ap.parse_args()
    var, _, values = args.knob.partition("=")
    dev = torch.device("cuda")
    return args, var, values.split(","), dev, measure.Timer(dev, args.busy_us)


def with_knob(var, fn, value):
    """fn, calling which first sets the environment knob `var` to `value` (the backend reads it at launch)."""
    def call(*a):
        os.environ[var] = value
        return fn(*a)
    return call


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


def grouped(items, peers, device, var="", values=()):
    """The cases of `items` by (op, label): {(op, label): {"inputs": ..., "fns": [(name, fn)]}}, ours first and
    then the peers (comma-separated `peers`); with a knob `var`, ours once per value of it, named "infini VAR=v"."""
    groups = {}
    for op, label, impl, fn, inputs in cases(items, ["infini"] + [i for i in peers.split(",") if i], device):
        g = groups.setdefault((op, label), {"inputs": inputs, "fns": []})
        if impl == "infini" and var:
            g["fns"] += [(f"infini {var}={v}", with_knob(var, fn, v)) for v in values]
        else:
            g["fns"].append((impl, fn))
    return groups


def kernel_durations(timer, fn, inputs, reps):
    """{name: [device durations, us]} of the kernels launched while `timer` times fn `reps` times."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        timer.time(fn, inputs, min_reps=reps, max_reps=reps, budget_s=0.0, warmup=0)
    got = defaultdict(list)
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CPU:  # kernels (labelled PrivateUse1 once infini is registered)
            got[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    return got


def knob_rounds(timer, work, rounds, reps, var=""):
    """Times each case of `work` [(key: tuple of str, knob value or None, fn, inputs)] in every round: the
    sum of the medians of its kernels' durations (those an empty call launches left out), after setting
    the environment knob `var` to the case's value where it has one. Prints every round and the medians
    over rounds; returns {key: [per-round totals]}."""
    base = set(kernel_durations(timer, lambda: None, (), 3))
    got = defaultdict(list)
    for rnd in range(rounds):
        for key, value, fn, inputs in work:
            if value is not None:
                os.environ[var] = value
            for _ in range(3):
                fn(*inputs)
            torch.cuda.synchronize()
            rows = [d for k, d in kernel_durations(timer, fn, inputs, reps).items() if k not in base]
            t = sum(statistics.median(d) * len(d) / reps for d in rows)
            got[key].append(t)
            print(f"round {rnd} " + " ".join(f"{x:20s}" for x in key) + f" {t:7.2f} us", flush=True)
    if var:
        os.environ.pop(var, None)
    print("medians over rounds (kernel us):")
    for key, ts in got.items():
        print(" ".join(f"{x:20s}" for x in key) + f" {statistics.median(ts):7.2f}  ({' '.join(f'{t:.2f}' for t in ts)})")
    return got
