"""What the nvcc-built kernel probes share (gemv_rows.py, gemv_dot.py, norm_gate.py): their .cu built by nvcc alone into a
torch-free library called through ctypes, the comparison tool's timer loaded from its file (neither needs the
package built, so a probe costs well under a minute of device time), the launcher wrapper, the accuracy check and
the medians over interleaved rounds."""
import ctypes
import importlib.util
import os
import statistics
import subprocess

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def build(cu: str) -> ctypes.CDLL:
    """benchmarks/probe/<cu> built for sm_90a into /tmp and loaded."""
    so = os.path.join("/tmp", os.path.splitext(cu)[0] + ".so")
    if os.path.exists(so) and os.path.getmtime(so) > os.path.getmtime(os.path.join(HERE, cu)):  # built by this run
        return ctypes.CDLL(so)
    subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC", "-o", so, "-I",
                    os.path.join(ROOT, "backends", "include"), "--expt-relaxed-constexpr", os.path.join(HERE, cu)], check=True)
    return ctypes.CDLL(so)


def tool_timer(busy_us: float):
    """The comparison tool's Timer on the CUDA device (infinicore_torch/bench/measure.py, loaded by path)."""
    spec = importlib.util.spec_from_file_location("measure", os.path.join(ROOT, "infinicore_torch", "bench", "measure.py"))
    measure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(measure)
    return measure.Timer(torch.device("cuda"), busy_us)


def launcher(entry, *args):
    """A call of the library's entry point (its argtypes set) with args, tensors passed by data pointer, that
    raises on a non-zero return."""
    conv = [a.data_ptr() if isinstance(a, torch.Tensor) else a for a in args]

    def fn(*_):
        rc = entry(*conv)
        if rc != 0:
            raise RuntimeError(f"launch failed ({rc})")
    return fn


def rel_errors(fns, c, want):
    """The relative L2 error of c against want after each of fns (which write c)."""
    errs = []
    for fn in fns:
        c.zero_()
        fn()
        torch.cuda.synchronize()
        errs.append(((c.float() - want).norm() / want.norm()).item())
    return errs


def profile_calls(timer, fns):
    """Each of fns called twice after an L2 flush, untimed (for ncu's kernel profiles)."""
    for fn in fns:
        for _ in range(2):
            timer.flush()
            fn()
    torch.cuda.synchronize()


def medians(timer, fns, reps: int, rounds: int):
    """Each fn's median us over rounds of interleaved timing (the median of each round's calls)."""
    per = [[] for _ in fns]
    for _ in range(rounds):
        ts = timer.time_interleaved(fns, (), min_reps=reps, max_reps=reps, budget_s=0.0)
        for i, t in enumerate(ts):
            per[i].append(statistics.median(t) * 1e6)
    return [statistics.median(p) for p in per]
