"""What the comparison tool's time holds besides the kernels: for each implementation, the tool's
event-timed median (its Timer: flush, GPU kept busy, start event, the call, end event) and, from a
profiler trace of the same sequence, the gap from the end of the spin kernel (just before the start
event) to the first kernel of the call, and the span from that kernel's start to the call's last
kernel's end. tool - (gap + span) is what follows the last kernel (the end event). --per-call: the traced calls
are also event-timed (as the tool times them, in the same loop), so that each call's tool time splits into its own
gap, span and rest; prints the quantiles of each part, and the parts' medians over the calls whose tool time is
in the lower and in the upper half (which part the slow calls spend their extra time in). Usage:
    python3 benchmarks/launch_gap.py op[:set] ... [--reps N] [--impls a,b] [--per-call]"""

import statistics

import torch
from cases import cases, probe_setup  # (benchmarks, this script's folder)

import infinicore_torch  # noqa: F401

args, dev, timer = probe_setup(__doc__, reps=40, extra=[(("--per-call",), {"action": "store_true"})])


def trace(fn, inputs, timed=None):
    """[(name, start_ns, end_ns)] of the device kernels and memsets, in start order; with a list `timed`, each
    call is also bracketed by events as the tool's Timer does and its time (us) appended there."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(args.reps):
            torch.cuda.synchronize()
            timer.flush()
            torch.cuda._sleep(timer.busy_cycles)
            if timed is None:
                fn(*inputs)
                continue
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn(*inputs)
            end.record()
            late = start.query()
            end.synchronize()
            timed.append(float("nan") if late else start.elapsed_time(end) * 1e3)
        torch.cuda.synchronize()
    ev = [
        (e.name(), e.start_ns(), e.start_ns() + e.duration_ns())
        for e in prof.profiler.kineto_results.events()
        if e.device_type() != torch.autograd.DeviceType.CPU
    ]
    return sorted(ev, key=lambda x: x[1])


def quantiles(xs):
    q = statistics.quantiles(xs, n=20)
    return f"p10 {q[1]:5.2f} p25 {q[4]:5.2f} p50 {statistics.median(xs):5.2f} p75 {q[14]:5.2f} p90 {q[17]:5.2f}"


print(f"{'op':14s} {'shape':14s} {'impl':8s} {'tool':>7s} {'gap':>7s} {'span':>7s} {'rest':>7s}  (us, medians)")
for op, label, impl, fn, inputs in cases(args.items, args.impls.split(","), dev):
    for _ in range(3):
        fn(*inputs)
    tool = statistics.median(timer.time(fn, inputs, min_reps=args.reps, max_reps=args.reps, budget_s=0.0)) * 1e6
    timed = [] if args.per_call else None
    ev = trace(fn, inputs, timed)
    per_call = []  # (tool, gap, span) of each traced call
    gaps, spans = [], []
    spin = [i for i, e in enumerate(ev) if "sleep" in e[0].lower() or "spin" in e[0].lower()]
    for k, i in enumerate(spin):
        nxt = spin[k + 1] if k + 1 < len(spin) else len(ev)
        call = [
            e
            for e in ev[i + 1 : nxt]
            if "elementwise_kernel" not in e[0] and "FillFunctor" not in e[0] and "Memset" not in e[0]
        ]
        if not call:
            continue
        gaps.append((call[0][1] - ev[i][2]) / 1e3)
        spans.append((max(e[2] for e in call) - call[0][1]) / 1e3)
        if timed is not None and k < len(timed) and timed[k] == timed[k]:  # (nan: the GPU waited for the host)
            per_call.append((timed[k], gaps[-1], spans[-1]))
    if not gaps:
        print(f"{op:14s} {label:14s} {impl:8s} no spin kernel found in the trace: {sorted({e[0][:40] for e in ev})}")
        continue
    g, s = statistics.median(gaps), statistics.median(spans)
    print(f"{op:14s} {label:14s} {impl:8s} {tool:7.2f} {g:7.2f} {s:7.2f} {tool - g - s:7.2f}", flush=True)
    if len(per_call) >= 8:
        parts = {
            "tool": [c[0] for c in per_call],
            "gap": [c[1] for c in per_call],
            "span": [c[2] for c in per_call],
            "rest": [c[0] - c[1] - c[2] for c in per_call],
        }
        for name, xs in parts.items():
            print(f"    per call ({len(per_call)} calls, traced) {name:5s} {quantiles(xs)}")
        mid = statistics.median(parts["tool"])
        lo = [i for i, t in enumerate(parts["tool"]) if t <= mid]
        hi = [i for i, t in enumerate(parts["tool"]) if t > mid]
        for tag, idx in (("lower half", lo), ("upper half", hi)):
            if idx:
                print(
                    f"    {tag} ({len(idx)} calls): "
                    + "  ".join(f"{name} {statistics.median(xs[i] for i in idx):5.2f}" for name, xs in parts.items())
                )
