"""GPU cases of the rows, norm and nll_loss families (softmax, log_softmax, layer_norm, rms_norm, nll_loss /
cross_entropy, forward and backward) against torch on the CPU, with INFINI_FALLBACK=error: the shapes and layouts that
pick the nvidia kernels' paths (a row held in registers or read twice, rows past 65535 blocks, odd and unaligned rows
for the element-wise kernels, softmax over an inner dim, mixed weight dtypes, the fused dw / db partials) and the
sizes the benchmarks measure. They run where the infini device is a GPU (the nvidia backend); the CPU backend's
cases are in the families' own test files."""

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

pytestmark = pytest.mark.skipif(
    not hasattr(torch, "infini") or torch.infini.backend() == "cpu",
    reason="GPU cases of the nvidia families: run where the infini device is a GPU",
)

DEV = "infini"


@pytest.fixture(autouse=True)
def _native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def tol(dtype, scale=1.0):
    """(rtol, atol) for results computed in float and stored in dtype; scale: the result's magnitude."""
    if dtype == torch.float32:
        return 1e-5, 1e-5 * scale
    if dtype == torch.float64:
        return 1e-9, 1e-9 * scale
    return 2e-2, 2e-2 * scale


def check(actual, expected, scale=1.0, equal_nan=False):
    rtol, atol = tol(expected.dtype, scale)
    torch.testing.assert_close(actual.cpu().float(), expected.float(), rtol=rtol, atol=atol, equal_nan=equal_nan)


def rand(*shape, dtype=torch.float32, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * scale).to(dtype)


def unaligned(t):
    """t's values in an infini tensor whose data starts one element past an allocation (not on 16 bytes)."""
    flat = torch.empty(t.numel() + 1, dtype=t.dtype, device=DEV)
    view = flat[1:].view(t.shape)
    view.copy_(t)
    return view


# ---- rows: softmax / log_softmax ------------------------------------------------------------------------------

ROW_SHAPES = [
    (4096, 4096),  # the benchmark's: a row held in registers
    (3, 128256),  # cross_entropy's logits: a row read twice
    (70000, 8),  # more rows than 65535 blocks
    (5, 1023),  # odd rows: the element-wise kernel
    (7, 1),
    (2, 33000),  # longer than a block holds in registers (bf16 pieces)
]


@pytest.mark.parametrize("shape", ROW_SHAPES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_last_dim_forward_backward(shape, dtype, log):
    fn = F.log_softmax if log else F.softmax
    x, g = rand(*shape, dtype=dtype, scale=3.0), rand(*shape, dtype=dtype, seed=1)
    xi = x.to(DEV).requires_grad_()
    xc = x.double().requires_grad_()  # the reference in float64, rounded to dtype once
    yi, yc = fn(xi, -1), fn(xc, -1)
    check(yi, yc.detach().to(dtype))
    (gi,) = torch.autograd.grad(yi, xi, g.to(DEV))
    (gc,) = torch.autograd.grad(yc, xc, g.double())
    # log_softmax's gradient g - softmax * sum(g): sum(g) grows as the row's square root
    check(gi, gc.to(dtype), scale=4.0 * max(1.0, shape[-1] ** 0.5 / 64) if log else 1.0)


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_softmax_inner_dims(dim, dtype):
    x = rand(6, 300, 37, dtype=dtype)
    for fn in (F.softmax, F.log_softmax):
        check(fn(x.to(DEV), dim), fn(x, dim))


def test_softmax_unaligned_and_transposed_inputs():
    x = rand(64, 512)
    check(F.softmax(unaligned(x), -1), F.softmax(x, -1))
    xt = rand(512, 64)
    check(F.log_softmax(xt.to(DEV).t(), -1), F.log_softmax(xt.t(), -1))


def test_softmax_nan_and_inf_rows_as_torch():
    x = rand(6, 4096)
    x[0] = float("-inf")  # a row of -inf: NaN
    x[1, 7] = float("nan")  # a NaN: the row is NaN
    x[2, 100] = float("inf")  # +inf: NaN as exp(inf - inf)
    x[3, ::2] = float("-inf")  # masked halves: zeros there
    for fn in (F.softmax, F.log_softmax):
        check(fn(x.to(DEV), -1), fn(x, -1), equal_nan=True)
    long = rand(2, 40000)
    long[0, 123] = float("nan")
    long[1, :39999] = float("-inf")
    check(F.softmax(long.to(DEV), -1), F.softmax(long, -1), equal_nan=True)


def test_softmax_float64_rows():
    x = rand(33, 2049, dtype=torch.float64)
    check(F.softmax(x.to(DEV), -1), F.softmax(x, -1))


# ---- norm: layer_norm / rms_norm ------------------------------------------------------------------------------

NORM_CASES = [
    ((4096, 4096), torch.bfloat16, torch.bfloat16),  # the benchmark's: held rows, fused dw / db partials
    ((256, 4096), torch.bfloat16, torch.float32),  # bf16 activations with float32 weights
    ((64, 1000), torch.float16, torch.float16),
    ((64, 20000), torch.float32, torch.float32),  # longer than the backward holds: the column partials
    ((33, 1023), torch.bfloat16, torch.bfloat16),  # odd rows: the element-wise kernels
    ((70000, 16), torch.float32, torch.float32),  # more rows than 65535 blocks
    ((8, 512), torch.float64, torch.float64),
]


def grads(fn, inputs, g):
    out = fn(*inputs)
    return (out.detach(),) + torch.autograd.grad(out, [t for t in inputs if t is not None and t.requires_grad], g)


@pytest.mark.parametrize("shape,dtype,wdtype", NORM_CASES)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_forward_backward(shape, dtype, wdtype, affine):
    if dtype != wdtype and not affine:
        pytest.skip("no weights")
    cols = shape[-1]
    x, g = rand(*shape, dtype=dtype, scale=2.0), rand(*shape, dtype=dtype, seed=1)
    w = rand(cols, dtype=wdtype, seed=2) if affine else None
    b = rand(cols, dtype=wdtype, seed=3) if affine else None

    def run(dev):
        xs = x.to(dev).requires_grad_()
        ws = w.to(dev).requires_grad_() if affine else None
        bs = b.to(dev).requires_grad_() if affine else None
        return grads(lambda a, ww, bb: F.layer_norm(a, [cols], ww, bb, 1e-5), (xs, ws, bs), g.to(dev))

    got = run(DEV)
    x, g = x.double(), g.double()  # the reference in float64, rounded to the operands' dtypes once
    w, b = (w.double(), b.double()) if affine else (None, None)
    ref = [r.to(dtype if k < 2 else wdtype) for k, r in enumerate(run("cpu"))]
    rows = shape[0]
    for k, (a, e) in enumerate(zip(got, ref)):
        check(a, e, scale=1.0 if k < 2 else max(1.0, rows**0.5))


@pytest.mark.parametrize("shape,dtype,wdtype", [c for c in NORM_CASES if c[1] == c[2]])
def test_rms_norm_forward_backward(shape, dtype, wdtype):
    cols = shape[-1]
    x, g = rand(*shape, dtype=dtype, scale=2.0), rand(*shape, dtype=dtype, seed=1)
    w = rand(cols, dtype=wdtype, seed=2)

    def run(dev, cast=None):
        xs, ws = x.to(dev, cast).requires_grad_(), w.to(dev, cast).requires_grad_()
        return grads(lambda a, ww: F.rms_norm(a, [cols], ww, 1e-6), (xs, ws), g.to(dev, cast))

    got = run(DEV)
    ref = [r.to(dtype) for r in run("cpu", torch.float64)]  # the reference in float64, rounded once
    for k, (a, e) in enumerate(zip(got, ref)):
        check(a, e, scale=1.0 if k < 2 else max(1.0, shape[0] ** 0.5))


def test_layer_norm_unaligned_input():
    x, w, b = rand(16, 256), rand(256, seed=2), rand(256, seed=3)
    check(F.layer_norm(unaligned(x), [256], w.to(DEV), b.to(DEV)), F.layer_norm(x, [256], w, b))


# ---- nll_loss / cross_entropy -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n,c", [(256, 128256), (70000, 5), (33, 1001)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_forward_backward(n, c, reduction):
    logits = rand(n, c, scale=2.0)
    gen = torch.Generator().manual_seed(4)
    target = torch.randint(0, c, (n,), generator=gen)
    target[::7] = -100  # ignored
    weight = torch.rand(c, generator=gen) + 0.5

    def run(dev):
        x = logits.to(dev).requires_grad_()
        loss = F.cross_entropy(x, target.to(dev), weight=weight.to(dev), reduction=reduction)
        gout = torch.ones_like(loss) if reduction != "none" else rand(n, seed=5).to(dev)
        return loss.detach(), torch.autograd.grad(loss, x, gout)[0]

    (li, gi), (lc, gc) = run(DEV), run("cpu")
    check(li, lc, scale=max(1.0, lc.abs().max().item()))
    check(gi, gc)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_nll_loss_2d(dtype):
    x = torch.log_softmax(rand(4, 7, 9, 11), 1).to(dtype)
    gen = torch.Generator().manual_seed(6)
    target = torch.randint(0, 7, (4, 9, 11), generator=gen)
    target[0, 0] = 3
    target[1, ::2] = 2

    def run(dev):
        xs = x.to(dev).requires_grad_()
        loss = F.nll_loss(xs, target.to(dev), ignore_index=2)
        return loss.detach(), torch.autograd.grad(loss, xs)[0]

    (li, gi), (lc, gc) = run(DEV), run("cpu")
    check(li, lc)
    check(gi, gc)


def test_nll_loss_all_ignored_mean_is_nan():
    x = torch.log_softmax(rand(5, 4), 1)
    t = torch.full((5,), -100)
    check(F.nll_loss(x.to(DEV), t.to(DEV)), F.nll_loss(x, t), equal_nan=True)


def test_nll_loss_target_out_of_range_raises_at_sync():
    x = torch.log_softmax(rand(5, 4), 1).to(DEV)
    t = torch.tensor([0, 1, 9, 2, 3], device=DEV)
    with pytest.raises((RuntimeError, IndexError), match="out of range|out of bounds"):
        F.nll_loss(x, t)
        torch.infini.synchronize()
