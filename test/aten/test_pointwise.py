"""Element-wise aten ops on infini (the pointwise family) against torch on the CPU: every op over its dtypes,
broadcasting, wrapped numbers, mixed dtypes, views, in-place and out= forms, 0-size and 0-d tensors, bad input."""

import pytest
import torch
import torch.nn.functional as F
from aten_utils import DEV, make, same

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
ALL = FLOATS + INTS + [torch.bool]

UNARY_FLOAT = [
    torch.neg,
    torch.abs,
    torch.sign,
    torch.sqrt,
    torch.rsqrt,
    torch.exp,
    torch.exp2,
    torch.expm1,
    torch.log,
    torch.log2,
    torch.log10,
    torch.log1p,
    torch.sin,
    torch.cos,
    torch.tan,
    torch.asin,
    torch.acos,
    torch.atan,
    torch.sinh,
    torch.cosh,
    torch.tanh,
    torch.asinh,
    torch.acosh,
    torch.atanh,
    torch.sigmoid,
    torch.erf,
    torch.erfc,
    torch.erfinv,
    torch.lgamma,
    torch.digamma,
    torch.floor,
    torch.ceil,
    torch.round,
    torch.trunc,
    torch.frac,
    torch.reciprocal,
    torch.relu,
    F.silu,
    F.mish,
    F.hardsigmoid,
    torch.isnan,
    torch.isinf,
    torch.isposinf,
    torch.isneginf,
    torch.isfinite,
    torch.signbit,
    torch.logical_not,
    torch.square,
    torch.nan_to_num,
]
UNARY_INT = [torch.neg, torch.abs, torch.sign, torch.square, torch.bitwise_not, torch.logical_not, torch.relu]

BINARY_FLOAT = [
    torch.add,
    torch.sub,
    torch.mul,
    torch.div,
    torch.remainder,
    torch.fmod,
    torch.pow,
    torch.atan2,
    torch.hypot,
    torch.copysign,
    torch.xlogy,
    torch.maximum,
    torch.minimum,
    torch.fmax,
    torch.fmin,
    torch.eq,
    torch.ne,
    torch.lt,
    torch.le,
    torch.gt,
    torch.ge,
    torch.logical_and,
    torch.logical_or,
    torch.logical_xor,
    lambda a, b: torch.div(a, b, rounding_mode="floor"),
    lambda a, b: torch.div(a, b, rounding_mode="trunc"),
]
BINARY_INT = [
    torch.add,
    torch.sub,
    torch.mul,
    torch.maximum,
    torch.minimum,
    torch.eq,
    torch.lt,
    torch.ge,
    torch.bitwise_and,
    torch.bitwise_or,
    torch.bitwise_xor,
    torch.logical_and,
    torch.logical_xor,
    lambda a, b: torch.div(a, b.clamp(min=1), rounding_mode="floor"),
    lambda a, b: torch.remainder(a, b.clamp(min=1)),
    lambda a, b: torch.fmod(a, b.clamp(min=1)),
]


def name(f):
    return getattr(f, "__name__", "lambda")


def domain(f, x):
    """Inputs inside the op's domain (so NaN placement is not what is compared)."""
    if f in (torch.sqrt, torch.rsqrt, torch.log, torch.log2, torch.log10, torch.lgamma, torch.digamma):
        return x.abs() + 0.1
    if f in (torch.asin, torch.acos, torch.atanh, torch.erfinv):
        return x / 3.5
    if f == torch.acosh:
        return x.abs() + 1
    if f == torch.log1p:
        return x.abs()
    return x


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("f", UNARY_FLOAT, ids=name)
def test_unary_float(f, dtype):
    x = domain(f, make((7, 33), dtype))
    if f == torch.nan_to_num:
        x[0, :3] = torch.tensor([float("nan"), float("inf"), -float("inf")], dtype=dtype)
    kw = {}
    if f in (torch.lgamma, torch.digamma, torch.erfinv, torch.tan) and dtype in (torch.float16, torch.bfloat16):
        kw = dict(rtol=2e-2, atol=2e-2)
    if f in (torch.lgamma, torch.digamma) and dtype == torch.float32:
        kw = dict(rtol=1e-5, atol=1e-5)
    same(f(x.to(DEV)), f(x), **kw)


@pytest.mark.parametrize("dtype", INTS + [torch.bool])
@pytest.mark.parametrize("f", UNARY_INT, ids=name)
def test_unary_int(f, dtype):
    if dtype == torch.bool and f in (torch.neg, torch.abs, torch.sign, torch.square, torch.relu):
        pytest.skip("torch rejects or has no kernel for bool here")
    if dtype == torch.uint8 and f == torch.neg:
        pytest.skip("torch's uint8 negation wraps as ours does; checked in test_unsigned_wraps")
    x = make((5, 9), dtype)
    same(f(x.to(DEV)), f(x))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("f", BINARY_FLOAT, ids=name)
def test_binary_float(f, dtype):
    a, b = make((6, 1, 5), dtype, seed=1), make((4, 5), dtype, seed=2)
    if f in (torch.pow,):
        a = a.abs() + 0.5
    if f in (torch.xlogy,):
        b = b.abs() + 0.1
    kw = {}
    if dtype in (torch.float16, torch.bfloat16) and name(f) == "lambda":
        kw = dict(rtol=0, atol=1.0)  # a quotient on either side of an integer in 16-bit
    same(f(a.to(DEV), b.to(DEV)), f(a, b), **kw)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("f", BINARY_INT, ids=name)
def test_binary_int(f, dtype):
    a, b = make((6, 1, 5), dtype, seed=1), make((4, 5), dtype, seed=2)
    same(f(a.to(DEV), b.to(DEV)), f(a, b))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8])
def test_shifts(dtype):
    a = make((20,), dtype)
    s = torch.arange(20, dtype=dtype) % 9
    same(a.to(DEV) << s.to(DEV), a << s)
    same(a.to(DEV) >> s.to(DEV), a >> s)


def test_unsigned_wraps():
    a = torch.tensor([0, 1, 200, 255], dtype=torch.uint8)
    b = torch.tensor([1, 2, 100, 255], dtype=torch.uint8)
    same(a.to(DEV) - b.to(DEV), a - b)
    same(a.to(DEV) + b.to(DEV), a + b)
    same(a.to(DEV) * b.to(DEV), a * b)
    same(-a.to(DEV), -a)


def test_wrapped_numbers_and_alpha():
    x = make((3, 4), torch.float32)
    xi = x.to(DEV)
    same(xi + 2, x + 2)
    same(2.5 - xi, 2.5 - x)
    same(xi * 3, x * 3)
    same(xi / 4, x / 4)
    same(torch.add(xi, xi, alpha=-0.5), torch.add(x, x, alpha=-0.5))
    same(torch.sub(xi, 1, alpha=3), torch.sub(x, 1, alpha=3))
    same(xi**2, x**2)
    same(xi.abs() ** 0.5, x.abs() ** 0.5)
    same(2**xi, 2**x)
    i = make((3, 4), torch.int32)
    same(i.to(DEV) * 2.5, i * 2.5)  # promotes to float
    same(i.to(DEV) // 3, i // 3)
    same(i.to(DEV) / 3, i / 3)  # true division promotes
    same(i.to(DEV) ** 2, i**2)


def test_type_promotion():
    a = make((4, 6), torch.bfloat16)
    b = make((4, 6), torch.float32, seed=3)
    c = make((4, 6), torch.int64, seed=4)
    same(a.to(DEV) + b.to(DEV), a + b)
    same(a.to(DEV) * c.to(DEV), a * c)
    same(c.to(DEV) + 1.5, c + 1.5)
    same((b.to(DEV) > 0) + c.to(DEV), (b > 0) + c)
    same(torch.where(b.to(DEV) > 0, a.to(DEV), c.to(DEV)), torch.where(b > 0, a, c))


def test_views_in_place_and_out():
    x = make((8, 6), torch.float32)
    xi = x.to(DEV)
    same(xi.t() * 2, x.t() * 2)
    same(xi[::2, 1::3].exp(), x[::2, 1::3].exp())
    same(xi.expand(3, 8, 6) + xi, x.expand(3, 8, 6) + x)
    y, yi = x.clone(), xi.clone()
    y[:, 2:4].mul_(3)
    yi[:, 2:4].mul_(3)
    same(yi, y)
    y.t().add_(1)
    yi.t().add_(1)
    same(yi, y)
    out = torch.empty(0, device=DEV)
    torch.mul(xi, xi, out=out)
    same(out, x * x)
    out_t = torch.empty(6, 8, device=DEV).t()  # a non-contiguous out keeps its strides
    torch.add(xi, 1, out=out_t)
    same(out_t, x + 1)
    assert out_t.stride() == (1, 8)


@pytest.mark.parametrize("shape", [(0,), (0, 5), (3, 0, 2), ()])
def test_empty_and_zero_dim(shape):
    x = make(shape, torch.float32)
    same(x.to(DEV) * 2 + 1, x * 2 + 1)
    same(torch.sigmoid(x.to(DEV)), torch.sigmoid(x))


def test_activations_and_their_backward():
    x = make((9, 16), torch.float32)
    for f in (
        F.relu,
        F.gelu,
        lambda t: F.gelu(t, approximate="tanh"),
        F.silu,
        torch.tanh,
        torch.sigmoid,
        lambda t: F.leaky_relu(t, 0.2),
        F.elu,
        F.softplus,
        F.hardsigmoid,
        F.hardtanh,
        F.mish,
        F.hardswish,
        lambda t: F.threshold(t, 0.3, -1.0),
    ):
        xc = x.clone().requires_grad_()
        xi = x.to(DEV).requires_grad_()
        yc, yi = f(xc), f(xi)
        same(yi.detach(), yc.detach())
        g = make(yc.shape, torch.float32, seed=5)
        yc.backward(g)
        yi.backward(g.to(DEV))
        same(xi.grad, xc.grad)


def test_clamp_forms():
    x = make((6, 7), torch.float32)
    x[0, 0] = float("nan")
    lo, hi = make((7,), torch.float32, -1, 0, seed=2), make((6, 1), torch.float32, 0, 1, seed=3)
    xi = x.to(DEV)
    same(xi.clamp(-1, 1), x.clamp(-1, 1))
    same(xi.clamp(min=0.5), x.clamp(min=0.5))
    same(xi.clamp(max=-0.5), x.clamp(max=-0.5))
    same(xi.clamp(lo.to(DEV), hi.to(DEV)), x.clamp(lo, hi))
    same(xi.clamp(min=lo.to(DEV)), x.clamp(min=lo))
    same(xi.clamp(max=hi.to(DEV)), x.clamp(max=hi))
    # a NaN bound makes every element NaN (torch's documented rule; the CPU kernel of torch before 2.12 ignores it)
    same(xi.clamp(min=float("nan")), torch.full_like(x, float("nan")))
    i = make((4, 4), torch.int64)
    same(i.to(DEV).clamp(-10, 10), i.clamp(-10, 10))


def test_ternary():
    a, b, c = (make((5, 8), torch.float32, seed=s) for s in range(3))
    ai, bi, ci = a.to(DEV), b.to(DEV), c.to(DEV)
    same(torch.lerp(ai, bi, 0.3), torch.lerp(a, b, 0.3))
    same(torch.lerp(ai, bi, 0.8), torch.lerp(a, b, 0.8))
    same(torch.lerp(ai, bi, ci.sigmoid()), torch.lerp(a, b, c.sigmoid()))
    same(torch.addcmul(ai, bi, ci, value=0.5), torch.addcmul(a, b, c, value=0.5))
    same(torch.addcdiv(ai, bi, ci.abs() + 1, value=-2), torch.addcdiv(a, b, c.abs() + 1, value=-2))
    m = a > 0
    same(torch.where(m.to(DEV), ai, 0.0), torch.where(m, a, 0.0))
    same(ai.masked_fill(m.to(DEV), -1e9), a.masked_fill(m, -1e9))
    same(ai.masked_fill(m.to(DEV), torch.tensor(2.0, device=DEV)), a.masked_fill(m, 2.0))
    same(ai.masked_fill(m[0].to(DEV), 7), a.masked_fill(m[0], 7))  # the mask broadcasts


def test_integer_division_by_zero_does_not_crash():
    a = torch.tensor([5, -5, 0], dtype=torch.int32, device=DEV)
    z = torch.zeros(3, dtype=torch.int32, device=DEV)
    torch.div(a, z, rounding_mode="floor").cpu()  # torch on the CPU raises; the device gives a value, no trap
    torch.remainder(a, z).cpu()


def test_bad_input_names_the_op_and_leaves_inputs():
    a = torch.ones(3, 4, device=DEV)
    b = torch.ones(5, device=DEV)
    with pytest.raises(RuntimeError, match="size of tensor a .4. must match the size of tensor b .5."):
        a + b
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.ones(3, dtype=torch.long, device=DEV).add_(torch.ones(3, device=DEV) * 0.5)
    i = torch.ones(3, dtype=torch.long, device=DEV)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        i.pow(-1)
    assert torch.equal(a.cpu(), torch.ones(3, 4)) and torch.equal(i.cpu(), torch.ones(3, dtype=torch.long))


def test_large_contiguous_matches():
    x = make((1 << 16) + 7, torch.bfloat16)
    y = make((1 << 16) + 7, torch.bfloat16, seed=9)
    same(x.to(DEV) * y.to(DEV) + x.to(DEV), x * y + x)
    same(torch.exp(x.to(DEV).float()), torch.exp(x.float()))
