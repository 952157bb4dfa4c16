"""Host time per call of torch.ops.infini.rms_norm against F.rms_norm on a [16, 4096] CUDA tensor
(the target: at most 1.2x). Calls are queued in a loop without synchronizing; the
GPU work per call (a few microseconds) is shorter than the host time, so the loop measures the host.
Median of 7 rounds of 2000 calls each, the two loops interleaved round by round."""

import statistics
import time

import torch
import torch.nn.functional as F

import infinicore_torch  # noqa: F401


def per_call_us(fn, n=2000):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def main():
    x = torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    ours = lambda: torch.ops.infini.rms_norm(x, w, 1e-6)  # noqa: E731
    theirs = lambda: F.rms_norm(x, (4096,), w, 1e-6)  # noqa: E731
    for f in (ours, theirs):
        per_call_us(f, 200)
    a, b = [], []
    with torch.no_grad():
        for _ in range(7):
            a.append(per_call_us(ours))
            b.append(per_call_us(theirs))
    ma, mb = statistics.median(a), statistics.median(b)
    print(
        f"host time per call, [16, 4096] bf16 on {torch.cuda.get_device_name()}: "
        f"torch.ops.infini.rms_norm {ma:.2f} us, F.rms_norm {mb:.2f} us, ratio {ma / mb:.2f} (target 1.2)"
    )


if __name__ == "__main__":
    main()
