"""Kernel durations of torch.ops.infini.paged_caching (8 kv heads of 128, bf16, the comparison tool's inputs)
for given token counts under each value of an environment knob, rounds interleaved (as ab_knobs.py), with
torch.compile's alongside. Usage: python3 benchmarks/probe/caching_tokens.py VAR=a,b --tokens 1024,2048"""
import argparse

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import impls as IM
from infinicore_torch.bench import measure
from infinicore_torch.bench import specs as S
from cases import knob_rounds  # (benchmarks/probe, this script's folder)

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("knob")
ap.add_argument("--tokens", default="1024,2048,4096,8192")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--reps", type=int, default=30)
args = ap.parse_args()
var, _, values = args.knob.partition("=")
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
spec = S.specs()["paged_caching"]
g = torch.Generator().manual_seed(0)
work = []
for t in (int(v) for v in args.tokens.split(",")):
    p = {"tokens": t, "blocks": 4096}
    inputs = spec.make(p, torch.bfloat16, dev, g)
    for v in values.split(","):
        work.append((("paged_caching", spec.label(p), f"{var}={v}"), v, IM.resolve("infini", spec, dev), inputs))
    work.append((("paged_caching", spec.label(p), "compile"), None, IM.resolve("compile", spec, dev), inputs))
knob_rounds(timer, work, args.rounds, args.reps, var)
