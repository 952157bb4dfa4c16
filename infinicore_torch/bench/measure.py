"""Accuracy against a float64 reference, and timing.

Accuracy: each implementation's outputs against the op's plain-PyTorch reference computed in float64
on the CPU from the same inputs: max absolute error, max relative error (to the reference's largest
magnitude) and relative L2 error, passing when the relative L2 error is within the dtype's tolerance.
Integer outputs (indices) must match exactly (random_sample: up to 1% of rows may differ, where a
cumulative probability lies within float32 rounding of the threshold, as docs/ops.md allows).

Timing: warm-up calls, then timed calls until the time budget or the repetition cap is reached (at
least `min_reps`), reported as median, p10 and p90. Only the call is timed: on CUDA and infini
devices between two events on the current stream, on the CPU with perf_counter. On GPUs the L2
cache is flushed before every timed call (outside the events): the lines an earlier call marked
persisting (PTX `L2::evict_last`, which torch.compile's kernels put on the inputs they read) are first
returned to normal status (cuCtxResetPersistingL2Cache), then 256 MB are written; without the reset
those lines outlive the write, and whichever implementation runs next reads its inputs from the L2.
`busy_us` keeps the GPU busy that much longer before the start event, so that host-side launch cost
(the subject of benchmarks/host_overhead.py) is not timed: without it, an implementation whose host
side outlasts the flush is timed with the GPU idle in front of its kernel. Each timed call checks
that the window was long enough: if the start event has already been reached when the host has
enqueued the whole call, the GPU may have waited for the host; the call is then timed again with the
window doubled (kept for the rest of that measurement; `Timer.late` counts them).
"""

from __future__ import annotations

import ctypes
import statistics
import time

import torch

TOLERANCE = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def _clone(inputs, indices):
    return tuple(t.clone() if i in indices else t for i, t in enumerate(inputs))


def _as_tuple(out, spec):
    return tuple(t for t in spec.outputs(out) if isinstance(t, torch.Tensor))


def reference_outputs(spec, inputs):
    """The reference in float64 on the CPU (integer inputs unchanged)."""
    cpu = tuple(
        (t.detach().cpu().double() if t.is_floating_point() else t.detach().cpu())
        if isinstance(t, torch.Tensor)
        else t  # (plain-number arguments: random_sample's settings)
        for t in inputs
    )
    return _as_tuple(spec.reference(*_clone(cpu, spec.mutates)), spec)


def check(spec, fn, inputs, dtype, ref=None) -> dict:
    """Runs fn once on copies of the inputs it mutates and compares with the float64 reference."""
    ref = reference_outputs(spec, inputs) if ref is None else ref
    out = _as_tuple(fn(*_clone(inputs, spec.mutates)), spec)
    if len(out) != len(ref):
        return {"ok": False, "error": f"{len(out)} outputs, the reference has {len(ref)}"}
    result = {"max_abs": 0.0, "max_rel": 0.0, "rel_l2": 0.0, "mismatches": 0, "ok": True}
    tol = TOLERANCE.get(dtype, 1e-5)
    for o, r in zip(out, ref):
        o = o.detach().cpu()
        if o.shape != r.shape:
            return {"ok": False, "error": f"shape {tuple(o.shape)}, the reference has {tuple(r.shape)}"}
        if not r.is_floating_point():
            bad = int((o.to(r.dtype) != r).sum())
            result["mismatches"] += bad
            allowed = max(1, r.numel() // 100) if spec.name == "random_sample" else 0
            result["ok"] &= bad <= allowed
            continue
        d = (o.double() - r).abs()
        scale = float(r.abs().max()) if r.numel() else 0.0
        max_abs = float(d.max()) if d.numel() else 0.0
        rel_l2 = float(d.norm() / r.norm()) if r.numel() and float(r.norm()) > 0 else max_abs
        result["max_abs"] = max(result["max_abs"], max_abs)
        result["max_rel"] = max(result["max_rel"], max_abs / scale if scale > 0 else max_abs)
        result["rel_l2"] = max(result["rel_l2"], rel_l2)
        finite = bool(torch.isfinite(o.double()).all()) or not bool(torch.isfinite(r).all())
        result["ok"] &= finite and rel_l2 <= tol
    result["tolerance"] = tol
    return result


def _persisting_reset():
    """The CUDA driver's cuCtxResetPersistingL2Cache (persisting L2 lines back to normal status, for the
    current context, effective on return: call it with the GPU idle), or None where it cannot be had."""
    try:
        fn = ctypes.CDLL("libcuda.so.1").cuCtxResetPersistingL2Cache
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = []
    return fn


class Timer:
    """Times one call: events on GPU-like devices, perf_counter on the CPU; flushes the L2 on CUDA
    (`flush=False`: not, to tell what the flush costs a kernel)."""

    MAX_LATE = 6  # a window doubled 6 times (100 us -> 6.4 ms) and still short: the time is kept as it is

    def __init__(self, device: torch.device, busy_us: float = 0.0, flush: bool = True):
        self.device = device
        self.busy_cycles = int(busy_us * 2000) if device.type == "cuda" else 0  # ~2 GHz clock
        self.base_busy_cycles = self.busy_cycles  # each measurement starts from it (a hiccup widens one only)
        self.busy_max_cycles = self.busy_cycles
        self.late = 0  # timed calls repeated because the host had not enqueued them before the start event
        self.flush_buf = None
        self.reset_persisting = None
        if device.type == "cuda" and flush:
            self.flush_buf = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=device)
            self.reset_persisting = _persisting_reset()
            if self.reset_persisting is None:
                raise RuntimeError(
                    "bench: cuCtxResetPersistingL2Cache is not available from libcuda.so.1; "
                    "without it the L2 flush leaves lines marked evict_last in the cache"
                )

    def flush(self):
        """Empties the L2 of the data of earlier calls (CUDA; the GPU must be idle: the reset is not
        ordered on a stream)."""
        if self.flush_buf is None:
            return
        if self.reset_persisting is not None:
            rc = self.reset_persisting()
            if rc != 0:
                raise RuntimeError(f"bench: cuCtxResetPersistingL2Cache failed with CUresult {rc}")
        self.flush_buf.zero_()

    def _events(self):
        if self.device.type == "cuda":
            return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        return torch.infini.Event(enable_timing=True), torch.infini.Event(enable_timing=True)

    def synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        elif self.device.type == "infini":
            torch.infini.synchronize(self.device)

    def _once(self, fn, inputs) -> float:
        if self.device.type == "cpu":
            t0 = time.perf_counter()
            fn(*inputs)
            return time.perf_counter() - t0
        for attempt in range(self.MAX_LATE + 1):
            self.flush()  # (the GPU is idle: the previous call was synchronized, and so were the warm-ups)
            if self.busy_cycles:
                # the GPU spins on after the flush, so that the host has enqueued the call before the start
                # event is reached: an implementation with a slow host side (a Python launcher, compiled-graph
                # guards) is then timed by its kernels, not by an idle GPU waiting for them
                torch.cuda._sleep(self.busy_cycles)
            start, end = self._events()
            start.record()
            fn(*inputs)
            end.record()
            # the start already reached once the call is enqueued: the GPU may have waited for the host
            late = self.busy_cycles > 0 and start.query()
            end.synchronize()
            if not late or attempt == self.MAX_LATE:
                return start.elapsed_time(end) / 1e3
            self.late += 1
            self.busy_cycles *= 2
            self.busy_max_cycles = max(self.busy_max_cycles, self.busy_cycles)

    def time(self, fn, inputs, min_reps=5, max_reps=100, budget_s=0.3, warmup=3) -> list[float]:
        """Seconds per call, one entry per timed repetition."""
        return self.time_interleaved([fn], inputs, min_reps, max_reps, budget_s, warmup)[0]

    def time_interleaved(self, fns, inputs, min_reps=5, max_reps=100, budget_s=0.3, warmup=3) -> list[list[float]]:
        """Seconds per call of each of fns, their calls interleaved (one round calls each once, the order
        rotating by round), so that a drift of the machine (clocks, a neighbour) falls on all of them alike.
        budget_s is per function."""
        self.busy_cycles = self.base_busy_cycles
        for fn in fns:
            for _ in range(warmup):
                fn(*inputs)
        self.synchronize()
        times = [[] for _ in fns]
        spent = [0.0] * len(fns)
        rounds = 0
        while rounds < max_reps and (rounds < min_reps or min(spent) < budget_s):
            for k in range(len(fns)):
                i = (k + rounds) % len(fns)
                dt = self._once(fns[i], inputs)
                times[i].append(dt)
                spent[i] += max(dt, 1e-6)
            rounds += 1
        return times


def summarize(times: list[float]) -> dict:
    s = sorted(times)
    q = statistics.quantiles(s, n=10) if len(s) >= 2 else [s[0]] * 9
    return {"median_us": statistics.median(s) * 1e6, "p10_us": q[0] * 1e6, "p90_us": q[-1] * 1e6, "reps": len(s)}


def copy_bandwidth(device: torch.device, timer: Timer, nbytes: int) -> float:
    """GB/s of a device-to-device copy of nbytes (read + write counted), measured now. The rows' %copy
    divides by this: a copy large enough (256 MiB on CUDA) that the call's fixed cost (a few microseconds
    from the start event to the kernel) hardly counts, so a row moving fewer bytes is held to the device's
    bandwidth, not to a same-size copy's."""
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).fill_(1.0)
    dst = torch.empty_like(src)
    t = summarize(timer.time(lambda a, b: b.copy_(a), (src, dst), min_reps=5, max_reps=30, budget_s=0.5))
    return 2 * nbytes / (t["median_us"] * 1e-6) / 1e9
