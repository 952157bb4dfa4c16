"""Element-wise aten ops on the infini device (the pointwise family) against torch on the CPU, with the layouts an
accelerator's kernels branch on: contiguous operands (vectorized), broadcast rows / columns / scalars, transposed and
misaligned views (the strided and scalar paths), strided outputs, odd sizes, mixed dtypes, 0-size and 0-d tensors.
Every test runs with INFINI_FALLBACK=error: a CPU fallback would fail it. The largest cases (grids past 65535 blocks)
run where the infini device is an accelerator."""

import pytest
import torch

import infinicore_torch

BACKEND = torch.infini.backend()
accel_only = pytest.mark.skipif(BACKEND == "cpu", reason="sizes for an accelerator's grids; slow on the cpu backend")

FLOATS = [torch.float32, torch.bfloat16, torch.float16, torch.float64]
INTS = [torch.int32, torch.int64, torch.int8, torch.uint8, torch.int16]


@pytest.fixture(autouse=True)
def _native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def rand(shape, dtype, lo=-3.0, hi=3.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) < 0.5
    lo_i, hi_i = (1, 100) if dtype == torch.uint8 else (-60, 60)
    return torch.randint(lo_i, hi_i, shape, generator=g, dtype=dtype)


def dev(t):
    return t.to("infini")


def check(actual, expected, **kw):
    assert actual.device.type == "infini"
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True, **kw)


# (cpu operand, same view on the device) pairs for the layouts
def layout_pair(layout, dtype, seed):
    if layout == "contiguous":
        base, view = rand((37, 1023), dtype, seed=seed), lambda t: t
    elif layout == "odd":
        base, view = rand((7, 1, 13), dtype, seed=seed), lambda t: t
    elif layout == "transposed":
        base, view = rand((1023, 37), dtype, seed=seed), lambda t: t.t()
    elif layout == "unaligned":
        base, view = rand((37, 1025), dtype, seed=seed), lambda t: t[:, 1 + seed % 2 : 1024 + seed % 2]
    elif layout == "row":
        base, view = rand((1023,), dtype, seed=seed), lambda t: t
    elif layout == "col":
        base, view = rand((37, 1), dtype, seed=seed), lambda t: t
    else:  # "0-d"
        base, view = rand((), dtype, seed=seed), lambda t: t
    return view(base), view(dev(base))


LAYOUTS = [
    ("contiguous", "contiguous"),
    ("odd", "odd"),
    ("transposed", "transposed"),
    ("unaligned", "unaligned"),
    ("contiguous", "row"),
    ("contiguous", "col"),
    ("contiguous", "0-d"),
    ("row", "col"),
    ("transposed", "row"),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda p: f"{p[0]}-{p[1]}")
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_float_layouts(dtype, layout, op):
    a, da = layout_pair(layout[0], dtype, 1)
    b, db = layout_pair(layout[1], dtype, 2)
    if op == "div":
        b, db = b.abs() + 0.5, db.abs() + 0.5
    fn = getattr(torch, op)
    check(fn(da, db), fn(a, b))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_binary_dtypes_scalars_and_forms(dtype):
    a, b = rand((33, 65), dtype, seed=3), rand((33, 65), dtype, seed=4)
    da, db = dev(a), dev(b)
    check(da + db, a + b)
    check(da * db, a * b)
    check(da - 3, a - 3)
    check(2 * da, 2 * a)
    check(torch.add(da, db, alpha=2), torch.add(a, b, alpha=2))
    if dtype.is_floating_point:
        check(da * 0.3, a * 0.3)
        check(da / db, a / b)
    out = dev(torch.zeros(65, 33, dtype=dtype)).t()  # a transposed out=
    torch.mul(da, db, out=out)
    check(out, a * b)
    x = da.clone()
    x.add_(db)
    check(x, a + b)


@pytest.mark.parametrize(
    "pair",
    [
        (torch.bfloat16, torch.float32),
        (torch.int32, torch.float32),
        (torch.int64, torch.bool),
        (torch.int8, torch.uint8),
        (torch.float16, torch.float64),
        (torch.bool, torch.float16),
    ],
)
def test_mixed_dtypes(pair):
    a, b = rand((17, 129), pair[0], seed=5), rand((129,), pair[1], seed=6)
    check(dev(a) + dev(b), a + b)
    check(dev(a) * dev(b), a * b)
    check(torch.eq(dev(a), dev(b)), torch.eq(a, b))


UNARY = [
    "exp",
    "log",
    "sigmoid",
    "tanh",
    "erf",
    "sqrt",
    "rsqrt",
    "abs",
    "neg",
    "sin",
    "floor",
    "expm1",
    "log1p",
    "reciprocal",
    "relu",
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("op", UNARY)
def test_unary(dtype, op):
    lo = 0.05 if op in ("log", "sqrt", "rsqrt") else -4.0
    x = rand((9, 1031), dtype, lo=lo, hi=4.0, seed=7)
    fn = getattr(torch, op)
    tol = {} if dtype == torch.bfloat16 else {"atol": 1e-5, "rtol": 1e-5}
    check(fn(dev(x)), fn(x), **tol)
    check(fn(dev(x).t()), fn(x.t()), **tol)


def test_activations_and_nan():
    x = rand((5, 777), torch.float32, seed=8)
    x[0, :3] = torch.tensor([float("nan"), float("inf"), -float("inf")])
    dx = dev(x)
    F = torch.nn.functional
    fns = {
        "silu": F.silu,
        "gelu": F.gelu,
        "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
        "relu": F.relu,
        "sigmoid": torch.sigmoid,
        "leaky_relu": lambda t: F.leaky_relu(t, 0.2),
        "elu": F.elu,
        "softplus": F.softplus,
        "hardsigmoid": F.hardsigmoid,
        "isinf": torch.isinf,
        "nan_to_num": torch.nan_to_num,
    }
    for name, fn in fns.items():
        if name == "gelu":  # torch's CPU kernel gives NaN for gelu(+inf); the families give the limit, +inf
            check(fn(dx[:, 3:]), fn(x[:, 3:]), atol=1e-5, rtol=1e-5, msg=name)
            continue
        check(fn(dx), fn(x), atol=1e-5, rtol=1e-5, msg=name)
    y = rand((777,), torch.float32, seed=9)
    y[5] = float("nan")
    for fn in [torch.maximum, torch.minimum, torch.fmax, torch.fmin]:
        check(fn(dx, dev(y)), fn(x, y))


def test_where_clamp_lerp_addcmul_masked_fill():
    c = rand((6, 300), torch.bool, seed=10)
    x, y = rand((6, 300), torch.bfloat16, seed=11), rand((300,), torch.float32, seed=12)
    dc, dx, dy = dev(c), dev(x), dev(y)
    check(torch.where(dc, dx, dy), torch.where(c, x, y))
    check(dx.clamp(-1, 0.5), x.clamp(-1, 0.5))
    check(torch.clamp(dx, min=dev(y.to(torch.bfloat16))), torch.clamp(x, min=y.to(torch.bfloat16)))
    xf = x.float()
    check(torch.lerp(dev(xf), dy.expand(6, 300), 0.25), torch.lerp(xf, y.expand(6, 300), 0.25))
    check(torch.addcmul(dev(xf), dev(xf), dy, value=0.5), torch.addcmul(xf, xf, y, value=0.5))
    m = dx.clone()
    m.masked_fill_(dc, 7.0)
    check(m, x.masked_fill(c, 7.0))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8])
def test_integer_ops(dtype):
    a, b = rand((11, 257), dtype, seed=13), rand((11, 257), dtype, seed=14)
    b[b == 0] = 7
    da, db = dev(a), dev(b)
    check(torch.div(da, db, rounding_mode="floor"), torch.div(a, b, rounding_mode="floor"))
    check(torch.remainder(da, db), torch.remainder(a, b))
    check(da & db, a & b)
    check(da | db, a | b)
    check(da ^ db, a ^ b)
    check(~da, ~a)
    check(da < db, a < b)
    check(da / db, a / b)


def test_comparisons_and_logical():
    a, b = rand((40, 50), torch.float32, seed=15), rand((40, 50), torch.float32, seed=16)
    a[0, 0] = float("nan")
    da, db = dev(a), dev(b)
    for fn in [
        torch.eq,
        torch.ne,
        torch.lt,
        torch.le,
        torch.gt,
        torch.ge,
        torch.logical_and,
        torch.logical_or,
        torch.logical_xor,
    ]:
        check(fn(da, db), fn(a, b))
    check(torch.logical_not(da), torch.logical_not(a))


def test_zero_size_and_0d():
    check(dev(torch.zeros(0, 5)) + dev(torch.ones(5)), torch.zeros(0, 5) + torch.ones(5))
    check(dev(torch.tensor(2.5)) * dev(torch.tensor(-2.0)), torch.tensor(-5.0))
    check(dev(torch.tensor(3, dtype=torch.int64)) + 4, torch.tensor(7))


def test_bad_input_leaves_operands():
    a, b = rand((4, 5), torch.float32, seed=17), rand((4, 6), torch.float32, seed=18)
    da, db = dev(a), dev(b)
    with pytest.raises(RuntimeError, match="must match the size"):
        da.add_(db)
    check(da, a)
    i = rand((4, 5), torch.int64, seed=19)
    di = dev(i)
    with pytest.raises(RuntimeError, match="can't be cast"):
        di.add_(da)  # torch's meta: a float result cannot go into an integer tensor in place
    check(di, i)


@accel_only
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_large(dtype):
    n = 65536 * 256 * 2 + 7  # past 65535 blocks, with a tail past the last 16-byte piece
    a, b = rand((n,), dtype, seed=20), rand((n,), dtype, seed=21)
    check(dev(a) * dev(b), a * b)
    x, r, c = rand((4096, 4096), dtype, seed=22), rand((4096,), dtype, seed=23), rand((4096, 1), dtype, seed=24)
    dx = dev(x)
    check(dx + dev(r), x + r)
    check(dx + dev(c), x + c)
    check(dx + 2.5, x + 2.5)
    check(dx[:, 1:] * dx[:, :-1], x[:, 1:] * x[:, :-1])
