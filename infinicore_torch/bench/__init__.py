"""infinicore_torch.bench: checks and times every implementation of each operator.

    python -m infinicore_torch.bench --device cpu --ops all --shapes decode

See `python -m infinicore_torch.bench --help`, and run() for use from Python.
"""

from __future__ import annotations

import platform
import time

import torch

from . import measure, report, specs
from .impls import IMPLS, Skip, resolve
from .specs import SHAPE_SETS

__all__ = ["run", "IMPLS", "SHAPE_SETS", "specs", "Skip"]


def _device(name: str) -> torch.device:
    if name == "infini":
        import infinicore_torch  # noqa: F401

        return torch.device("infini", torch.infini.current_device())
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no CUDA device here")
    return torch.device(name)


def run(
    device="cpu",
    ops="all",
    shapes=("decode",),
    dtypes=(torch.bfloat16,),
    impls=IMPLS,
    check=True,
    repeat=100,
    budget_s=0.3,
    progress=None,
    on_result=None,
    registry=None,
    busy_us=0.0,
) -> tuple[dict, list[dict]]:
    """Measures every (op, shape, dtype, implementation); returns (meta, results).

    `registry` replaces the op specs (tests use it); `on_result(r)` is called as each result comes in.
    """
    import warnings

    import infinicore_torch  # noqa: F401  (torch.ops.infini)

    warnings.filterwarnings("ignore", message=".*[Oo]nline softmax is disabled.*")
    # the torch rows on infini tensors run through the CPU fallback: that is what they measure
    warnings.filterwarnings("ignore", message="infini: aten::.* has no infini kernel")

    dev = _device(device) if isinstance(device, str) else device
    table = registry if registry is not None else specs.specs()
    names = list(table) if ops == "all" else list(ops)
    for n in names:
        if n not in table:
            raise SystemExit(f"unknown op {n!r}; known: {', '.join(table)}")
    for s in shapes:
        if s not in SHAPE_SETS:
            raise SystemExit(f"unknown shape set {s!r}; known: {', '.join(SHAPE_SETS)}")
    timer = measure.Timer(dev, busy_us)
    copy_bytes = (256 if dev.type == "cuda" else 64) * 1024 * 1024
    copy_gbps = measure.copy_bandwidth(dev, timer, copy_bytes)
    meta = {
        "device": str(dev),
        "device_name": _device_name(dev),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "copy_gbps": copy_gbps,
        "copy_bytes": copy_bytes,
        "busy_us": busy_us,
        "shapes": list(shapes),
        "dtypes": [str(d).split(".")[-1] for d in dtypes],
        "l2_flush": None if timer.flush_buf is None else "256 MB written after a reset of persisting lines",
    }
    work = []
    for n in names:
        spec = table[n]
        for s in shapes:
            for params in spec.shapes.get(s, []):
                for dt in dtypes:
                    if dt not in spec.dtypes:
                        continue
                    work.append((spec, s, params, dt))
    bar = report.Progress(len(work) * len(impls), progress)
    results = []
    gen = torch.Generator().manual_seed(0)
    for spec, s, params, dt in work:
        inputs = spec.make(params, dt, dev, gen)
        ref = measure.reference_outputs(spec, inputs) if check else None
        rows, fns = [], []
        for impl in impls:  # check each implementation, then time the ones that ran, interleaved
            r = {
                "op": spec.name,
                "set": s,
                "shape": spec.label(params),
                "params": params,
                "dtype": str(dt).split(".")[-1],
                "impl": impl,
                "device": str(dev),
            }
            bar.step(f"{spec.name} {r['shape']} {r['dtype']} {impl}")
            try:
                fn = resolve(impl, spec, dev)
                if check:
                    r["accuracy"] = measure.check(spec, fn, inputs, dt, ref)
                fns.append((r, fn))
            except Skip as e:
                r["skipped"] = str(e)
            except Exception as e:  # an implementation that fails is reported, not fatal to the run
                r["skipped"] = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            rows.append(r)
        try:
            timed = timer.time_interleaved([fn for _, fn in fns], inputs, max_reps=repeat, budget_s=budget_s)
        except Exception:  # one that fails only when timed: time them one by one to find it
            timed = []
            for r, fn in fns:
                try:
                    timed.append(timer.time(fn, inputs, max_reps=repeat, budget_s=budget_s))
                except Exception as e:
                    r["skipped"] = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
                    timed.append(None)
        for (r, _), t in zip(fns, timed):
            if t is None:
                continue
            r.update(measure.summarize(t))
            sec = r["median_us"] * 1e-6
            r["gbps"] = spec.bytes(params, dt) / sec / 1e9
            r["tflops"] = spec.flops(params) / sec / 1e12
            r["pct_copy"] = 100.0 * r["gbps"] / copy_gbps if copy_gbps > 0 else None
        for r in rows:
            results.append(r)
            if on_result:
                on_result(r)
        del inputs
    bar.close()
    meta["busy_us_widest"] = timer.busy_max_cycles / 2000  # the widest window the late host sides needed
    meta["late_calls"] = timer.late
    return meta, results


def _device_name(dev: torch.device) -> str:
    if dev.type == "cuda":
        return torch.cuda.get_device_name(dev)
    if dev.type == "infini":
        return torch.infini.get_device_name(dev)
    return platform.processor() or platform.machine()
