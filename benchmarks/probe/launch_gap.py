"""What the comparison tool's time holds besides the kernels: for each implementation, the tool's
event-timed median (its Timer: flush, GPU kept busy, start event, the call, end event) and, from a
profiler trace of the same sequence, the gap from the end of the spin kernel (just before the start
event) to the first kernel of the call, and the span from that kernel's start to the call's last
kernel's end. tool - (gap + span) is what follows the last kernel (the end event). Usage:
    python3 benchmarks/probe/launch_gap.py op[:set] ... [--reps N] [--impls a,b]"""
import statistics

import torch
import infinicore_torch  # noqa: F401
from cases import cases, probe_setup  # (benchmarks/probe, this script's folder)

args, dev, timer = probe_setup(__doc__, reps=40)


def trace(fn, inputs):
    """[(name, start_ns, end_ns)] of the device kernels and memsets, in start order."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(args.reps):
            torch.cuda.synchronize()
            timer.flush()
            torch.cuda._sleep(timer.busy_cycles)
            fn(*inputs)
        torch.cuda.synchronize()
    ev = [(e.name(), e.start_ns(), e.start_ns() + e.duration_ns()) for e in prof.profiler.kineto_results.events()
          if e.device_type() != torch.autograd.DeviceType.CPU]
    return sorted(ev, key=lambda x: x[1])


print(f"{'op':14s} {'shape':14s} {'impl':8s} {'tool':>7s} {'gap':>7s} {'span':>7s} {'rest':>7s}  (us, medians)")
for op, label, impl, fn, inputs in cases(args.items, args.impls.split(","), dev):
    for _ in range(3):
        fn(*inputs)
    tool = statistics.median(timer.time(fn, inputs, min_reps=args.reps, max_reps=args.reps, budget_s=0.0)) * 1e6
    ev = trace(fn, inputs)
    gaps, spans = [], []
    spin = [i for i, e in enumerate(ev) if "sleep" in e[0].lower() or "spin" in e[0].lower()]
    for k, i in enumerate(spin):
        nxt = spin[k + 1] if k + 1 < len(spin) else len(ev)
        call = [e for e in ev[i + 1:nxt] if "elementwise_kernel" not in e[0] and "FillFunctor" not in e[0] and "Memset" not in e[0]]
        if not call:
            continue
        gaps.append((call[0][1] - ev[i][2]) / 1e3)
        spans.append((max(e[2] for e in call) - call[0][1]) / 1e3)
    if not gaps:
        print(f"{op:14s} {label:14s} {impl:8s} no spin kernel found in the trace: {sorted({e[0][:40] for e in ev})}")
        continue
    g, s = statistics.median(gaps), statistics.median(spans)
    print(f"{op:14s} {label:14s} {impl:8s} {tool:7.2f} {g:7.2f} {s:7.2f} {tool - g - s:7.2f}", flush=True)
