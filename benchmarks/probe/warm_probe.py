"""Where a small kernel's time goes after the tool's L2 flush: the device duration (profiler) of each
implementation's kernels for one call in five conditions, interleaved by rounds:
  flush      the tool's way: persisting L2 lines reset to normal, 256 MB written, GPU kept busy, the call;
  old        as flush without the reset (the tool before the thirteenth session): lines an earlier call
             marked evict_last (torch.compile's kernels do) outlive the write;
  warm       the same, then one call on copies of the inputs (other addresses, near the originals), then
             the timed call: its code, constants and nearby page translations are warm, its data is not;
  warm_far   as warm, with copies carved from a 64 MB buffer of its own (another memory segment): code
             warm, the timed call's page translations not warmed by the copies;
  noflush    no flush (data, code and translations from the previous call).
Usage: python3 benchmarks/probe/warm_probe.py op[:set] ... [--reps N] [--rounds R] [--impls a,b] [--modes m,...]"""
import statistics
from collections import defaultdict

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import cases, probe_setup  # (benchmarks/probe, this script's folder)

args, dev, timer = probe_setup(__doc__, reps=30, extra=[(("--rounds",), {"type": int, "default": 3}),
                                                        (("--modes",), {"default": "flush,old,warm,warm_far,noflush"})])
MODES = tuple(args.modes.split(","))
old_timer = measure.Timer(dev, args.busy_us, reset_persisting=False)


def durations(mode, fn, inputs, near, far):
    """{kernel name: [durations of the timed call's launches]}"""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(args.reps):
            torch.cuda.synchronize()  # (the reset of persisting lines wants the GPU idle)
            if mode == "old":
                old_timer.flush()
            elif mode != "noflush":
                timer.flush()
            torch.cuda._sleep(timer.busy_cycles)
            if mode == "warm":
                fn(*near)
            elif mode == "warm_far":
                fn(*far)
            fn(*inputs)
        torch.cuda.synchronize()
    got = defaultdict(list)
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CPU:
            got[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    if mode in ("warm", "warm_far"):
        got = {k: v[1::2] for k, v in got.items()}
    return got


def clone(inputs):
    return tuple(t.clone() if isinstance(t, torch.Tensor) else t for t in inputs)


def carve(inputs):
    """Copies of the (contiguous) inputs in a buffer of their own."""
    sizes = [(t.numel() * t.element_size() + 4095) // 4096 * 4096 for t in inputs if isinstance(t, torch.Tensor)]
    buf = torch.empty(max(sum(sizes), 64 << 20), dtype=torch.uint8, device=dev)
    out, off = [], 0
    for t in inputs:
        if not isinstance(t, torch.Tensor):
            out.append(t)
            continue
        assert t.is_contiguous()
        n = t.numel() * t.element_size()
        v = buf[off:off + n].view(t.dtype).view(t.shape)
        v.copy_(t)
        out.append(v)
        off += (n + 4095) // 4096 * 4096
    return tuple(out)


base = set(durations("flush", lambda: None, (), (), ()))
todo = []
for op, label, impl, fn, inputs in cases(args.items, args.impls.split(","), dev):
    # the copies only for the modes that call on them (carve holds 64 MB a case)
    todo.append((op, label, impl, fn, inputs, clone(inputs) if "warm" in MODES else None,
                 carve(inputs) if "warm_far" in MODES else None))
res = defaultdict(list)
for rnd in range(args.rounds):
    for op, label, impl, fn, inputs, near, far in todo:
        for _ in range(3):
            fn(*inputs)
        for mode in MODES:
            rows = [v for k, v in durations(mode, fn, inputs, near, far).items() if k not in base and v]
            t = sum(statistics.median(v) for v in rows)
            res[(op, label, impl, mode)].append(t)
    print(f"round {rnd} done", flush=True)
print(f"{'op':14s} {'shape':14s} {'impl':8s} " + " ".join(f"{m:>9s}" for m in MODES) + "   (kernel us, median over rounds)")
for op, label, impl, *_ in todo:
    vals = [statistics.median(res[(op, label, impl, m)]) for m in MODES]
    print(f"{op:14s} {label:14s} {impl:8s} " + " ".join(f"{v:9.2f}" for v in vals), flush=True)
