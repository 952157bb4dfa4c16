"""Quick same-process timing of chosen rows (L2 flush, CUDA events, interleaved, median) for variant runs.
Usage: python3 benchmarks/probe/time_probe.py softmax|rope|norm|small [reps] [busy_us]"""
import sys
import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import triton_kernels as tk
from infinicore_torch.bench import measure
from infinicore_torch.bench import specs as S

I = torch.ops.infini
dev = torch.device("cuda")
g = torch.Generator().manual_seed(0)
bf = torch.bfloat16
what = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
busy_us = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
timer = measure.Timer(dev, busy_us)  # the comparison tool's timer


def timed(fns, timer=timer):
    """Median us of each of fns, their calls interleaved, the L2 flushed before each (the tool's method)."""
    runs = timer.time_interleaved(fns, (), min_reps=reps, max_reps=reps, budget_s=0.0, warmup=5)
    return [measure.summarize(t)["median_us"] for t in runs]


src = torch.empty(512 * 128256, dtype=bf, device=dev).normal_()
dst = torch.empty_like(src)
(copy_us,) = timed([lambda: dst.copy_(src)])
print(f"copy 512x128256 bf16: {copy_us:.1f} us ({2 * src.numel() * 2 / copy_us / 1e3:.0f} GB/s)")
rows = []
if what == "softmax":
    for shape in [(512, 128256), (256, 128256), (64, 128256), (16, 128256), (1024, 32000)]:
        x = torch.randn(*shape, device=dev, dtype=bf) * 3
        ref = torch.softmax(x.float(), -1)
        err = (I.softmax(x, -1).float() - ref).abs().max().item()
        t = timed([lambda: I.softmax(x, -1), lambda: tk.softmax(x), lambda: torch.softmax(x, -1)])
        cu = copy_us * x.numel() / src.numel()
        rows.append((f"softmax {shape[0]}x{shape[1]}", t, err, cu))
    x = torch.randn(32, 2048, 4096, device=dev, dtype=bf)
    t = timed([lambda: I.causal_softmax(x)])
    rows.append(("causal_softmax 32x2048x4096", t, 0.0, copy_us * x.numel() / src.numel()))
elif what == "rope":
    for tokens in (1, 16, 1024, 4096, 16384):
        a = S._rope_make({"tokens": tokens}, bf, dev, g)
        err = (I.rope(*a).float() - S._rope_ref(*[t.cpu() for t in a]).float().to(dev)).abs().max().item()
        t = timed([lambda a=a: I.rope(*a), lambda a=a: tk.rope(*a)])
        rows.append((f"rope {tokens}x32x128", t, err, copy_us * a[0].numel() / src.numel()))
elif what == "norm":
    for r in (1, 16, 64, 132, 1024):
        x = torch.randn(r, 4096, device=dev, dtype=bf)
        y = torch.randn(r, 4096, device=dev, dtype=bf)
        w = torch.randn(4096, device=dev, dtype=bf)
        t = timed([lambda: I.add_rms_norm(x, y, w, 1e-6), lambda: tk.add_rms_norm(x, y, w)])
        rows.append((f"add_rms_norm {r}x4096", t, 0.0, 0))
        t = timed([lambda: I.rms_norm(x, w, 1e-6), lambda: tk.rms_norm(x, w)])
        rows.append((f"rms_norm {r}x4096", t, 0.0, 0))
elif what == "small":  # decode shapes against the best peers, with and without the L2 flush before each call
    from infinicore_torch.bench import impls as IM
    unflushed = measure.Timer(dev, busy_us, flush=False)
    cases = ["swiglu", "silu_and_mul", "rope", "add_rms_norm", "rms_norm", "causal_softmax", "paged_caching"]
    for op in cases:
        spec = S.specs()[op]
        for q in spec.shapes["decode"]:
            a = spec.make(q, bf, dev, g)
            names, fns = [], []
            for impl in ("infini", "compile", "triton", "liger"):
                try:
                    fn = IM.resolve(impl, spec, dev)
                except IM.Skip:
                    continue
                names.append(impl)
                fns.append(lambda fn=fn, a=a: fn(*a))
            for flush, t_ in ((True, timer), (False, unflushed)):
                t = timed(fns, t_)
                print(f"{op:14s} {spec.label(q):14s} flush={int(flush)} " + " ".join(f"{n} {v:6.2f}" for n, v in zip(names, t)), flush=True)
for name, t, err, cu in rows:
    peers = " ".join(f"{v:8.1f}" for v in t[1:])
    pct = f"{100 * cu / t[0]:5.0f}%" if cu else ""
    print(f"{name:30s} infini {t[0]:8.1f} | peers {peers} | ratio {t[0] / min(t[1:]) if len(t) > 1 else 0:5.2f} {pct} err {err:.2e}")
