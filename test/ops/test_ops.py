"""torch.ops.infini against plain-PyTorch references, on CPU tensors and infini tensors: dtypes,
awkward sizes, strided inputs, out= forms, opcheck, gradients, and bad input."""

import math

import pytest
import torch
import torch.nn.functional as F
from _devices import OP_DEVICES as DEVICES  # noqa: E402
from _devices import grad_inputs, skip_cuda_backward
from torch.library import opcheck

import infinicore_torch  # noqa: F401
from infinicore_torch import ops

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
TOL = {torch.float32: (2e-5, 2e-5), torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}
I = torch.ops.infini


def close(actual, expected, dtype, scale=1.0):
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(actual.cpu(), expected.to(actual.dtype), rtol=rtol * scale, atol=atol * scale)


def rand(*shape, dtype=torch.float32, device="cpu", scale=1.0):
    return (torch.randn(shape) * scale).to(dtype).to(device)


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


# ---- references (float32 on the CPU, from the same rounded inputs) --------------------------------


def f32(*ts):
    return [None if t is None else t.cpu().float() for t in ts]


def ref_rms(x, w, eps):
    x, w = f32(x, w)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def ref_rope(x, pos, sin, cos, algo):
    x, sin, cos = f32(x, sin, cos)
    pos = pos.cpu().long()
    s, c = sin[pos], cos[pos]  # [..., seq, d/2]
    s, c = s.unsqueeze(-2), c.unsqueeze(-2)  # broadcast over heads
    d = x.shape[-1]
    if algo == "gpt_neox":
        a, b = x[..., : d // 2], x[..., d // 2 :]
        return torch.cat([a * c - b * s, b * c + a * s], -1)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * c - b * s, b * c + a * s], -1).flatten(-2)


def causal_mask(q, kv):
    i = torch.arange(q)[:, None]
    j = torch.arange(kv)[None, :]
    return j > i + kv - q


def ref_causal_softmax(x):
    """torch's softmax of x (as float on the CPU) with the causal mask filled with -inf."""
    (fx,) = f32(x)
    return torch.softmax(fx.masked_fill(causal_mask(*x.shape[-2:]), float("-inf")), -1)


def check_causal_softmax(s, dtype):
    close(ops.causal_softmax(s), ref_causal_softmax(s), dtype)


# ---- forward against the reference ----------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_a, shape_b", [((7, 769), (7, 769)), ((83, 1, 33), (5, 33)), ((1,), (4, 3)), ((), (2,))])
def test_binary_broadcast(device, dtype, shape_a, shape_b):
    a, b = rand(*shape_a, dtype=dtype, device=device), rand(*shape_b, dtype=dtype, device=device)
    fa, fb = f32(a, b)
    close(ops.add(a, b), fa + fb, dtype)
    close(ops.mul(a, b), fa * fb, dtype)
    close(ops.swiglu(a, b), fa * F.silu(fb), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [2**22 + 5, 5_000_003, 3 * 2**21])
def test_binary_many_elements(device, dtype, n):
    """Contiguous inputs of millions of elements (the nvidia backend's unrolled kernels: blocks over
    contiguous chunks, a partial last chunk and a scalar tail at odd lengths), each element checked."""
    a, b = rand(n, dtype=dtype, device=device), rand(n, dtype=dtype, device=device)
    fa, fb = f32(a, b)
    close(ops.add(a, b), fa + fb, dtype)
    close(ops.mul(a, b), fa * fb, dtype)
    close(ops.swiglu(a, b), fa * F.silu(fb), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_and_strided(device, dtype):
    base = rand(83, 1538, dtype=dtype, device=device, scale=3)
    x = base[:, ::2]  # strided last dim
    xt = base[:, :769].t()  # transposed
    for t in (x, xt):
        (ft,) = f32(t)
        close(ops.silu(t), F.silu(ft), dtype)
        close(ops.relu(t), F.relu(ft), dtype)
        close(ops.gelu(t), F.gelu(ft), dtype, scale=2)
        close(ops.gelu(t, "tanh"), F.gelu(ft, approximate="tanh"), dtype, scale=2)
    nan = torch.tensor([float("nan"), -1.0, 2.0], dtype=dtype, device=device)
    assert torch.isnan(ops.relu(nan).cpu()[0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_far_inputs(device, dtype):
    """silu and both gelu forms where their exponentials overflow (|x| up to 1e4, contiguous: the vectorized paths),
    against float64: no NaN from an infinite intermediate."""
    big = torch.tensor([-1e4, -300.0, -100.0, -90.0, -20.0, 10.0, 20.0, 90.0, 100.0, 300.0, 1e4] * 3, dtype=dtype)
    xd = big.double()
    silu = xd / (1 + torch.exp(-xd))
    gelu = 0.5 * xd * (1 + torch.special.erf(xd / math.sqrt(2)))
    gelu_t = 0.5 * xd * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd**3)))
    x = big.to(device)
    for got, want in ((ops.silu(x), silu), (ops.gelu(x), gelu), (ops.gelu(x, "tanh"), gelu_t)):
        close(got, want.to(dtype), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [5, 11008, 300_003])  # a tail only; decode size; over 2^18 with a tail
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_accuracy(device, dtype, n, approximate):
    """gelu on contiguous inputs over [-12, 12] (for the erf form both of erf's ranges and the seams at x / sqrt 2 =
    1 and 4) against float64 from the same rounded inputs: within 4 float32 ulps of |x| (the size of the terms
    x (1 + erf) / 2 cancels at negative x; erf's or tanh's own error is 1-2 ulps) plus half an ulp of the output
    dtype."""
    seams = torch.tensor([1.0, 4.0], dtype=torch.float64) * math.sqrt(2)
    x = torch.linspace(-12, 12, n, dtype=torch.float64)
    x[: min(n, 4)] = torch.cat([seams, -seams])[: min(n, 4)]
    x = x.to(dtype)
    xd = x.double()
    if approximate == "tanh":
        ref = 0.5 * xd * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd**3)))
    else:
        ref = 0.5 * xd * (1 + torch.special.erf(xd / math.sqrt(2)))
    got = ops.gelu(x.to(device), approximate).cpu()
    half_ulp = {torch.float32: 2.0**-24, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}[dtype]
    floor = torch.finfo(dtype).smallest_normal * 2.0**-10  # (output underflow at tiny results)
    tol = 4 * 2.0**-24 * x.double().abs() + half_ulp * ref.abs() + floor
    err = (got.double() - ref).abs()
    worst = int((err - tol).argmax())
    assert bool((err <= tol).all()), f"x={x[worst].item()!r}: {got[worst].item()!r} vs {ref[worst].item()!r}"
    # NaN stays, +inf stays, -inf gives -inf * 0 = NaN as the formula (and torch's CUDA gelu) does. (Not against
    # torch's CPU gelu: on an AVX-512 host its +inf gives NaN.)
    special = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0], dtype=dtype)
    want = torch.tensor([float("nan"), float("inf"), float("nan"), 0.0, 0.0], dtype=dtype)
    torch.testing.assert_close(ops.gelu(special.to(device), approximate).cpu(), want, equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
# (33, 1032) and (16, 11008): the GPU's decode-size kernel, rows crossing its blocks
@pytest.mark.parametrize("tokens, d", [(1, 64), (7, 5125), (83, 769), (33, 1032), (16, 11008)])
def test_silu_and_mul(device, dtype, tokens, d):
    x = rand(tokens, 2 * d, dtype=dtype, device=device)
    (fx,) = f32(x)
    close(ops.silu_and_mul(x), F.silu(fx[:, :d]) * fx[:, d:], dtype)
    xs = rand(tokens, 4 * d, dtype=dtype, device=device)[:, : 2 * d]  # rows strided
    (fs,) = f32(xs)
    close(ops.silu_and_mul(xs), F.silu(fs[:, :d]) * fs[:, d:], dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tokens, hidden", [(1, 4096), (7, 769), (83, 5125)])
def test_norms(device, dtype, tokens, hidden):
    x = rand(tokens, hidden, dtype=dtype, device=device)
    r = rand(tokens, hidden, dtype=dtype, device=device)
    w = rand(hidden, dtype=dtype, device=device)
    b = rand(hidden, dtype=dtype, device=device)
    close(ops.rms_norm(x, w, 1e-6), ref_rms(x, w, 1e-6), dtype, scale=2)
    y, res = ops.add_rms_norm(x, r, w, 1e-5)
    res_ref = (x.cpu().float() + r.cpu().float()).to(dtype)  # rounded as torch rounds a + b
    close(res, res_ref.float(), dtype)
    close(y, ref_rms(res_ref, w, 1e-5), dtype, scale=2)
    fx, fw, fb = f32(x, w, b)
    close(ops.layer_norm(x, w, b, 1e-5), F.layer_norm(fx, (hidden,), fw, fb, 1e-5), dtype, scale=2)
    close(ops.layer_norm(x, w, None), F.layer_norm(fx, (hidden,), fw, None, 1e-5), dtype, scale=2)
    w32 = w.float()  # float32 weights with low-precision activations
    close(ops.rms_norm(x, w32), ref_rms(x, w32, 1e-6), dtype, scale=2)
    xs = rand(tokens, 2, hidden, dtype=dtype, device=device)[:, 1]  # strided rows
    close(ops.rms_norm(xs, w), ref_rms(xs, w, 1e-6), dtype, scale=2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", [2048, 4000])
def test_rms_norm_many_rows(device, dtype, hidden):
    """Rows for several waves of blocks (on GPUs the weights are loaded with the row, 2 pieces a thread:
    4000 16-bit or 2048 float32 elements), with the weights as stored and in float32."""
    x = rand(3500, hidden, dtype=dtype, device=device, scale=3)
    x[17] = 0.0  # a row of zeros: eps alone under the root
    w = rand(hidden, dtype=dtype, device=device)
    close(ops.rms_norm(x, w, 1e-6), ref_rms(x, w, 1e-6), dtype, scale=2)
    close(ops.rms_norm(x, w.float(), 1e-5), ref_rms(x, w.float(), 1e-5), dtype, scale=2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_any_dim_and_causal(device, dtype):
    x = rand(3, 7, 83, dtype=dtype, device=device, scale=4)
    (fx,) = f32(x)
    for dim in (-1, 0, 1):
        close(ops.softmax(x, dim), torch.softmax(fx, dim), dtype)
    close(ops.softmax(x.transpose(0, 2), 1), torch.softmax(fx.transpose(0, 2), 1), dtype)
    for q, kv in ((7, 7), (1, 83), (7, 83)):
        check_causal_softmax(rand(2, 3, q, kv, dtype=dtype, device=device, scale=4), dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_zero_dim_softmax_and_unbroadcastable_add(device):
    x = torch.tensor(1.5, device=device)  # torch.softmax takes a 0-d tensor (dim 0 or -1): 1
    for dim in (0, -1):
        close(ops.softmax(x, dim), torch.softmax(x.cpu(), dim), torch.float32)
    with pytest.raises(RuntimeError, match="infini.softmax: dim 1 is out of range"):
        ops.softmax(x, 1)
    a, b = rand(3, device=device), rand(4, device=device)
    before = (a.cpu().clone(), b.cpu().clone())
    with pytest.raises(RuntimeError, match=r"infini.add: a \[3\] and b \[4\] do not broadcast"):
        torch.ops.infini.add(a, b)
    assert torch.equal(a.cpu(), before[0]) and torch.equal(b.cpu(), before[1])  # the inputs are left as they were


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cols", [32000, 40008, 128256, 200000])
def test_softmax_wide_rows(device, dtype, cols):
    """Vocabulary-wide rows: on GPUs, lines longer than a block holds are split over a cluster of blocks."""
    x = rand(3, cols, dtype=dtype, device=device, scale=6)
    x[1, cols // 3] = 40.0  # one dominant logit in the middle of the row
    (fx,) = f32(x)
    out = ops.softmax(x, -1)
    close(out, torch.softmax(fx, -1), dtype)
    torch.testing.assert_close(out.cpu().float().sum(-1), torch.ones(3), rtol=0, atol=2e-2)
    q, kv = 5, cols // 8 * 8
    check_causal_softmax(rand(q, kv, dtype=dtype, device=device, scale=4), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_many_long_rows(device, dtype):
    """Many lines of thousands of elements (on GPUs: each line held in registers as stored, the exps kept
    in place of the inputs), with stretches of -inf that leave some threads no finite element."""
    x = rand(2048, 8192, dtype=dtype, device=device, scale=5)
    x[3, :4096] = float("-inf")
    x[7, 1000:3000] = float("-inf")
    (fx,) = f32(x)
    out = ops.softmax(x, -1)
    close(out, torch.softmax(fx, -1), dtype)
    assert bool((out[3, :4096] == 0).all()) and bool((out[7, 1000:3000] == 0).all())
    check_causal_softmax(rand(2, 1024, 8192, dtype=dtype, device=device, scale=5), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_many_wide_rows(device, dtype):
    """Enough vocabulary-wide lines to fill a GPU several times (on H100/H200: clusters whose blocks bring
    their parts into shared memory by bulk copies), with a dominant logit, -inf stretches across parts and
    causal masks at the lines' ends."""
    for cols in (40008, 128256):
        x = rand(160 if cols < 100000 else 80, cols, dtype=dtype, device=device, scale=6)
        x[3, cols // 2] = 50.0
        x[9, 100 : cols - 100] = float("-inf")
        (fx,) = f32(x)
        out = ops.softmax(x, -1)
        close(out, torch.softmax(fx, -1), dtype)
        assert bool((out[9, 100 : cols - 100] == 0).all())
    check_causal_softmax(rand(2, 80, 40008, dtype=dtype, device=device, scale=4), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_many_vocabulary_rows(device, dtype):
    """Hundreds of vocabulary-wide lines (on H100/H200: persistent clusters, each taking several lines in
    turn, the next line's parts copied in while the present one is computed), parts of equal and unequal
    lengths, with a dominant logit, -inf stretches across parts, a line of equal values, a NaN among -inf
    and a line of only -inf (both NaN). Compared in units of the line's mean (out * cols), where the values are O(1)."""
    for rows, cols in ((264, 128256), (203, 100008)):
        x = rand(rows, cols, dtype=dtype, device=device, scale=4)
        x[3, cols // 2] = 60.0
        x[70, 100 : cols - 100] = float("-inf")
        x[130] = 2.5
        x[150, 100 : cols - 100] = float("-inf")
        x[150, cols // 2] = float("nan")  # a NaN among -inf (one thread's slice): the whole line NaN, as torch
        x[rows - 1] = float("-inf")
        (fx,) = f32(x)
        out = ops.softmax(x, -1).cpu()
        assert bool(out[rows - 1].isnan().all()) and bool(out[150].isnan().all())
        keep = [r for r in range(rows) if r not in (150, rows - 1)]
        ref = torch.softmax(fx[keep], -1)
        # f32: sums of 10^5 terms; f16: its subnormal step (6e-8) is 0.008 of the mean here
        rtol, atol = {torch.float32: (1e-4, 1e-4), torch.float16: (4e-3, 2e-2), torch.bfloat16: (2e-2, 2e-2)}[dtype]
        torch.testing.assert_close(out[keep].float() * cols, ref * cols, rtol=rtol, atol=atol)
        assert bool((out[70, 100 : cols - 100] == 0).all())
        torch.testing.assert_close(out[keep].float().sum(-1), torch.ones(len(keep)), rtol=0, atol=1e-2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_decode_size_lines(device, dtype):
    """Short lines with little work in all (decode-size attention rows; on GPUs a warp a line), line
    lengths around the pieces a lane holds, with -inf stretches that leave some lanes no finite element."""
    for rows, cols in ((5, 8), (32, 256), (9, 264), (32, 1024), (3, 2048), (4, 2056)):
        x = rand(rows, cols, dtype=dtype, device=device, scale=5)
        x[1, : cols // 2] = float("-inf")
        (fx,) = f32(x)
        close(ops.softmax(x, -1), torch.softmax(fx, -1), dtype)
        for q in (1, 4):
            check_causal_softmax(rand(rows, q, cols, dtype=dtype, device=device, scale=5), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_of_a_line_of_only_minus_inf_is_nan(device, dtype):
    """As torch: 0/0 is NaN. causal_softmax: NaN where the line is live, 0 where masked (as the CPU
    backend). On GPUs the sizes reach every kernel: a warp a line, a block a line (in registers, and read
    twice), many long lines, a cluster a line, a strided line."""
    for rows, cols in ((3, 8), (64, 4104), (2, 300000), (2048, 8192), (3, 40000), (160, 40008)):
        x = rand(rows, cols, dtype=dtype, device=device)
        x[1] = float("-inf")
        out = ops.softmax(x, -1).cpu()
        assert bool(out[1].isnan().all()), (rows, cols)
        close(out[0], torch.softmax(x[0].cpu().float(), -1), dtype)
    xt = rand(8, 3, dtype=dtype, device=device)
    xt[:, 1] = float("-inf")
    out = ops.softmax(xt, 0).cpu()  # lines along dim 0: stride 3
    assert bool(out[:, 1].isnan().all())
    close(out[:, 0], torch.softmax(xt[:, 0].cpu().float(), 0), dtype)
    for q, kv in ((1, 1024), (4, 16), (4, 40000), (3, 8192), (80, 40008)):
        s = rand(2, q, kv, dtype=dtype, device=device)
        row = q - 1 if q > 1 else 0
        live = row + kv - q + 1
        s[1, row, :live] = float("-inf")
        out = ops.causal_softmax(s).cpu()
        assert bool(out[1, row, :live].isnan().all()), (q, kv)
        assert bool((out[1, row, live:] == 0).all()), (q, kv)
        close(out[0], ref_causal_softmax(s[0]), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_of_a_line_with_nan_among_minus_inf_is_nan(device, dtype):
    """As torch: a NaN anywhere live makes the whole line NaN, also where the NaN is the only value of a
    thread's (or a vector lane's) share that is not -inf, so that a max that skips NaN finds -inf there.
    The sizes reach every kernel, as in the test above; causal_softmax: its live part NaN."""
    for rows, cols in ((3, 8), (64, 4104), (2, 300000), (2048, 8192), (3, 40000), (160, 40008), (264, 128256)):
        x = rand(rows, cols, dtype=dtype, device=device)
        x[1] = float("-inf")
        x[1, 0] = 1.0
        x[1, cols // 2 + 1] = float("nan")
        out = ops.softmax(x, -1).cpu()
        assert bool(out[1].isnan().all()), (rows, cols)
        close(out[0], torch.softmax(x[0].cpu().float(), -1), dtype)
    for q, kv in ((1, 1024), (4, 16), (4, 40000), (3, 8192), (80, 40008)):
        s = rand(2, q, kv, dtype=dtype, device=device)
        row = q - 1 if q > 1 else 0
        live = row + kv - q + 1
        s[1, row, :live] = float("-inf")
        s[1, row, 0] = 1.0
        s[1, row, live // 2 + 1] = float("nan")
        out = ops.causal_softmax(s).cpu()
        assert bool(out[1, row, :live].isnan().all()), (q, kv)
        close(out[0], ref_causal_softmax(s[0]), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tokens, hidden", [(1, 1024), (200, 1024), (300, 4096), (150, 2048)])
def test_layer_norm_rows_held(device, dtype, tokens, hidden):
    """layer_norm at widths the GPU kernels hold in registers as 16-byte pieces (one, two or four a thread), with
    few rows (weights and bias loaded with the row) and many (a piece at a time after the reductions); rows whose mean
    is large against their spread (the variance taken about the mean, not as E[x^2] - mean^2); float32
    weights and bias with 16-bit activations; rows a stride apart."""
    x = rand(tokens, hidden, dtype=dtype, device=device, scale=0.5) + 40.0
    w = rand(hidden, dtype=dtype, device=device)
    b = rand(hidden, dtype=dtype, device=device)
    dx, dw, db = (t.cpu().double() for t in (x, w, b))
    # float32: a mean 80 spreads from zero makes x - mean lose ~6 bits whichever way it is summed (torch's
    # own float32 result is off the float64 one by ~5e-5): 2e-4; E[x^2] - mean^2 would be off by ~3e-3
    sc = 10 if dtype == torch.float32 else 2
    close(ops.layer_norm(x, w, b, 1e-5), F.layer_norm(dx, (hidden,), dw, db, 1e-5), dtype, scale=sc)
    close(ops.layer_norm(x, w, None, 1e-5), F.layer_norm(dx, (hidden,), dw, None, 1e-5), dtype, scale=sc)
    w32, b32 = w.float(), b.float()
    close(ops.layer_norm(x, w32, b32, 1e-5), F.layer_norm(dx, (hidden,), dw, db, 1e-5), dtype, scale=sc)
    fw, fb = f32(w, b)
    xs = rand(tokens, hidden + 64, dtype=dtype, device=device)[:, :hidden]
    (fs,) = f32(xs)
    close(ops.layer_norm(xs, w, b, 1e-5), F.layer_norm(fs, (hidden,), fw, fb, 1e-5), dtype, scale=2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_embedding(device, dtype, index_dtype):
    w = rand(100, 769, dtype=dtype, device=device)
    idx = torch.randint(0, 100, (7, 5), dtype=index_dtype).to(device)
    out = ops.embedding(idx, w)
    assert out.shape == (7, 5, 769)
    assert torch.equal(out.cpu(), w.cpu()[idx.cpu().long()])
    empty = ops.embedding(torch.empty(0, dtype=index_dtype, device=device), w)
    assert empty.shape == (0, 769)
    # enough rows for the CPU backend's two threads, each copying a row while it prefetches the next;
    # row sizes that are not a multiple of the 64-byte line, and a weight whose rows are 5 apart
    for rows, cols in ((300, 769), (64, 5125)):
        wide = rand(rows, cols + 5, dtype=dtype, device=device)
        w2 = wide[:, 2 : cols + 2]
        idx2 = torch.randint(0, rows, (203,), dtype=index_dtype).to(device)
        assert torch.equal(ops.embedding(idx2, w2).cpu(), w2.cpu()[idx2.cpu().long()])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_embedding_wide_rows(device, dtype, index_dtype):
    """Rows of whole 16-byte pieces (the nvidia backend's 16-byte path): rows of 512 and of 129 pieces (4096
    and 1032 columns of 16-bit types; one past a 128-thread block's pieces), one token to many, 2-D and strided
    indices; more tokens than a CUDA grid's y dimension (65535) holds, so a block takes several."""
    for vocab, cols in ((50, 4096), (37, 1032)):
        w = rand(vocab, cols, dtype=dtype, device=device)
        wc = w.cpu()
        for shape in ((1,), (16,), (300,), (3, 100)):
            idx = torch.randint(0, vocab, shape, dtype=index_dtype).to(device)
            assert torch.equal(ops.embedding(idx, w).cpu(), wc[idx.cpu().long()])
        idx = torch.randint(0, vocab, (2, 64), dtype=index_dtype).to(device)[:, ::2]  # a stride of 2
        assert torch.equal(ops.embedding(idx, w).cpu(), wc[idx.cpu().long()])
    w = rand(37, 8, dtype=dtype, device=device)  # rows of 16 or 32 bytes
    idx = torch.randint(0, 37, (70_000,), dtype=index_dtype).to(device)
    assert torch.equal(ops.embedding(idx, w).cpu(), w.cpu()[idx.cpu().long()])
    assert torch.equal(ops.embedding(idx[::3], w).cpu(), w.cpu()[idx[::3].cpu().long()])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_large_outputs_streamed(device, dtype):
    """Outputs past a quarter of the last-level cache (64 MiB covers a 256 MiB one): the CPU backend writes
    add, mul, relu and embedding with streaming stores, from a scalar head up to the stores' alignment:
    outputs that start off that alignment (a view at element 1), odd lengths (the tail), and in-place.
    Against torch (exact in float32)."""

    def same(actual, expected):
        if dtype == torch.float32:
            assert torch.equal(actual.cpu(), expected)
        else:
            close(actual, expected, dtype)

    n = (64 << 20) // torch.tensor([], dtype=dtype).element_size() + 13
    a, b = rand(n + 1, dtype=dtype, device=device), rand(n + 1, dtype=dtype, device=device)
    av, bv = a[1:], b[1:]  # contiguous, one element past the allocation's alignment
    ac, bc = av.cpu(), bv.cpu()
    same(ops.add(av, bv), ac + bc)
    same(ops.mul(av, bv), ac * bc)
    assert torch.equal(ops.relu(av).cpu(), torch.relu(ac))  # exact in every dtype
    out = torch.empty(n + 1, dtype=dtype, device=device)
    ops.add(av, bv, out=out[1:])
    same(out[1:], ac + bc)
    expect = a.cpu() + b.cpu()
    ops.add(a, b, out=a)  # in place
    same(a, expect)
    if dtype != torch.float32:
        return
    w = rand(1000, 4099, device=device)  # rows of 16396 bytes: every row starts at another alignment
    idx = torch.randint(0, 1000, (4100,)).to(device)
    assert torch.equal(ops.embedding(idx, w).cpu(), w.cpu()[idx.cpu()])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_relu_every_16bit_value(device, dtype):
    """relu of every float16/bfloat16 bit pattern (NaNs of either sign, infinities, -0, subnormals), from
    views at other alignments, odd lengths and out=, equals torch's bit for bit (a NaN stays a NaN; -0
    stays -0). The CPU backend computes it on the raw 16-bit lanes, without a round trip through float."""
    bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dtype)
    x = torch.cat([bits, bits.flip(0)]).to(device)
    for v in (x, x[1:], x[3:-2], x[7:40007]):
        y, r = ops.relu(v).cpu(), torch.relu(v.cpu())
        both_nan = y.isnan() & r.isnan()
        assert bool(((y.view(torch.int16) == r.view(torch.int16)) | both_nan).all())
        assert torch.equal(y.isnan(), r.isnan())
    out = torch.full((x.numel() + 1,), 7.0, dtype=dtype, device=device)
    ops.relu(x, out=out[1:])
    assert torch.equal(out[1:].cpu().nan_to_num(), torch.relu(x.cpu()).nan_to_num())
    assert out[0].item() == 7.0  # nothing written before the view


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("algo", ["gpt_neox", "gpt_j"])
def test_rope(device, dtype, head_dim, algo):
    angles = torch.arange(512)[:, None] * (10000 ** (-torch.arange(0, head_dim, 2) / head_dim))[None, :]
    sin, cos = angles.sin().to(device), angles.cos().to(device)
    x = rand(7, 4, head_dim, dtype=dtype, device=device)
    pos = torch.randint(0, 512, (7,)).to(device)
    close(ops.rope(x, pos, sin, cos, algo), ref_rope(x, pos, sin, cos, algo), dtype, scale=2)
    xb = rand(2, 7, 4, head_dim, dtype=dtype, device=device)
    posb = torch.randint(0, 512, (2, 7), dtype=torch.int32).to(device)
    close(ops.rope(xb, posb, sin, cos, algo), ref_rope(xb, posb, sin, cos, algo), dtype, scale=2)
    posb_t = torch.randint(0, 512, (7, 2)).to(device).t()  # 2-D positions that are not one stride over the tokens
    close(ops.rope(xb, posb_t, sin, cos, algo), ref_rope(xb, posb_t, sin, cos, algo), dtype, scale=2)
    pos_s = torch.randint(0, 512, (14,)).to(device)[::2]  # 1-D positions with a stride
    close(ops.rope(x, pos_s, sin, cos, algo), ref_rope(x, pos_s, sin, cos, algo), dtype, scale=2)
    xs = rand(7, 8, head_dim, dtype=dtype, device=device)[:, ::2]  # strided heads
    close(
        ops.rope(xs, pos, sin.to(dtype), cos.to(dtype), algo),
        ref_rope(xs, pos, sin.to(dtype), cos.to(dtype), algo),
        dtype,
        scale=2,
    )


@pytest.mark.parametrize("device", DEVICES)
def test_out_forms(device):
    x = rand(7, 64, device=device)
    w = rand(64, device=device)
    out = torch.empty(7, 64, device=device)
    r = I.rms_norm.out(x, w, 1e-6, out=out)
    assert r.data_ptr() == out.data_ptr()
    close(out, ref_rms(x, w, 1e-6), torch.float32)
    strided = torch.empty(64, 7, device=device).t()  # a layout the kernel cannot write: goes via a temporary
    I.softmax.out(x, -1, out=strided)
    close(strided, torch.softmax(x.cpu(), -1), torch.float32)
    grow = torch.empty(0, device=device)
    I.silu_and_mul.out(x, out=grow)
    assert grow.shape == (7, 32)
    y, res = torch.empty_like(x), torch.empty_like(x)
    I.add_rms_norm.out(x, x, w, 1e-6, out=y, residual_out=res)
    close(res, 2 * x.cpu(), torch.float32)
    with pytest.raises(RuntimeError, match="infini.add: out has dtype"):
        I.add.out(x, x, out=torch.empty(7, 64, dtype=torch.float16, device=device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("rows, hidden", [(16, 4096), (512, 2048)])
def test_dependent_ops_back_to_back(device, dtype, rows, hidden):
    """A chain of ops, each reading what the kernel just before it wrote (ours and torch's in turn), queued
    back to back behind a busy GPU: on sm_90+ the nvidia backend launches its memory-bound kernels as
    programmatic dependents, whose start overlaps the end of the kernel before them. Every output buffer
    starts as NaN and every step is checked against a float32 reference of its own inputs, so a step that
    read its input before the kernel writing it had finished fails. On CUDA tensors the chain is also
    captured in a CUDA graph and replayed on new input."""
    steps = 6
    w = rand(hidden, dtype=dtype, device=device)
    x0 = rand(rows, hidden, dtype=dtype, device=device)

    def nan(*shape):
        return torch.full(shape, float("nan"), dtype=dtype, device=device)

    bufs = [
        dict(
            a=nan(rows, hidden),
            b=nan(rows, hidden),
            c=nan(rows, hidden),
            d=nan(rows, hidden),
            cd=nan(rows, 2 * hidden),
            g=nan(rows, hidden),
            x=nan(rows, hidden),
        )
        for _ in range(steps)
    ]

    def chain(x):
        for o in bufs:
            I.rms_norm.out(x, w, 1e-6, out=o["a"])
            I.add.out(o["a"], x, out=o["b"])
            torch.mul(o["b"], 0.5, out=o["c"])  # a torch kernel between ours
            I.softmax.out(o["c"], -1, out=o["d"])
            torch.cat([o["c"], o["d"]], -1, out=o["cd"])
            I.silu_and_mul.out(o["cd"], out=o["g"])
            I.add.out(o["g"], o["c"], out=o["x"])
            x = o["x"]

    def check(x):
        for o in bufs:
            a, b, c, d, cd, g = f32(o["a"], o["b"], o["c"], o["d"], o["cd"], o["g"])
            close(o["a"], ref_rms(x, w, 1e-6), dtype, scale=2)
            close(o["b"], a + x.cpu().float(), dtype)
            close(o["d"], torch.softmax(c, -1), dtype)
            close(o["g"], F.silu(cd[:, :hidden]) * cd[:, hidden:], dtype)
            close(o["x"], g + c, dtype)
            assert torch.equal(o["c"].cpu(), (b * 0.5).to(dtype))
            x = o["x"]

    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda._sleep(20_000_000)  # the GPU busy for milliseconds: the whole chain is queued behind it
    chain(x0)
    check(x0)
    if device == "cuda":
        graph = torch.cuda.CUDAGraph()
        static_x = x0.clone()
        torch.cuda.synchronize()
        with torch.cuda.graph(graph):
            chain(static_x)
        for o in bufs:
            for t in o.values():
                t.fill_(float("nan"))
        static_x.copy_(rand(rows, hidden, dtype=dtype, device=device))
        torch.cuda._sleep(20_000_000)
        graph.replay()
        torch.cuda.synchronize()
        check(static_x)


# ---- opcheck ---------------------------------------------------------------------------------------


def opcheck_cases(device):
    angles = torch.arange(64)[:, None] * torch.linspace(0, 1, 32)[None, :]
    sin, cos = angles.sin().to(device), angles.cos().to(device)
    x = rand(5, 64, device=device)
    return [
        (I.add.default, (x, rand(64, device=device))),
        (I.mul.default, (x, x)),
        (I.silu.default, (x,)),
        (I.relu.default, (x,)),
        (I.gelu.default, (x, "tanh")),
        (I.swiglu.default, (x, x)),
        (I.silu_and_mul.default, (x,)),
        (I.rms_norm.default, (x, rand(64, device=device), 1e-6)),
        (I.add_rms_norm.default, (x, rand(5, 64, device=device), rand(64, device=device), 1e-6)),
        (I.layer_norm.default, (x, rand(64, device=device), rand(64, device=device), 1e-5)),
        (I.softmax.default, (x, 0)),
        (I.causal_softmax.default, (rand(2, 3, 5, device=device),)),
        (I.embedding.default, (torch.tensor([[1, 2], [0, 4]], device=device), rand(5, 64, device=device))),
        (I.rope.default, (rand(6, 2, 64, device=device), torch.arange(6, device=device), sin, cos, "gpt_neox")),
    ]


# torch's autograd-registration check supports only CPU/CUDA/XPU tensors; the registration is the
# same for every device, so it runs on CPU tensors and the other three checks run on both.
CHECKS = {
    "cpu": ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"),
    "infini": ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"),
    "cuda": ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"),
}


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device):
    for op, args in opcheck_cases(device):
        args = tuple(
            a.requires_grad_() if isinstance(a, torch.Tensor) and a.is_floating_point() and grad_inputs(device) else a
            for a in args
        )
        result = opcheck(op, args, test_utils=CHECKS[device])
        assert set(result) == set(CHECKS[device]) and all(v == "SUCCESS" for v in result.values()), (op, result)


# ---- gradients ---------------------------------------------------------------------------------------


def grads(fn, *inputs):
    inputs = [t.detach().clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
    out = fn(*inputs)
    out = out if isinstance(out, tuple) else (out,)
    torch.manual_seed(1)
    gs = [torch.randn(o.shape).to(o.device) for o in out]
    torch.autograd.backward(out, gs)
    return [t.grad.cpu() for t in inputs if t.is_floating_point()]


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_match_reference_autograd(device):
    skip_cuda_backward(device)
    angles = torch.arange(32)[:, None] * torch.linspace(0, 1, 8)[None, :]
    sin, cos = angles.sin(), angles.cos()
    pos = torch.tensor([3, 1, 4, 1, 5])
    idx = torch.tensor([[1, 2, 1], [0, 3, 3]])
    cases = [
        (lambda a, b: ops.add(a, b), lambda a, b: a + b, [rand(5, 16), rand(16)]),
        (lambda a, b: ops.mul(a, b), lambda a, b: a * b, [rand(5, 16), rand(5, 1)]),
        (lambda a, b: ops.swiglu(a, b), lambda a, b: a * F.silu(b), [rand(5, 16), rand(5, 16)]),
        (ops.silu, F.silu, [rand(5, 16)]),
        (ops.relu, F.relu, [rand(5, 16)]),
        (lambda x: ops.gelu(x, "tanh"), lambda x: F.gelu(x, approximate="tanh"), [rand(5, 16)]),
        (ops.silu_and_mul, lambda x: F.silu(x[:, :8]) * x[:, 8:], [rand(5, 16)]),
        (lambda x, w: ops.rms_norm(x, w, 1e-6), lambda x, w: F.rms_norm(x, (16,), w, 1e-6), [rand(5, 16), rand(16)]),
        (
            lambda a, b, w: ops.add_rms_norm(a, b, w, 1e-6),
            lambda a, b, w: (F.rms_norm(a + b, (16,), w, 1e-6), a + b),
            [rand(5, 16), rand(5, 16), rand(16)],
        ),
        (
            lambda x, w, b: ops.layer_norm(x, w, b),
            lambda x, w, b: F.layer_norm(x, (16,), w, b),
            [rand(5, 16), rand(16), rand(16)],
        ),
        (lambda x: ops.softmax(x, 0), lambda x: torch.softmax(x, 0), [rand(5, 16)]),
        (
            ops.causal_softmax,
            lambda x: torch.softmax(x.masked_fill(causal_mask(4, 6), float("-inf")), -1),
            [rand(2, 4, 6)],
        ),
        (
            lambda x: ops.rope(x, pos.to(x.device), sin.to(x.device), cos.to(x.device)),
            lambda x: ref_rope(x, pos, sin, cos, "gpt_neox"),
            [rand(5, 2, 16)],
        ),
        (lambda w: ops.embedding(idx.to(w.device), w), lambda w: w[idx], [rand(4, 16)]),
    ]
    for mine, ref, inputs in cases:
        got = grads(mine, *[t.to(device) for t in inputs])
        want = grads(ref, *inputs)
        for g, r in zip(got, want):
            torch.testing.assert_close(g, r, rtol=1e-4, atol=1e-5)


# ---- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_bad_input_names_the_op_and_argument(device):
    x = rand(4, 8, device=device)
    w = rand(8, device=device)
    keep = x.clone()
    with pytest.raises(RuntimeError, match=r"infini.rms_norm: x must be float32, float16 or bfloat16"):
        ops.rms_norm(x.to(torch.int32), w)
    with pytest.raises(RuntimeError, match=r"infini.rms_norm: weight must have shape \[8\]"):
        ops.rms_norm(x, rand(7, device=device))
    with pytest.raises(RuntimeError, match=r"infini.add: b has dtype"):
        ops.add(x, x.half())
    with pytest.raises(RuntimeError, match=r"infini.add_rms_norm: b has shape"):
        ops.add_rms_norm(x, rand(3, 8, device=device), w)
    with pytest.raises(RuntimeError, match=r"infini.silu_and_mul: the last dimension of x must be even"):
        ops.silu_and_mul(rand(4, 7, device=device))
    with pytest.raises(RuntimeError, match=r"infini.gelu: approximate must be"):
        ops.gelu(x, "fast")
    with pytest.raises(RuntimeError, match=r"infini.softmax: dim 2 is out of range"):
        ops.softmax(x, 2)
    with pytest.raises(RuntimeError, match=r"infini.causal_softmax: kv_len"):
        ops.causal_softmax(rand(5, 3, device=device))
    with pytest.raises(RuntimeError, match=r"infini.embedding: indices must be int32 or int64"):
        ops.embedding(x, w)
    with pytest.raises(RuntimeError, match=r"infini.rope: algo must be"):
        ops.rope(
            rand(2, 1, 8, device=device),
            torch.zeros(2, dtype=torch.long, device=device),
            rand(4, 4, device=device),
            rand(4, 4, device=device),
            "llama",
        )
    other = "infini" if device == "cpu" else "cpu"
    with pytest.raises(RuntimeError, match=r"infini.rms_norm: weight is on"):
        ops.rms_norm(x, w.to(other))
    assert torch.equal(x.cpu(), keep.cpu())


def test_out_of_range_indices_raise_on_cpu_and_leave_inputs():
    w = rand(10, 4)
    idx = torch.tensor([1, 10, 2])
    with pytest.raises(RuntimeError, match=r"embedding: index 10 in indices is out of range \[0, 10\)"):
        ops.embedding(idx, w)
    sin = cos = torch.zeros(6, 4)
    x = rand(3, 2, 8)
    with pytest.raises(RuntimeError, match=r"rope: index -1 in pos_ids is out of range \[0, 6\)"):
        ops.rope(x, torch.tensor([0, -1, 2]), sin, cos)
    assert torch.equal(idx, torch.tensor([1, 10, 2]))


def test_out_of_range_indices_on_infini_raise_at_synchronization():
    w = rand(10, 4, device="infini")
    idx = torch.tensor([1, 10, 2], device="infini")
    with pytest.raises(RuntimeError, match=r"embedding: index 10 in indices is out of range"):
        ops.embedding(idx, w)
        torch.infini.synchronize()
    torch.infini.synchronize()  # the error was reported once; the device keeps working
    assert torch.equal(ops.embedding(torch.tensor([3], device="infini"), w).cpu(), w.cpu()[3:4])


# ---- torch.compile ---------------------------------------------------------------------------------


class DecoderLayer(torch.nn.Module):
    """rms_norm -> linear q/k/v -> rope -> paged_caching of k/v -> causal attention (causal_softmax)
    -> linear -> add_rms_norm -> SwiGLU MLP (linear + swiglu): every op here is torch.ops.infini."""

    def __init__(self, dim=64, heads=4, block_size=8, blocks=4):
        super().__init__()
        self.heads, self.hd, self.bs = heads, dim // heads, block_size
        self.norm = infinicore_torch.nn.RMSNorm(dim)
        self.qkv = infinicore_torch.nn.Linear(dim, 3 * dim, bias=False)
        self.o = infinicore_torch.nn.Linear(dim, dim)
        self.mlp = infinicore_torch.nn.SwiGLUMLP(dim, 2 * dim)
        self.rope = infinicore_torch.nn.RoPE(self.hd, max_positions=64)
        self.register_buffer("k_cache", torch.zeros(blocks, heads, block_size, self.hd))
        self.register_buffer("v_cache", torch.zeros(blocks, heads, block_size, self.hd))

    def forward(self, x, pos):
        s = x.shape[0]
        q, k, v = self.qkv(self.norm(x)).view(s, 3, self.heads, self.hd).unbind(1)
        q, k = self.rope(q.contiguous(), pos), self.rope(k.contiguous(), pos)
        ops.paged_caching(k, v.contiguous(), self.k_cache, self.v_cache, pos)
        # read the keys and values back from the cache (slots 0..s-1 are blocks 0.., rows 0..)
        kc = self.k_cache.transpose(1, 2).reshape(-1, self.heads, self.hd)[:s]
        vc = self.v_cache.transpose(1, 2).reshape(-1, self.heads, self.hd)[:s]
        scores = torch.einsum("qhd,khd->hqk", q, kc) / math.sqrt(self.hd)
        attn = torch.einsum("hqk,khd->qhd", ops.causal_softmax(scores), vc).reshape(s, -1)
        h, res = ops.add_rms_norm(x, self.o(attn), self.norm.weight)
        return res + self.mlp(h)


@pytest.mark.parametrize("device, backend", [("cpu", "inductor"), ("infini", "aot_eager")])
def test_compile_decoder_layer_fullgraph(device, backend):
    torch._dynamo.reset()
    layer = DecoderLayer().to(device)
    x = rand(9, 64, device=device)
    pos = torch.arange(9, device=device)
    eager = layer(x, pos)
    layer.k_cache.zero_()
    layer.v_cache.zero_()
    compiled = torch.compile(layer, backend=backend, fullgraph=True)
    torch.testing.assert_close(compiled(x, pos).cpu(), eager.cpu(), rtol=1e-4, atol=1e-4)
    assert layer.k_cache.abs().sum() > 0  # the compiled graph wrote the cache
