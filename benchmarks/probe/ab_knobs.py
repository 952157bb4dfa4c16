"""A/B of a temporary environment knob inside one build: for each round, the kernel durations of ours
under each knob value (the knob is read at every launch), interleaved with the peers', as kernel_times.py
measures them (profiler, the tool's Timer: flush, GPU kept busy). Prints each round and the medians over
rounds. Usage: python3 benchmarks/probe/ab_knobs.py VAR=0,1,2 op[:set] ... [--reps N] [--rounds R] [--impls peers]"""
import infinicore_torch  # noqa: F401
from cases import cases, knob_rounds, knob_setup  # (benchmarks/probe, this script's folder)

args, var, values, dev, timer = knob_setup(__doc__, reps=40)
todo = list(cases(args.items, ["infini"] + [i for i in args.impls.split(",") if i], dev))
work = []
for op, label, impl, fn, inputs in todo:
    for v in values if impl == "infini" else [None]:
        work.append(((op, label, f"infini {var}={v}" if v is not None else impl), v, fn, inputs))
knob_rounds(timer, work, args.rounds, args.reps, var)
