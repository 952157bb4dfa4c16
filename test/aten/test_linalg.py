"""Matrix products on infini (csrc/aten/Linalg.cpp, the gemm operator): mm, bmm, addmm, baddbmm, addmv / mv,
addbmm, dot / vdot, and what matmul, F.linear and einsum reach, against torch on CPU tensors. Every test runs with
INFINI_FALLBACK=error (test/conftest.py's native_only) unless it is about the fallback itself."""

import math

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

DEV = "infini"
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def close(actual, expected, dtype, k=1):
    """Per-dtype tolerance for sums of k products of N(0, 1) values (errors grow like sqrt(k))."""
    scale = math.sqrt(max(k, 1))
    tol = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float64: 1e-12}[dtype]
    torch.testing.assert_close(actual.cpu(), expected, rtol=tol * 4, atol=tol * scale)


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 13, 5), (33, 1023, 3), (0, 5, 4), (5, 0, 4), (5, 4, 0), (64, 64, 65)])
def test_mm_matches_cpu(dtype, m, k, n):
    torch.manual_seed(0)
    a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
    out = torch.mm(a.to(DEV), b.to(DEV))
    assert out.device.type == DEV and out.shape == (m, n) and out.dtype == dtype
    close(out, torch.mm(a, b), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_transposed_and_strided_operands(dtype):
    torch.manual_seed(1)
    a, b = rand(40, 24, dtype=dtype), rand(30, 40, dtype=dtype)
    ia, ib = a.to(DEV), b.to(DEV)
    close(ia.t() @ ib.t(), a.t() @ b.t(), dtype, 40)  # both column-major: read in place
    close(ia[::2, ::3] @ ib[:8, ::2], a[::2, ::3] @ b[:8, ::2], dtype, 8)  # no unit stride: copied
    col = rand(5, 1, dtype=dtype)
    close(ia[:3, :5] @ col.to(DEV).expand(5, 4), a[:3, :5] @ col.expand(5, 4), dtype, 5)  # stride-0 columns


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_out_forms(dtype):
    torch.manual_seed(2)
    a, b = rand(9, 6, dtype=dtype), rand(6, 7, dtype=dtype)
    ref = a @ b
    out = torch.empty(0, dtype=dtype, device=DEV)  # resized
    torch.mm(a.to(DEV), b.to(DEV), out=out)
    close(out, ref, dtype, 6)
    out_t = torch.empty(7, 9, dtype=dtype, device=DEV).t()  # column-major out: through a temporary
    torch.mm(a.to(DEV), b.to(DEV), out=out_t)
    close(out_t, ref, dtype, 6)
    sq = rand(6, 6, dtype=dtype)
    isq = sq.to(DEV)
    torch.mm(isq, isq, out=isq)  # out aliases both inputs
    close(isq, sq @ sq, dtype, 6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("b,m,k,n", [(1, 1, 1, 1), (3, 7, 13, 5), (4, 1, 129, 65), (0, 2, 3, 4), (2, 3, 0, 4)])
def test_bmm_matches_cpu(dtype, b, m, k, n):
    torch.manual_seed(3)
    x, y = rand(b, m, k, dtype=dtype), rand(b, k, n, dtype=dtype)
    close(torch.bmm(x.to(DEV), y.to(DEV)), torch.bmm(x, y), dtype, k)
    # transposed batches (attention's q @ k^T) and an expanded (stride-0) batch
    close(torch.bmm(x.to(DEV), y.to(DEV).transpose(1, 2).contiguous().transpose(1, 2)), torch.bmm(x, y), dtype, k)
    if b > 0:
        y0 = y[:1]
        close(torch.bmm(x.to(DEV), y0.to(DEV).expand(b, k, n)), torch.bmm(x, y0.expand(b, k, n)), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.5, -2.0), (0.0, 1.5)])
def test_addmm_and_baddbmm(dtype, beta, alpha):
    torch.manual_seed(4)
    bias, m1, m2 = rand(7, dtype=dtype), rand(5, 11, dtype=dtype), rand(11, 7, dtype=dtype)
    out = torch.addmm(bias.to(DEV), m1.to(DEV), m2.to(DEV), beta=beta, alpha=alpha)
    close(out, torch.addmm(bias, m1, m2, beta=beta, alpha=alpha), dtype, 11)
    s, b1, b2 = rand(3, 5, 7, dtype=dtype), rand(3, 5, 11, dtype=dtype), rand(3, 11, 7, dtype=dtype)
    out = torch.baddbmm(s.to(DEV), b1.to(DEV), b2.to(DEV), beta=beta, alpha=alpha)
    close(out, torch.baddbmm(s, b1, b2, beta=beta, alpha=alpha), dtype, 11)
    # in place, and out=
    inplace = s.to(DEV)
    inplace.baddbmm_(b1.to(DEV), b2.to(DEV), beta=beta, alpha=alpha)
    close(inplace, torch.baddbmm(s, b1, b2, beta=beta, alpha=alpha), dtype, 11)
    out = torch.empty(0, dtype=dtype, device=DEV)
    torch.addmm(bias.to(DEV), m1.to(DEV), m2.to(DEV), beta=beta, alpha=alpha, out=out)
    close(out, torch.addmm(bias, m1, m2, beta=beta, alpha=alpha), dtype, 11)


def test_beta_zero_ignores_nan_in_self():
    m1, m2 = torch.randn(4, 3), torch.randn(3, 5)
    nan = torch.full((4, 5), float("nan"))
    out = torch.addmm(nan.to(DEV), m1.to(DEV), m2.to(DEV), beta=0)
    close(out, m1 @ m2, torch.float32, 3)
    inplace = nan.to(DEV)
    inplace.addmm_(m1.to(DEV), m2.to(DEV), beta=0)
    close(inplace, m1 @ m2, torch.float32, 3)
    vec_nan = torch.full((4,), float("nan"))
    v = torch.randn(3)
    close(torch.addmv(vec_nan.to(DEV), m1.to(DEV), v.to(DEV), beta=0), m1 @ v, torch.float32, 3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_addmv_mv_dot(dtype):
    torch.manual_seed(5)
    mat, vec, s = rand(9, 1023, dtype=dtype), rand(1023, dtype=dtype), rand(9, dtype=dtype)
    close(torch.mv(mat.to(DEV), vec.to(DEV)), torch.mv(mat, vec), dtype, 1023)
    close(torch.mv(mat.to(DEV).t().contiguous().t(), vec.to(DEV)), torch.mv(mat, vec), dtype, 1023)
    close(torch.mv(mat.to(DEV)[:, ::2], vec.to(DEV)[::2]), torch.mv(mat[:, ::2], vec[::2]), dtype, 512)
    close(
        torch.addmv(s.to(DEV), mat.to(DEV), vec.to(DEV), beta=0.5, alpha=2),
        torch.addmv(s, mat, vec, beta=0.5, alpha=2),
        dtype,
        1023,
    )
    inplace = s.to(DEV)
    inplace.addmv_(mat.to(DEV), vec.to(DEV))
    close(inplace, torch.addmv(s, mat, vec), dtype, 1023)
    other = rand(2046, dtype=dtype)[::2]  # a strided vector
    close(torch.dot(vec.to(DEV), other.to(DEV)), torch.dot(vec, other), dtype, 1023)
    close(torch.vdot(vec.to(DEV), vec.to(DEV)), torch.vdot(vec, vec), dtype, 1023)
    empty = torch.empty(0, dtype=dtype)
    assert torch.dot(empty.to(DEV), empty.to(DEV)).item() == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.0, 0.5)])
def test_addbmm(dtype, beta, alpha):
    torch.manual_seed(6)
    s, b1, b2 = rand(5, 7, dtype=dtype), rand(4, 5, 9, dtype=dtype), rand(4, 9, 7, dtype=dtype)
    ref = torch.addbmm(s, b1, b2, beta=beta, alpha=alpha)
    close(torch.addbmm(s.to(DEV), b1.to(DEV), b2.to(DEV), beta=beta, alpha=alpha), ref, dtype, 36)
    inplace = s.to(DEV)
    inplace.addbmm_(b1.to(DEV), b2.to(DEV), beta=beta, alpha=alpha)
    close(inplace, ref, dtype, 36)
    out = torch.empty(7, 5, dtype=dtype, device=DEV).t()
    torch.addbmm(s.to(DEV), b1.to(DEV), b2.to(DEV), beta=beta, alpha=alpha, out=out)
    close(out, ref, dtype, 36)
    none = torch.addbmm(s.to(DEV), b1[:0].to(DEV), b2[:0].to(DEV), beta=beta, alpha=alpha)
    close(none, torch.addbmm(s, b1[:0], b2[:0], beta=beta, alpha=alpha), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "sa,sb",
    [
        ((13,), (13,)),
        ((6, 13), (13,)),
        ((13,), (13, 4)),
        ((2, 6, 13), (13, 4)),
        ((2, 6, 13), (2, 13, 4)),
        ((3, 1, 6, 13), (2, 13, 4)),
        ((1, 6, 13), (3, 13, 4)),
    ],
)
def test_matmul_paths(dtype, sa, sb):
    torch.manual_seed(7)
    a, b = rand(*sa, dtype=dtype), rand(*sb, dtype=dtype)
    out = torch.matmul(a.to(DEV), b.to(DEV))
    assert out.shape == torch.matmul(a, b).shape
    close(out, torch.matmul(a, b), dtype, 13)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 16), (2, 7, 16), (3, 1, 4, 16), (0, 16)])
def test_linear(dtype, shape):
    torch.manual_seed(8)
    x, w, bias = rand(*shape, dtype=dtype), rand(24, 16, dtype=dtype), rand(24, dtype=dtype)
    close(F.linear(x.to(DEV), w.to(DEV), bias.to(DEV)), F.linear(x, w, bias), dtype, 16)
    close(F.linear(x.to(DEV), w.to(DEV)), F.linear(x, w), dtype, 16)
    wt = w.t().contiguous()  # a transposed weight (a view with stride 1 along out_features)
    close(F.linear(x.to(DEV), wt.to(DEV).t(), bias.to(DEV)), F.linear(x, w, bias), dtype, 16)
    xt = x.transpose(-1, 0) if x.dim() > 1 else x  # a non-contiguous input
    close(F.linear(xt.to(DEV).transpose(-1, 0), w.to(DEV)), F.linear(x, w), dtype, 16)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_linear_and_matmul_backward(dtype):
    torch.manual_seed(9)
    x, w = rand(6, 16, dtype=dtype), rand(24, 16, dtype=dtype)
    grads = []
    for dev in ("cpu", DEV):
        xi, wi = x.to(dev).requires_grad_(), w.to(dev).requires_grad_()
        y = F.linear(xi, wi)
        g = torch.linspace(-1, 1, y.numel()).reshape(y.shape).to(dtype).to(dev)
        (gx, gw) = torch.autograd.grad(y, (xi, wi), g)
        grads.append((gx, gw))
    close(grads[1][0], grads[0][0], dtype, 24)
    close(grads[1][1], grads[0][1], dtype, 6)
    a, b = rand(3, 5, 8, dtype=dtype), rand(3, 8, 4, dtype=dtype)
    res = []
    for dev in ("cpu", DEV):
        ai, bi = a.to(dev).requires_grad_(), b.to(dev).requires_grad_()
        y = ai @ bi
        res.append(torch.autograd.grad(y, (ai, bi), torch.ones_like(y)))
    close(res[1][0], res[0][0], dtype, 4)
    close(res[1][1], res[0][1], dtype, 5)


@pytest.mark.parametrize(
    "eq,shapes",
    [
        ("ij,jk->ik", [(5, 7), (7, 3)]),
        ("bij,bjk->bik", [(2, 5, 7), (2, 7, 3)]),
        ("bhqd,bhkd->bhqk", [(2, 3, 5, 8), (2, 3, 6, 8)]),
    ],
)
def test_einsum(eq, shapes):
    torch.manual_seed(10)
    ops = [torch.randn(*s) for s in shapes]
    close(torch.einsum(eq, *[o.to(DEV) for o in ops]), torch.einsum(eq, *ops), torch.float32, 8)


@pytest.mark.allow_fallback("integer and float64 products run on the CPU fallback (torch has integer gemm on CPU only)")
def test_integer_and_double_products_run_on_the_cpu_fallback():
    infinicore_torch.reset_fallback_stats()
    a = torch.randint(-5, 5, (4, 6))
    b = torch.randint(-5, 5, (6, 3))
    assert torch.equal(torch.mm(a.to(DEV), b.to(DEV)).cpu(), a @ b)
    d = torch.randn(4, 6, dtype=torch.float64)
    torch.testing.assert_close(torch.mm(d.to(DEV), d.t().to(DEV)).cpu(), d @ d.t())
    assert infinicore_torch.fallback_stats().get("aten::mm", 0) == 2


def test_float_products_are_native():
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    torch.mm(a.to(DEV), b.to(DEV)).cpu()
    torch.matmul(a.to(DEV), b.to(DEV)).cpu()
    assert infinicore_torch.fallback_stats() == {}


def test_bad_input_raises_and_leaves_inputs():
    a, b = torch.randn(2, 3), torch.randn(4, 5)
    ia, ib = a.to(DEV), b.to(DEV)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        torch.mm(ia, ib)
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        torch.dot(ia, ia)
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype"):
        torch.dot(ia[0], ia[0].half())
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.mm(ia, ib[:3].half())
    with pytest.raises(RuntimeError, match="batch1 and batch2 must have same number of batches"):
        torch.addbmm(torch.zeros(2, 5, device=DEV), torch.zeros(2, 2, 3, device=DEV), torch.zeros(3, 3, 5, device=DEV))
    with pytest.raises(RuntimeError, match="same device"):
        torch.mm(ia, b[:3])
    assert torch.equal(ia.cpu(), a) and torch.equal(ib.cpu(), b)
