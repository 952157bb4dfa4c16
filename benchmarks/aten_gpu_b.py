"""aten on the GPU, part B: the rows, norm, nll_loss, sdpa and window families on infini (the nvidia backend) against
torch's own CUDA kernels on the same GPU. `cases()` returns (name, fn_infini, fn_cuda): each fn runs the op once on
data made beforehand (no allocation of inputs, no host synchronization inside); the harness (benchmarks/aten_gpu.py)
times them. A backward is the aten backward op called directly where it has a public one, else autograd's backward
of a graph kept for repeated calls (retain_graph), the same on both devices.

    python benchmarks/aten_gpu_b.py   # a quick standalone run: median microseconds of each case
"""

from __future__ import annotations

import statistics
import time

import torch
import torch.nn.functional as F

aten = torch.ops.aten


def _pair(make):
    """make(device) -> fn, for infini and cuda."""
    return make("infini"), make("cuda")


def _rand(*shape, dtype=torch.bfloat16, device="cuda", scale=1.0):
    return (torch.randn(*shape, device="cuda", dtype=torch.float32) * scale).to(dtype).to(device)


def _softmax(n, c, dtype, log, backward):
    def make(dev):
        x = _rand(n, c, dtype=dtype, device=dev, scale=3.0)
        fwd = aten._log_softmax if log else aten._softmax
        if not backward:
            return lambda: fwd(x, -1, False)
        y, g = fwd(x, -1, False), _rand(n, c, dtype=dtype, device=dev)
        bwd = aten._log_softmax_backward_data if log else aten._softmax_backward_data
        return lambda: bwd(g, y, -1, dtype)

    return _pair(make)


def _nll(n, c, backward):
    def make(dev):
        logp = torch.log_softmax(_rand(n, c, dtype=torch.float32, device="cuda"), -1).to(dev)
        target = torch.randint(0, c, (n,), device="cuda").to(dev)
        if not backward:
            return lambda: aten.nll_loss_forward(logp, target, None, 1, -100)
        _, total = aten.nll_loss_forward(logp, target, None, 1, -100)
        grad = torch.ones((), device=dev)
        return lambda: aten.nll_loss_backward(grad, logp, target, None, 1, -100, total)

    return _pair(make)


def _layer_norm(n, c, backward):
    def make(dev):
        x, w, b = _rand(n, c, device=dev), _rand(c, device=dev), _rand(c, device=dev)
        if not backward:
            return lambda: aten.native_layer_norm(x, [c], w, b, 1e-5)
        _, mean, rstd = aten.native_layer_norm(x, [c], w, b, 1e-5)
        g = _rand(n, c, device=dev)
        return lambda: aten.native_layer_norm_backward(g, x, [c], mean, rstd, w, b, [True, True, True])

    return _pair(make)


def _rms_norm(n, c, backward):
    def make(dev):
        x, w = _rand(n, c, device=dev), _rand(c, device=dev)
        if not backward:
            return lambda: aten._fused_rms_norm(x, [c], w, 1e-6)
        _, rstd = aten._fused_rms_norm(x, [c], w, 1e-6)
        g = _rand(n, c, device=dev)
        return lambda: aten._fused_rms_norm_backward(g, x, [c], rstd, w, [True, True])

    return _pair(make)


def _sdpa(b, hq, hk, s, d, backward):
    def make(dev):
        q, k, v = _rand(b, hq, s, d, device=dev), _rand(b, hk, s, d, device=dev), _rand(b, hk, s, d, device=dev)
        if not backward:
            return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hq != hk)
        q, k, v = (t.requires_grad_() for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hq != hk)
        g = _rand(b, hq, s, d, device=dev)
        return lambda: torch.autograd.grad(out, (q, k, v), g, retain_graph=True)

    return _pair(make)


def _window(kind):
    def make(dev):
        x = _rand(32, 64, 112, 112, device=dev)
        if kind == "max_pool":
            return lambda: aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1])
        if kind == "avg_pool":
            return lambda: aten.avg_pool2d(x, [3, 3], [2, 2], [1, 1])
        if kind == "upsample_bilinear":
            return lambda: aten.upsample_bilinear2d(x, [224, 224], False)
        w = _rand(64, 64, 3, 3, device=dev)
        return lambda: F.conv2d(x, w, padding=1)

    return _pair(make)


def cases():
    """(name, fn_infini, fn_cuda) on the benchmark's sizes."""
    out = []

    def add(name, pair):
        out.append((name,) + pair)

    add("softmax [4096, 4096] bf16", _softmax(4096, 4096, torch.bfloat16, False, False))
    add("softmax backward [4096, 4096] bf16", _softmax(4096, 4096, torch.bfloat16, False, True))
    add("log_softmax [4096, 128256] f32", _softmax(4096, 128256, torch.float32, True, False))
    add("log_softmax backward [4096, 128256] f32", _softmax(4096, 128256, torch.float32, True, True))
    add("nll_loss [4096, 128256] f32", _nll(4096, 128256, False))
    add("nll_loss backward [4096, 128256] f32", _nll(4096, 128256, True))
    add("layer_norm [4096, 4096] bf16", _layer_norm(4096, 4096, False))
    add("layer_norm backward [4096, 4096] bf16", _layer_norm(4096, 4096, True))
    add("rms_norm [4096, 4096] bf16", _rms_norm(4096, 4096, False))
    add("rms_norm backward [4096, 4096] bf16", _rms_norm(4096, 4096, True))
    for b, s in ((1, 4096), (8, 1024), (2, 4096)):
        add(f"sdpa causal b{b} h32 s{s} d128 bf16", _sdpa(b, 32, 32, s, 128, False))
    add("sdpa causal GQA 32/8 b2 s4096 d128 bf16", _sdpa(2, 32, 8, 4096, 128, False))
    add("sdpa causal backward b1 h32 s2048 d128 bf16", _sdpa(1, 32, 32, 2048, 128, True))
    for kind in ("max_pool", "avg_pool", "upsample_bilinear", "conv2d"):
        add(f"{kind} [32, 64, 112, 112] bf16", _window(kind))
    return out


def _time(fn, reps=20):
    fn()
    torch.infini.synchronize()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.infini.synchronize()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


if __name__ == "__main__":
    import infinicore_torch  # noqa: F401

    for name, fi, fc in cases():
        ti, tc = _time(fi), _time(fc)
        print(f"{name:48s} infini {ti:10.1f} us   cuda {tc:10.1f} us   ratio {ti / tc:5.2f}")
