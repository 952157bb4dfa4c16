"""gemm and linear against torch.matmul / F.linear in float64 on the CPU."""

import pytest
import torch
import torch.nn.functional as F
from _devices import OP_DEVICES as DEVICES  # noqa: E402
from _devices import grad_inputs, skip_cuda_backward
from torch.library import opcheck

import infinicore_torch  # noqa: F401
from infinicore_torch import nn as inn
from infinicore_torch import ops

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
# relative to sqrt(K): each output sums K products rounded to the input dtype's precision
TOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}
I = torch.ops.infini


def _cpu_blas():
    import json
    import os

    info = os.path.join(infinicore_torch._infini.LIB_DIR, "build_info.json")
    return json.load(open(info)).get("cpu_blas", "") if os.path.exists(info) else ""


pytestmark = pytest.mark.skipif(
    not _cpu_blas().startswith("OpenBLAS"),
    reason="the cpu backend was built without OpenBLAS (pip install scipy-openblas32)",
)


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


def check(out, ref64, dtype, k):
    tol = TOL[dtype] * max(1.0, k**0.5 / 8)
    torch.testing.assert_close(out.cpu().double(), ref64.to(dtype).double(), rtol=tol, atol=tol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
# (96, 4160, 300) and (48, 2048, 96): on AMX, the k-blocked schedule of a row-major B (three k blocks,
# the last partial; a partial panel and group; 16-row remainders)
# (3, 129, 48), (5, 300, 37), (7, 769, 83), (16, 64, 5125): few rows and a row-major B (decode; on AVX2 in
# groups of 4 rows: 3 = one group with a zero row, 5 = a full group and one of 1)
@pytest.mark.parametrize(
    "m, k, n",
    [
        (1, 1, 1),
        (3, 129, 48),
        (5, 300, 37),
        (7, 769, 83),
        (83, 33, 129),
        (1, 4096, 16),
        (16, 64, 5125),
        (96, 4160, 300),
        (48, 2048, 96),
    ],
)
def test_gemm_2d(device, dtype, m, k, n):
    a, b = torch.randn(m, k).to(dtype), torch.randn(k, n).to(dtype)
    ref = a.double() @ b.double()
    check(ops.gemm(a.to(device), b.to(device)), ref, dtype, k)
    # transposed views are read in place; alpha, beta and a broadcast c
    at, bt = a.t().contiguous().t(), b.t().contiguous().t()
    c = torch.randn(n).to(dtype)
    out = ops.gemm(at.to(device), bt.to(device), c.to(device), 0.5, 2.0)
    check(out, 0.5 * ref + 2.0 * c.double(), dtype, k)


# 1-4 rows (decode). On CUDA a column-major b (linear's weight) takes the few-rows dot-product kernel with 1
# row, and with 2-4 in float32; the other cases here cuBLASLt (the row-major kernel: the test below).
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", [1, 2, 3, 4])
@pytest.mark.parametrize("k, n", [(4096, 256), (1000, 1040), (64, 8), (200, 12)])
def test_gemm_few_rows(device, dtype, m, k, n):
    a, b, c = torch.randn(m, k).to(dtype), torch.randn(k, n).to(dtype), torch.randn(m, n).to(dtype)
    ref = a.double() @ b.double()
    bt = b.t().contiguous().t()  # k contiguous
    for w in (b, bt):
        check(ops.gemm(a.to(device), w.to(device)), ref, dtype, k)
        check(ops.gemm(a.to(device), w.to(device), c.to(device), 0.5, -1.5), 0.5 * ref - 1.5 * c.double(), dtype, k)
    # batches of a against one b (batch stride 0) and against their own b
    a3, b3 = torch.randn(3, m, k).to(dtype), torch.randn(3, k, n).to(dtype)
    for w in (b, bt):
        check(ops.gemm(a3.to(device), w.to(device).expand(3, k, n)), a3.double() @ b.double(), dtype, k)
    check(ops.gemm(a3.to(device), b3.to(device)), a3.double() @ b3.double(), dtype, k)
    check(
        ops.gemm(a3.to(device), b3.transpose(1, 2).contiguous().transpose(1, 2).to(device)),
        a3.double() @ b3.double(),
        dtype,
        k,
    )
    # linear: x [m, k] by weight [n, k], with a bias
    bias = torch.randn(n).to(dtype)
    check(ops.linear(a.to(device), b.t().contiguous().to(device), bias.to(device)), ref + bias.double(), dtype, k)
    # the same result every call (no atomics)
    ad, wd = a.to(device), bt.to(device)
    assert torch.equal(ops.gemm(ad, wd).cpu(), ops.gemm(ad, wd).cpu())


# Views whose data start 2 bytes (one 16-bit element) past a 16-byte boundary: on CUDA the same plan as the aligned
# call (the few-rows kernel there) must take cuBLASLt at launch, with its algorithm for unaligned pointers.
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_gemm_few_rows_unaligned_views(device, dtype):
    m, k, n = 1, 512, 256
    a_buf, w_buf = torch.randn(m * k + 8).to(dtype), torch.randn(n * k + 8).to(dtype)
    a, w = a_buf[: m * k].view(m, k), w_buf[: n * k].view(n, k)
    a1, w1 = a_buf[1 : m * k + 1].view(m, k), w_buf[1 : n * k + 1].view(n, k)
    ad, wd = a_buf.to(device), w_buf.to(device)
    for (x, y), (xd, yd) in [
        ((a, w), (ad[: m * k].view(m, k), wd[: n * k].view(n, k))),
        ((a1, w1), (ad[1 : m * k + 1].view(m, k), wd[1 : n * k + 1].view(n, k))),
        ((a1, w), (ad[1 : m * k + 1].view(m, k), wd[: n * k].view(n, k))),
    ]:
        check(ops.gemm(xd, yd.t()), x.double() @ y.double().t(), dtype, k)
        check(ops.linear(xd, yd), x.double() @ y.double().t(), dtype, k)


# The few-rows kernel for a row-major b takes 1 row of 16-bit b from 32M elements and 2-4 rows of float32 from
# 16M (where it is faster than cuBLASLt): 4 slices of K of 1000 rows in a cluster, the last column block partial.
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype, m, k, n",
    [
        (torch.bfloat16, 1, 4000, 8392),
        (torch.float16, 1, 4000, 8392),
        (torch.float32, 2, 4000, 4200),
        (torch.float32, 3, 4000, 4200),
    ],
)
def test_gemm_few_rows_row_major_b(device, dtype, m, k, n):
    # b scaled so that the outputs are about 1 (a float32 sum of 4000 unit products is off by ~1e-4)
    a, b, c = torch.randn(m, k).to(dtype), (torch.randn(k, n) / k**0.5).to(dtype), torch.randn(m, n).to(dtype)
    ref = a.double() @ b.double()
    ad, bd = a.to(device), b.to(device)
    check(ops.gemm(ad, bd), ref, dtype, k)
    check(ops.gemm(ad, bd, c.to(device), 0.5, -1.5), 0.5 * ref - 1.5 * c.double(), dtype, k)
    a3 = torch.randn(3, m, k).to(dtype)
    check(ops.gemm(a3.to(device), bd.expand(3, k, n)), a3.double() @ b.double(), dtype, k)
    assert torch.equal(ops.gemm(ad, bd).cpu(), ops.gemm(ad, bd).cpu())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_batched_and_edges(device, dtype):
    a, b = torch.randn(3, 7, 40).to(dtype), torch.randn(3, 40, 9).to(dtype)
    check(ops.gemm(a.to(device), b.to(device)), a.double() @ b.double(), dtype, 40)
    # b's k contiguous (a transposed view per batch: the decode dot-product path) with a row-sliced a
    bt, a_rows = b.transpose(1, 2).contiguous().transpose(1, 2), torch.randn(3, 14, 40).to(dtype)[:, ::2]
    check(ops.gemm(a_rows.to(device), bt.to(device)), a_rows.double() @ b.double(), dtype, 40)
    # few rows, B row-major with 16+ columns (the decode path for row-major B), per batch
    a5, b33 = torch.randn(3, 5, 40).to(dtype), torch.randn(3, 40, 33).to(dtype)
    check(ops.gemm(a5.to(device), b33.to(device)), a5.double() @ b33.double(), dtype, 40)
    strided = torch.randn(3, 7, 80).to(dtype)[..., ::2]  # neither of the last two strides is 1: copied
    check(ops.gemm(strided.to(device), b.to(device)), strided.double() @ b.double(), dtype, 40)
    empty_k = ops.gemm(torch.randn(4, 0).to(dtype).to(device), torch.randn(0, 3).to(dtype).to(device))
    assert torch.equal(empty_k.cpu(), torch.zeros(4, 3, dtype=dtype))
    assert ops.gemm(torch.randn(0, 5).to(device), torch.randn(5, 3).to(device)).shape == (0, 3)
    c = torch.full((7, 9), float("nan")).to(dtype)
    out = ops.gemm(a[0].to(device), b[0].to(device), c.to(device), 1.0, 0.0)  # beta 0 ignores c, NaN included
    assert not torch.isnan(out.cpu()).any()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_linear(device, dtype):
    x, w, b = torch.randn(2, 7, 769).to(dtype), torch.randn(83, 769).to(dtype), torch.randn(83).to(dtype)
    check(
        ops.linear(x.to(device), w.to(device), b.to(device)), F.linear(x.double(), w.double(), b.double()), dtype, 769
    )
    check(ops.linear(x.to(device), w.to(device)), F.linear(x.double(), w.double()), dtype, 769)
    out = torch.empty(2, 7, 83, dtype=dtype, device=device)
    I.linear.out(x.to(device), w.to(device), None, out=out)
    check(out, F.linear(x.double(), w.double()), dtype, 769)


@pytest.mark.parametrize("device", DEVICES)
def test_gemm_out_aliasing_c(device):
    a, b = torch.randn(5, 6).to(device), torch.randn(6, 4).to(device)
    c = torch.randn(5, 4).to(device)
    expected = a.cpu() @ b.cpu() + 3 * c.cpu()
    I.gemm.out(a, b, c, 1.0, 3.0, out=c)  # c is read and written
    torch.testing.assert_close(c.cpu(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(device):
    skip_cuda_backward(device)
    a, b, c = torch.randn(5, 6), torch.randn(6, 4), torch.randn(4)
    x, w, bias = torch.randn(2, 3, 6), torch.randn(4, 6), torch.randn(4)

    def grads(fn, *ts):
        ts = [t.detach().clone().requires_grad_() for t in ts]
        fn(*ts).pow(2).sum().backward()
        return [t.grad.cpu() for t in ts]

    for mine, ref, inputs in [
        (lambda a, b, c: ops.gemm(a, b, c, 0.5, 2.0), lambda a, b, c: 0.5 * a @ b + 2.0 * c, (a, b, c)),
        (ops.linear, F.linear, (x, w, bias)),
    ]:
        got = grads(mine, *[t.to(device) for t in inputs])
        want = grads(ref, *inputs)
        for g, r in zip(got, want):
            torch.testing.assert_close(g, r, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device):
    checks = ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic")
    if device in ("cpu", "cuda"):
        checks = checks + ("test_autograd_registration",)
    cases = [
        (I.gemm.default, (torch.randn(5, 6), torch.randn(6, 4), torch.randn(4), 0.5, 2.0)),
        (I.gemm.default, (torch.randn(2, 5, 6), torch.randn(2, 6, 4))),
        (I.linear.default, (torch.randn(3, 6), torch.randn(4, 6), torch.randn(4))),
    ]
    for op, args in cases:
        args = tuple(
            t.to(device).requires_grad_(grad_inputs(device)) if isinstance(t, torch.Tensor) else t for t in args
        )
        result = opcheck(op, args, test_utils=checks)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)


def test_bad_input():
    with pytest.raises(RuntimeError, match=r"infini.gemm: a .* and b .* cannot be multiplied"):
        ops.gemm(torch.randn(3, 4), torch.randn(5, 6))
    with pytest.raises(RuntimeError, match="infini.gemm: b has dtype"):
        ops.gemm(torch.randn(3, 4), torch.randn(4, 2).half())
    with pytest.raises(RuntimeError, match="infini.gemm: a and b must both be 2-D or both 3-D"):
        ops.gemm(torch.randn(3, 4), torch.randn(2, 4, 2))
    with pytest.raises(RuntimeError, match=r"infini.linear: weight must be \[out_features, 6\]"):
        ops.linear(torch.randn(3, 6), torch.randn(4, 5))
    with pytest.raises(RuntimeError, match=r"infini.linear: bias must be \[4\]"):
        ops.linear(torch.randn(3, 6), torch.randn(4, 6), torch.randn(3))
    with pytest.raises(RuntimeError, match="infini.gemm: b is on"):
        ops.gemm(torch.randn(3, 4), torch.randn(4, 2, device="infini"))


def test_nn_modules_load_torch_state_dicts():
    ref = torch.nn.Linear(16, 8)
    mine = inn.Linear(16, 8)
    mine.load_state_dict(ref.state_dict())
    x = torch.randn(3, 16)
    torch.testing.assert_close(mine(x), ref(x), rtol=1e-5, atol=1e-5)
    mlp = inn.SwiGLUMLP(16, 32)
    assert set(mlp.state_dict()) == {"gate_proj.weight", "up_proj.weight", "down_proj.weight"}
    g, u, d = mlp.gate_proj.weight, mlp.up_proj.weight, mlp.down_proj.weight
    expected = F.linear(F.silu(F.linear(x, g)) * F.linear(x, u), d)
    torch.testing.assert_close(mlp(x), expected, rtol=1e-5, atol=1e-5)
    norm = inn.RMSNorm(16)
    norm.load_state_dict(torch.nn.RMSNorm(16).state_dict())
    torch.testing.assert_close(norm(x), torch.nn.RMSNorm(16, eps=1e-6)(x), rtol=1e-5, atol=1e-5)


# Rows around the bfloat16 AVX512-BF16 kernels' choices (dpbf16.cpp: 9-16 rows in one block of 16, more
# in blocks of 14, linear's weight packed 16 pairs x 16 rows at a time by transposes; up to 256 rows
# against a k-contiguous B as dot products in tiles of 4 rows x 6 columns), with odd k (a zero-padded last pair; a masked last 32 of k), n not a multiple of the 32-column
# panel nor of 6, A and B with neither dimension contiguous, a batch, and c_in. float32: with AVX-512, up to
# 128 rows against a k-contiguous B as dot products in tiles of 4 x 6 (a masked last 16 of k; past 128, BLAS
# with C's rows or columns split).
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize(
    "m, k, n",
    [
        (9, 31, 33),
        (16, 130, 70),
        (17, 65, 1),
        (29, 257, 95),
        (2, 7, 45),
        (103, 70, 13),
        (385, 33, 7),
        (513, 17, 6),
        (300, 101, 70),
        (129, 40, 200),
    ],
)
def test_gemm_bfloat16_panels_and_pairs(m, k, n, dtype):
    a, b = torch.randn(2, m, k).to(dtype), torch.randn(2, k, 2 * n).to(dtype)[:, :, ::2]  # b: strides (., 2n, 2)
    c = torch.randn(2, m, n).to(dtype)
    ref = a.double() @ b.double()
    check(ops.gemm(a, b), ref, dtype, k)
    check(ops.gemm(a, b.contiguous(), c, 1.5, -0.5), 1.5 * ref - 0.5 * c.double(), dtype, k)
    bt = b.transpose(1, 2).contiguous().transpose(1, 2)  # k contiguous (linear's weight)
    check(ops.gemm(a, bt), ref, dtype, k)
    check(ops.gemm(a, bt, c, 0.5, 2.0), 0.5 * ref + 2.0 * c.double(), dtype, k)
    ak = torch.randn(2, k, 2 * m).to(dtype)[:, :, ::2].transpose(1, 2)  # A: strides (., 2, 2m)
    check(ops.gemm(ak, bt), ak.double() @ b.double(), dtype, k)
    w = torch.randn(n, k).to(dtype)
    check(ops.linear(a[0], w), a[0].double() @ w.double().t(), dtype, k)
    if m > 8:  # the packed product's rows: schema, fake tensor, autograd registration
        for op, args in [(I.gemm.default, (a[0], b[0].contiguous(), c[0], 0.5, 2.0)), (I.linear.default, (a[0], w))]:
            result = opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_autograd_registration"))
            assert all(v == "SUCCESS" for v in result.values()), (op, result)
