"""Kernel durations of torch's device-to-device copy (y.copy_(x)) at given bf16 shapes, timed as the
comparison tool times (its Timer: L2 flush, GPU kept busy): the bound a memory-bound op of the same bytes
read and written is measured against. Usage: python3 benchmarks/probe/copy_kernel.py 512x128256 ... [--reps N]"""
import statistics

import torch
from cases import kernel_durations, probe_setup  # (benchmarks/probe, this script's folder)

args, dev, timer = probe_setup(__doc__, reps=30)
base = set(kernel_durations(timer, lambda: None, (), 3))
for item in args.items:
    shape = [int(s) for s in item.split("x")]
    x = torch.randn(shape, device=dev).to(torch.bfloat16)
    y = torch.empty_like(x)
    fn = lambda a, b: b.copy_(a)  # noqa: E731
    for _ in range(3):
        fn(x, y)
    torch.cuda.synchronize()
    rows = [d for k, d in kernel_durations(timer, fn, (x, y), args.reps).items() if k not in base]
    t = sum(statistics.median(d) * len(d) / args.reps for d in rows)
    gb = 2 * x.numel() * x.element_size() / 1e9
    print(f"copy {item:16s} kernel {t:7.2f} us  {gb / t * 1e6:7.1f} GB/s (read + write)", flush=True)
