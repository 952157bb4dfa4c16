"""The generic kernel families (families.h) through the C ABI, on the infini device's backend, against torch on the
CPU: the contract every backend implements, independent of the aten glue. A family the backend does not provide
(NOT_IMPLEMENTED) skips. Operands are infini tensors (their device memory); each call is bracketed by device
synchronizations, so the tests need no stream of their own. Cases that only matter for an accelerator's kernels
(grids past 65535 blocks, the 16-byte vector paths at full size) run where the backend is not the cpu one."""

from __future__ import annotations

import ctypes
import math
import os
import re
from ctypes import byref, c_double, c_int32, c_int64, c_uint64, c_void_p

import numpy as np
import pytest
import torch
from conftest import ROOT, L

import infinicore_torch  # noqa: F401  (registers the infini device)
from infinicore_torch import _infini as I

# ---- the ABI: structs of families.h and its enums, read from the header ----

MAX_DIMS, MAX_OPS, MAX_IDX = 12, 8, 6


def _enums() -> dict[str, int]:
    text = open(os.path.join(ROOT, "backends", "include", "infini", "families.h")).read()
    values = {}
    for body in re.findall(r"typedef enum \{(.*?)\}", text, re.S):
        nxt = 0
        for name, value in re.findall(
            r"(INFINIOP_\w+)\s*(?:=\s*(\d+))?\s*,", re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        ):
            nxt = int(value) if value else nxt
            values[name] = nxt
            nxt += 1
    return values


E = _enums()


def op(name: str) -> int:
    return E["INFINIOP_" + name]


class Iter(ctypes.Structure):
    _fields_ = [
        ("ndim", c_int32),
        ("noperands", c_int32),
        ("shape", c_int64 * MAX_DIMS),
        ("data", c_void_p * MAX_OPS),
        ("dtype", c_int32 * MAX_OPS),
        ("strides", (c_int64 * MAX_DIMS) * MAX_OPS),
    ]


class Tensor(ctypes.Structure):
    _fields_ = [
        ("ndim", c_int32),
        ("dtype", c_int32),
        ("data", c_void_p),
        ("shape", c_int64 * MAX_DIMS),
        ("strides", c_int64 * MAX_DIMS),
    ]


class PointwiseArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("compute", c_int32),
        ("noutputs", c_int32),
        ("flags", c_int32),
        ("f", c_double * 4),
        ("i", c_int64 * 4),
        ("wd", c_double),
        ("cf", c_double * MAX_OPS),
        ("ci", c_int64 * MAX_OPS),
        ("iter", Iter),
    ]


class ReduceArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("compute", c_int32),
        ("noutputs", c_int32),
        ("flags", c_int32),
        ("f", c_double * 2),
        ("iter", Iter),
    ]


class ScanArgs(ctypes.Structure):
    _fields_ = [("op", c_int32), ("compute", c_int32), ("dim", c_int32), ("noutputs", c_int32), ("iter", Iter)]


class SortArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("dim", c_int32),
        ("descending", c_int32),
        ("stable", c_int32),
        ("sorted", c_int32),
        ("k", c_int64),
        ("values", Tensor),
        ("indices", Tensor),
        ("in_", Tensor),
    ]


class IndexArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("nindices", c_int32),
        ("wrap_negative", c_int32),
        ("index_size", c_int64 * MAX_IDX),
        ("index_stride", c_int64 * MAX_IDX),
        ("iter", Iter),
    ]


class NonzeroArgs(ctypes.Structure):
    _fields_ = [("in_", Tensor), ("out", c_void_p), ("count", c_int64)]


class RandomArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("reserved", c_int32),
        ("seed", c_uint64),
        ("offset", c_uint64),
        ("f", c_double * 2),
        ("i", c_int64 * 2),
        ("iter", Iter),
    ]


_FAMILIES = {
    "Pointwise": PointwiseArgs,
    "Reduce": ReduceArgs,
    "Scan": ScanArgs,
    "Sort": SortArgs,
    "Index": IndexArgs,
    "Nonzero": NonzeroArgs,
    "Random": RandomArgs,
}
for _name, _struct in _FAMILIES.items():
    _fn = getattr(L, "infiniop" + _name)
    _fn.restype = ctypes.c_int
    _fn.argtypes = [c_void_p, ctypes.POINTER(_struct), c_void_p]

DT = {
    torch.float32: 13,
    torch.float16: 12,
    torch.bfloat16: 19,
    torch.float64: 14,
    torch.int8: 3,
    torch.int16: 4,
    torch.int32: 5,
    torch.int64: 6,
    torch.uint8: 7,
    torch.bool: 2,
}
F32, F64, I64 = 13, 14, 6
FLOATS = (torch.float32, torch.float16, torch.bfloat16)
BACKEND = torch.infini.backend() if hasattr(torch, "infini") else "cpu"
DEVICE_TYPE = {"cpu": I.DEVICE_CPU, "nvidia": I.DEVICE_NVIDIA}.get(BACKEND, I.DEVICE_CPU)
ACCEL = BACKEND != "cpu"
accel_only = pytest.mark.skipif(not ACCEL, reason="sizes that exercise an accelerator's grids; slow on the cpu backend")

_handle = None


def handle() -> int:
    global _handle
    I.set_device(DEVICE_TYPE, 0)
    if _handle is None:
        h = c_void_p()
        I.check(L.infiniopCreateHandle(byref(h)))
        _handle = h.value
    return _handle


def sync() -> int:
    I.set_device(DEVICE_TYPE, 0)
    return L.infinirtDeviceSynchronize()


NOT_IMPLEMENTED = 2  # INFINI_STATUS_NOT_IMPLEMENTED


def call(family: str, args, *keep) -> None:
    """Queues a family call and waits for it; skips when the backend does not provide the family. `keep`: the
    operands, alive until the call has run."""
    h = handle()
    I.check(sync())
    status = getattr(L, "infiniop" + family)(h, byref(args), None)
    if status == NOT_IMPLEMENTED:
        pytest.skip(f"the {BACKEND} backend does not provide the {family} family: {I.last_error()}")
    I.check(status)
    I.check(sync())


def dev(t: torch.Tensor) -> torch.Tensor:
    return t.to("infini")


def iter_of(*tensors: torch.Tensor) -> Iter:
    """The iteration space over tensors of one shape (iter dim 0 = the tensors' last dim); a None operand is a
    constant (data NULL)."""
    first = next(t for t in tensors if t is not None)
    it = Iter()
    it.ndim = first.dim()
    it.noperands = len(tensors)
    for d in range(first.dim()):
        it.shape[d] = first.size(first.dim() - 1 - d)
    for k, t in enumerate(tensors):
        if t is None:
            it.data[k] = None
            it.dtype[k] = F32
            continue
        assert t.shape == first.shape, (t.shape, first.shape)
        it.data[k] = t.data_ptr() or None  # (a view of 0 elements keeps its tensor's data: a reduction's output)
        it.dtype[k] = DT[t.dtype]
        for d in range(t.dim()):
            it.strides[k][d] = t.stride(t.dim() - 1 - d)
    return it


def tensor_of(t: torch.Tensor | None) -> Tensor:
    out = Tensor()
    if t is None:
        return out
    out.ndim = t.dim()
    out.dtype = DT[t.dtype]
    out.data = t.data_ptr() if t.numel() else None
    for d in range(t.dim()):
        out.shape[d] = t.size(d)
        out.strides[d] = t.stride(d)
    return out


def compute_of(dtype: torch.dtype) -> int:
    return F64 if dtype == torch.float64 else (F32 if dtype.is_floating_point else I64)


def close(actual: torch.Tensor, expected: torch.Tensor, **kw):
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True, **kw)


# ================================================================================================================
# pointwise


def pointwise(name: str, out: torch.Tensor, *ins, compute=None, f=(), i=(), consts=None) -> None:
    a = PointwiseArgs()
    a.op = op("PW_" + name)
    a.compute = compute if compute is not None else compute_of(out.dtype)
    a.noutputs = 1
    for k, v in enumerate(f):
        a.f[k] = v
    for k, v in enumerate(i):
        a.i[k] = v
    for k, v in (consts or {}).items():
        a.cf[k] = float(v)
        a.ci[k] = int(v)
    a.iter = iter_of(out, *ins)
    call("Pointwise", a, out, *ins)


def rand(shape, dtype, lo=-3.0, hi=3.0, gen=None):
    g = gen or torch.Generator().manual_seed(hash((tuple(shape), str(dtype))) & 0xFFFF)
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) < 0.5
    lo_i, hi_i = (0, 100) if dtype == torch.uint8 else (-50, 50)
    return torch.randint(lo_i, hi_i, shape, generator=g, dtype=dtype)


BIN_REF = {"ADD": lambda x, y: x + y, "SUB": lambda x, y: x - y, "MUL": lambda x, y: x * y, "DIV": lambda x, y: x / y}


def both(base: torch.Tensor, view=lambda t: t):
    """A CPU tensor's view and the same view of its copy on the device (strides and offset kept)."""
    return view(base), view(dev(base))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["ADD", "SUB", "MUL", "DIV"])
@pytest.mark.parametrize(
    "layout",
    ["contiguous", "odd", "row_bcast", "col_bcast", "scalar_tensor", "transposed", "unaligned", "strided_out", "const"],
)
def test_binary_layouts(dtype, name, layout):
    shape = (37, 1023)
    a, da = both(rand(shape, dtype))
    b, db = both(rand(shape, dtype, 0.5, 2.0))
    if layout == "odd":
        shape = (7, 1, 13)
        a, da = both(rand(shape, dtype))
        b, db = both(rand(shape, dtype, 0.5, 2.0))
    elif layout == "row_bcast":
        b, db = both(rand((1023,), dtype, 0.5, 2.0), lambda t: t.expand(shape))
    elif layout == "col_bcast":
        b, db = both(rand((37, 1), dtype, 0.5, 2.0), lambda t: t.expand(shape))
    elif layout == "scalar_tensor":
        b, db = both(rand((), dtype, 0.5, 2.0), lambda t: t.expand(shape))
    elif layout == "transposed":
        a, da = both(rand((1023, 37), dtype), lambda t: t.t())
        b, db = both(rand((1023, 37), dtype, 0.5, 2.0), lambda t: t.t())
    elif layout == "unaligned":
        a, da = both(rand((37, 1024), dtype), lambda t: t[:, 1:])
        b, db = both(rand((37, 1025), dtype, 0.5, 2.0), lambda t: t[:, 2:])
    elif layout == "const":
        b, db = torch.tensor(1.75), None
    ref = BIN_REF[name](a.float(), b.float()).to(dtype).expand(shape)
    if layout == "strided_out":
        out_base = torch.zeros(37, 2046, dtype=dtype)
        big = dev(out_base)
        out = big[:, ::2]
    else:
        out = dev(torch.zeros(shape, dtype=dtype))
    pointwise(name, out, da, db, f=(1.0,), consts={2: 1.75} if layout == "const" else None)
    close(out, ref)
    if layout == "strided_out":
        assert torch.equal(big.cpu()[:, 1::2], out_base[:, 1::2])  # the gaps are not written


@pytest.mark.parametrize("dtype", FLOATS + (torch.float64, torch.int32, torch.int64))
def test_add_alpha_and_inplace(dtype):
    x, y = rand((1000,), dtype), rand((1000,), dtype)
    dx = dev(x)
    alpha = 3 if not dtype.is_floating_point else 0.5
    pointwise("ADD", dx, dx, dev(y), f=(alpha,), i=(int(alpha),))  # in place: the output aliases input 0
    close(dx, (x.double() + alpha * y.double()).to(dtype), atol=1e-2 if dtype in FLOATS else 0, rtol=1e-2)


@pytest.mark.parametrize(
    "src,dst",
    [
        (torch.float32, torch.bfloat16),
        (torch.bfloat16, torch.float32),
        (torch.float16, torch.float64),
        (torch.float32, torch.int32),
        (torch.int64, torch.float16),
        (torch.int32, torch.int8),
        (torch.uint8, torch.int64),
        (torch.bool, torch.float32),
        (torch.float32, torch.bool),
        (torch.int64, torch.bool),
    ],
)
def test_copy_casts(src, dst):
    x = rand((33, 65), src, -100.0, 100.0)
    out = dev(torch.zeros(65, 33, dtype=dst)).t()  # a transposed output
    compute = F64 if torch.float64 in (src, dst) else (F32 if src.is_floating_point or dst.is_floating_point else I64)
    pointwise("COPY", out, dev(x), compute=compute)
    close(out, x.to(dst))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.int8, torch.bool, torch.float64])
@pytest.mark.parametrize("layout", ["contiguous", "narrow_rows", "expand", "unaligned"])
def test_copy_same_dtype(dtype, layout):
    """COPY of one dtype: the raw path (cat into a slice of a wider tensor, expand().contiguous(), odd offsets)."""
    src = rand((40, 129), dtype)
    big = torch.zeros(40, 300, dtype=dtype)
    dbig = dev(big)
    if layout == "contiguous":
        out, x, ref_slice = dev(torch.zeros(40, 129, dtype=dtype)), dev(src), None
    elif layout == "narrow_rows":
        out, x, ref_slice = dbig[:, 129:258], dev(src), slice(129, 258)
    elif layout == "expand":
        src = rand((129,), dtype)
        out, x, ref_slice = dev(torch.zeros(40, 129, dtype=dtype)), dev(src).expand(40, 129), None
    else:
        out, x, ref_slice = dbig[:, 3:132], dev(torch.cat([src[:, :1], src], 1))[:, 1:], slice(3, 132)
    pointwise("COPY", out, x, compute=compute_of(dtype))
    close(out, src.expand(40, 129))
    if ref_slice is not None:
        expect = big.clone()
        expect[:, ref_slice] = src
        close(dbig, expect)


UNARY = {
    "NEG": torch.neg,
    "ABS": torch.abs,
    "SIGN": torch.sign,
    "SQUARE": torch.square,
    "RECIPROCAL": torch.reciprocal,
    "SQRT": torch.sqrt,
    "RSQRT": torch.rsqrt,
    "EXP": torch.exp,
    "EXP2": torch.exp2,
    "EXPM1": torch.expm1,
    "LOG": torch.log,
    "LOG2": torch.log2,
    "LOG10": torch.log10,
    "LOG1P": torch.log1p,
    "SIN": torch.sin,
    "COS": torch.cos,
    "TAN": torch.tan,
    "ASIN": torch.asin,
    "ACOS": torch.acos,
    "ATAN": torch.atan,
    "SINH": torch.sinh,
    "COSH": torch.cosh,
    "TANH": torch.tanh,
    "ASINH": torch.asinh,
    "ACOSH": torch.acosh,
    "ATANH": torch.atanh,
    "SIGMOID": torch.sigmoid,
    "ERF": torch.erf,
    "ERFC": torch.erfc,
    "ERFINV": torch.erfinv,
    "LGAMMA": torch.lgamma,
    "DIGAMMA": torch.digamma,
    "FLOOR": torch.floor,
    "CEIL": torch.ceil,
    "ROUND": torch.round,
    "TRUNC": torch.trunc,
    "FRAC": torch.frac,
    "RELU": torch.relu,
    "SILU": torch.nn.functional.silu,
    "MISH": torch.nn.functional.mish,
    "HARDSIGMOID": torch.nn.functional.hardsigmoid,
    "HARDSWISH": torch.nn.functional.hardswish,
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float(dtype, name):
    lo, hi = (-0.99, 0.99) if name in ("ERFINV", "ATANH", "ASIN", "ACOS") else (-4.0, 4.0)
    if name in ("SQRT", "RSQRT", "LOG", "LOG2", "LOG10", "LGAMMA", "DIGAMMA"):
        lo, hi = 0.1, 6.0
    if name == "ACOSH":
        lo, hi = 1.0, 6.0
    x = rand((3, 517), dtype, lo, hi)
    x[0, :4] = torch.tensor([0.0, -0.0, 0.5, -2.5])
    out = dev(torch.zeros_like(x))
    pointwise(name, out, dev(x))
    ref = UNARY[name](x.double()).to(dtype)
    tol = {torch.float32: 2e-5, torch.bfloat16: 1.6e-2, torch.float64: 1e-10}[dtype]
    close(out, ref, atol=tol, rtol=tol)


def test_nan_propagation_and_predicates():
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.5, -2.0])
    for name, fn in [("RELU", torch.relu), ("ABS", torch.abs), ("NEG", torch.neg)]:
        out = dev(torch.zeros_like(x))
        pointwise(name, out, dev(x))
        close(out, fn(x))
    for name, fn in [
        ("ISNAN", torch.isnan),
        ("ISINF", torch.isinf),
        ("ISPOSINF", torch.isposinf),
        ("ISNEGINF", torch.isneginf),
        ("ISFINITE", torch.isfinite),
        ("SIGNBIT", torch.signbit),
    ]:
        out = dev(torch.zeros(x.shape, dtype=torch.bool))
        pointwise(name, out, dev(x), compute=F32)
        close(out, fn(x))
    y = torch.tensor([1.0, float("nan"), 3.0, -1.0, 0.0, float("nan"), -3.0])
    for name, fn in [
        ("MAXIMUM", torch.maximum),
        ("MINIMUM", torch.minimum),
        ("FMAX", torch.fmax),
        ("FMIN", torch.fmin),
    ]:
        out = dev(torch.zeros_like(x))
        pointwise(name, out, dev(x), dev(y))
        close(out, fn(x, y))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8, torch.int16, torch.uint8])
def test_integer_binary(dtype):
    x = rand((4, 257), dtype)
    y = rand((4, 257), dtype)
    y[y == 0] = 3
    cases = {
        "DIV_FLOOR": lambda a, b: torch.div(a, b, rounding_mode="floor"),
        "DIV_TRUNC": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
        "REMAINDER": torch.remainder,
        "FMOD": torch.fmod,
        "BITWISE_AND": torch.bitwise_and,
        "BITWISE_OR": torch.bitwise_or,
        "BITWISE_XOR": torch.bitwise_xor,
        "MUL": torch.mul,
        "MAXIMUM": torch.maximum,
    }
    for name, fn in cases.items():
        out = dev(torch.zeros_like(x))
        pointwise(name, out, dev(x), dev(y), compute=I64)
        close(out, fn(x, y), msg=name)
    for name, fn in {"EQ": torch.eq, "LT": torch.lt, "GE": torch.ge}.items():
        out = dev(torch.zeros(x.shape, dtype=torch.bool))
        pointwise(name, out, dev(x), dev(y), compute=I64)
        close(out, fn(x, y), msg=name)


def test_where_lerp_addcmul_clamp():
    c = rand((5, 300), torch.bool)
    x, y, z = rand((5, 300), torch.bfloat16), rand((300,), torch.float32), rand((5, 300), torch.float32)
    out = dev(torch.zeros(5, 300))
    pointwise("WHERE", out, dev(c), dev(x), dev(y).expand(5, 300), compute=F32)
    close(out, torch.where(c, x.float(), y))
    out = dev(torch.zeros(5, 300))
    pointwise("ADDCMUL", out, dev(z), dev(z), dev(y).expand(5, 300), f=(0.5,))
    close(out, torch.addcmul(z, z, y, value=0.5))
    out = dev(torch.zeros(5, 300))
    pointwise("LERP_SCALAR", out, dev(z), dev(y).expand(5, 300), f=(0.3,))
    close(out, torch.lerp(z, y.expand(5, 300), 0.3))
    out = dev(torch.zeros(5, 300))
    pointwise("CLAMP", out, dev(z), f=(-1.0, 0.5), i=(0, 0, 3))
    close(out, z.clamp(-1.0, 0.5))


def test_fill_and_iota():
    for dtype in (torch.float32, torch.bfloat16, torch.int64, torch.uint8, torch.bool):
        out = dev(torch.zeros(1001, dtype=dtype))
        pointwise("FILL", out, f=(7.0,), i=(7,))
        close(out, torch.full((1001,), 7, dtype=dtype))
    out = dev(torch.zeros(1001, dtype=torch.int64))
    pointwise("IOTA", out, f=(5.0, 3.0), i=(5, 3))
    close(out, torch.arange(5, 5 + 3 * 1001, 3))
    base = dev(torch.zeros(2002))
    pointwise("IOTA", base[::2], f=(0.5, 0.25), i=(0, 0))
    close(base[::2], 0.5 + 0.25 * torch.arange(1001, dtype=torch.float32))


def test_empty_and_0d():
    out = dev(torch.zeros(0, 5))
    pointwise("ADD", out, dev(torch.zeros(0, 5)), dev(torch.zeros(0, 5)), f=(1.0,))
    out = dev(torch.zeros(()))
    pointwise("MUL", out, dev(torch.tensor(3.0)), dev(torch.tensor(-2.0)))
    close(out, torch.tensor(-6.0))


@accel_only
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_binary_large(dtype):
    """Past 65535 blocks of 256 threads, in the vectorized path and with a scalar tail (an odd length)."""
    n = 65536 * 256 * 2 + 7
    a, b = rand((n,), dtype), rand((n,), dtype)
    out = dev(torch.zeros(n, dtype=dtype))
    pointwise("MUL", out, dev(a), dev(b))
    close(out, (a.float() * b.float()).to(dtype))
    rows = dev(torch.zeros(4096, 4096, dtype=dtype))
    pointwise("ADD", rows, dev(a[: 4096 * 4096].view(4096, 4096)), dev(b[:4096]).expand(4096, 4096), f=(1.0,))
    close(rows, (a[: 4096 * 4096].view(4096, 4096).float() + b[:4096].float()).to(dtype))


# ================================================================================================================
# reduce


def reduce(name: str, outs, x: torch.Tensor, dims, compute=None, f=()):
    """outs: keepdim-shaped result tensors (infini); their views expanded to x's shape have stride 0 on dims."""
    a = ReduceArgs()
    a.op = op("REDUCE_" + name)
    a.compute = compute if compute is not None else compute_of(x.dtype)
    a.noutputs = len(outs)
    for k, v in enumerate(f):
        a.f[k] = v
    a.iter = iter_of(*[o.expand(x.shape) for o in outs], x)
    call("Reduce", a, *outs, x)


def kd_shape(shape, dims):
    return tuple(1 if d in dims else s for d, s in enumerate(shape))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "shape,dims",
    [
        ((37, 1023), (1,)),
        ((1023, 37), (0,)),
        ((37, 1023), (0,)),
        ((5, 7, 9), (0, 2)),
        ((100000,), (0,)),
        ((3, 4), (0, 1)),
        ((6, 1), (1,)),
        ((2, 3), (1,)),
    ],
)
@pytest.mark.parametrize("name", ["SUM", "MEAN"])
def test_sum_mean(dtype, shape, dims, name):
    x = rand(shape, dtype)
    out = dev(torch.zeros(kd_shape(shape, dims), dtype=dtype))
    reduce(name, [out], dev(x), dims, compute=F32)
    ref = getattr(torch, name.lower())(x.double(), dims, keepdim=True).to(dtype)
    close(out, ref, atol=2e-2 if dtype != torch.float32 else 1e-4, rtol=1e-2 if dtype != torch.float32 else 1e-5)


def test_sum_layouts_noncontiguous():
    x = rand((64, 300), torch.bfloat16)
    for view, dims in [(x.t(), (1,)), (x.t(), (0,)), (x[:, 1:], (1,)), (x[::2], (0,)), (x[:, 3:], (0,))]:
        out = dev(torch.zeros(kd_shape(view.shape, dims), dtype=torch.float32))
        reduce("SUM", [out], _same_view(x, view), dims, compute=F32)
        close(out, view.double().sum(dims, keepdim=True).float(), atol=1e-2, rtol=1e-3)


def _same_view(base: torch.Tensor, view: torch.Tensor) -> torch.Tensor:
    d = dev(base)
    off = view.storage_offset() - base.storage_offset()
    return d.as_strided(view.shape, view.stride(), d.storage_offset() + off)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int32, torch.int64, torch.uint8])
@pytest.mark.parametrize("dims", [(1,), (0,), (0, 1)])
def test_max_min_arg(dtype, dims):
    x = rand((33, 130), dtype)
    if dtype.is_floating_point:
        x[3, 7] = float("nan")
        x[5, 100] = float("nan")
    x[10, :] = x[10, 0]  # ties: the first position wins
    compute = compute_of(dtype)
    flat = x if len(dims) == 1 else x.reshape(-1)
    dx = dev(x) if len(dims) == 1 else dev(flat)
    rdims = dims if len(dims) == 1 else (0,)
    for name, fn in [("MAX", torch.amax), ("MIN", torch.amin)]:
        out = dev(torch.zeros(kd_shape(flat.shape, rdims), dtype=dtype))
        reduce(name, [out], dx, rdims, compute=compute)
        close(out, fn(flat, rdims, keepdim=True))
    for name, fn in [("ARGMAX", torch.argmax), ("ARGMIN", torch.argmin)]:
        out = dev(torch.zeros(kd_shape(flat.shape, rdims), dtype=torch.int64))
        reduce(name, [out], dx, rdims, compute=compute)
        close(out, fn(flat, rdims[0], keepdim=True))
    for name, fn in [("MAX_INDEX", torch.max), ("MIN_INDEX", torch.min)]:
        vals = dev(torch.zeros(kd_shape(flat.shape, rdims), dtype=dtype))
        idx = dev(torch.zeros(kd_shape(flat.shape, rdims), dtype=torch.int64))
        reduce(name, [vals, idx], dx, rdims, compute=compute)
        rv, ri = fn(flat, rdims[0], keepdim=True)
        close(vals, rv)
        close(idx, ri)


def test_other_reductions():
    x = rand((20, 333), torch.float32)
    x[2, 5] = 0.0
    x[4, :] = 0.0
    d = dev(x)
    for dims in [(1,), (0,)]:
        kd = kd_shape(x.shape, dims)
        cases = [
            ("PROD", (), lambda t: torch.prod((t / 2 + 1).double(), dims[0], keepdim=True), lambda t: t / 2 + 1),
            ("NANSUM", (), lambda t: torch.nansum(t, dims, keepdim=True), None),
            ("LOGSUMEXP", (), lambda t: torch.logsumexp(t, dims, keepdim=True), None),
            ("NORM", (1.0,), lambda t: torch.linalg.vector_norm(t, 1, dims, keepdim=True), None),
            ("NORM", (2.0,), lambda t: torch.linalg.vector_norm(t, 2, dims, keepdim=True), None),
            ("NORM", (3.0,), lambda t: torch.linalg.vector_norm(t, 3, dims, keepdim=True), None),
            ("NORM", (math.inf,), lambda t: torch.linalg.vector_norm(t, math.inf, dims, keepdim=True), None),
            ("NORM", (-math.inf,), lambda t: torch.linalg.vector_norm(t, -math.inf, dims, keepdim=True), None),
            ("NORM", (0.0,), lambda t: torch.linalg.vector_norm(t, 0, dims, keepdim=True), None),
            ("VAR", (1.0,), lambda t: torch.var(t, dims, correction=1, keepdim=True), None),
            ("STD", (0.0,), lambda t: torch.std(t, dims, correction=0, keepdim=True), None),
        ]
        for name, f, ref, pre in cases:
            src = pre(x) if pre else x
            out = dev(torch.zeros(kd))
            reduce(name, [out], dev(src) if pre else d, dims, f=f)
            close(out, ref(x).float(), atol=1e-4, rtol=1e-4, msg=f"{name} {f} {dims}")
        var, mean = dev(torch.zeros(kd)), dev(torch.zeros(kd))
        reduce("VAR", [var, mean], d, dims, f=(1.0,))
        rv, rm = torch.var_mean(x, dims, correction=1, keepdim=True)
        close(var, rv, atol=1e-4, rtol=1e-4)
        close(mean, rm, atol=1e-5, rtol=1e-5)
        for name, fn in [("ANY", torch.any), ("ALL", torch.all)]:
            out = dev(torch.zeros(kd, dtype=torch.bool))
            reduce(name, [out], d, dims)
            close(out, fn(x != 0, dims[0], keepdim=True))
        out = dev(torch.zeros(kd, dtype=torch.int64))
        reduce("COUNT_NONZERO", [out], d, dims)
        close(out, torch.count_nonzero(x, dims[0]).view(kd))


def test_integer_sum_and_empty():
    x = rand((17, 999), torch.int32)
    out = dev(torch.zeros(17, 1, dtype=torch.int64))
    reduce("SUM", [out], dev(x), (1,), compute=I64)
    close(out, x.sum(1, keepdim=True))
    out = dev(torch.full((4, 1), 5.0))
    reduce("SUM", [out], dev(torch.zeros(4, 0)), (1,))  # an empty space queues nothing (the glue fills empties)
    close(out, torch.full((4, 1), 5.0))


@accel_only
@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1)])
def test_sum_4096(dims):
    x = rand((4096, 4096), torch.float32)
    for dtype in (torch.float32, torch.bfloat16):
        out = dev(torch.zeros(kd_shape(x.shape, dims), dtype=dtype))
        reduce("SUM", [out], dev(x.to(dtype)), dims, compute=F32)
        ref = x.to(dtype).double().sum(dims, keepdim=True)
        close(out, ref.to(dtype), atol=1e-2, rtol=1e-3 if dtype == torch.float32 else 1e-2)


# ================================================================================================================
# scan


def scan(name: str, outs, x: torch.Tensor, dim: int, compute=None):
    a = ScanArgs()
    a.op = op("SCAN_" + name)
    a.compute = compute if compute is not None else compute_of(x.dtype)
    a.dim = x.dim() - 1 - dim
    a.noutputs = len(outs)
    a.iter = iter_of(*outs, x)
    call("Scan", a, *outs, x)


@pytest.mark.parametrize(
    "shape,dim",
    [((37, 1023), 1), ((1023, 37), 0), ((5000, 3), 0), ((3, 2500), 1), ((1, 128), 1), ((7,), 0), ((4, 6, 5), 1)],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.int32])
def test_cumsum_cumprod(shape, dim, dtype):
    x = rand(shape, dtype, 0.5, 1.5) if dtype.is_floating_point else rand(shape, dtype) % 3
    out_dtype = torch.int64 if not dtype.is_floating_point else dtype
    out = dev(torch.zeros(shape, dtype=out_dtype))
    scan("CUMSUM", [out], dev(x), dim)
    close(out, torch.cumsum(x, dim, dtype=out_dtype), atol=1e-1 if dtype == torch.bfloat16 else 1e-3, rtol=1e-2)
    if shape[dim] <= 64:
        out = dev(torch.zeros(shape, dtype=out_dtype))
        scan("CUMPROD", [out], dev(x), dim)
        close(out, torch.cumprod(x, dim, dtype=out_dtype), atol=1e-3, rtol=2e-2)


@pytest.mark.parametrize("shape,dim", [((37, 1500), 1), ((1500, 37), 0), ((6000, 2), 0)])
def test_cummax_cummin_logcumsumexp(shape, dim):
    x = rand(shape, torch.float32)
    x = torch.round(x * 2) / 2  # many ties: the last position of ties wins
    x.view(-1)[7] = float("nan")
    for name, fn in [("CUMMAX", torch.cummax), ("CUMMIN", torch.cummin)]:
        vals, idx = dev(torch.zeros(shape)), dev(torch.zeros(shape, dtype=torch.int64))
        scan(name, [vals, idx], dev(x), dim)
        rv, ri = fn(x, dim)
        close(vals, rv)
        close(idx, ri)
    y = rand(shape, torch.float32)
    out = dev(torch.zeros(shape))
    scan("LOGCUMSUMEXP", [out], dev(y), dim)
    close(out, torch.logcumsumexp(y.double(), dim).float(), atol=1e-4, rtol=1e-4)


# ================================================================================================================
# sort


def sort_call(x: torch.Tensor, dim: int, descending: bool, k=None, values=True):
    L_ = x.size(dim)
    kk = L_ if k is None else k
    shape = list(x.shape)
    shape[dim] = kk
    vals = dev(torch.zeros(shape, dtype=x.dtype)) if values else None
    idx = dev(torch.full(shape, -1, dtype=torch.int64))
    dx = dev(x)
    a = SortArgs()
    a.op = op("SORT_SORT" if k is None else "SORT_TOPK")
    a.dim = dim
    a.descending = int(descending)
    a.stable = 1
    a.sorted = 1
    a.k = kk
    a.values = tensor_of(vals)
    a.indices = tensor_of(idx)
    a.in_ = tensor_of(dx)
    call("Sort", a, vals, idx, dx)
    return (vals.cpu() if values else None), idx.cpu()


@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.bfloat16, torch.float64, torch.int32, torch.int64, torch.uint8, torch.bool, torch.int8],
)
@pytest.mark.parametrize(
    "shape,dim", [((8, 1000), 1), ((1000, 8), 0), ((3, 4096), 1), ((2, 10000), 1), ((1,), 0), ((5, 3, 7), 1)]
)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable(dtype, shape, dim, descending):
    x = rand(shape, dtype)
    if dtype.is_floating_point:
        x = torch.round(x * 4) / 4  # ties
        flat = x.view(-1)
        flat[:: max(1, flat.numel() // 5)] = float("nan")
        flat[1 :: max(1, flat.numel() // 7)] = -0.0
    v, i = sort_call(x, dim, descending)
    rv, ri = torch.sort(x, dim=dim, descending=descending, stable=True)
    close(v, rv)
    assert torch.equal(i, ri)


def test_topk_and_argsort():
    g = torch.Generator().manual_seed(0)
    x = torch.randperm(32000, generator=g).float().view(1, 32000).expand(4, 32000).contiguous()
    x[1] = x[1].flip(0)
    for largest in (True, False):
        v, i = sort_call(x, 1, largest, k=50)
        rv, ri = torch.topk(x, 50, dim=1, largest=largest, sorted=True)
        close(v, rv)
        assert torch.equal(i, ri)
    _, i = sort_call(x.t().contiguous().t(), 1, False, values=False)  # argsort of a transposed layout
    assert torch.equal(i, torch.argsort(x, dim=1, stable=True))


# ================================================================================================================
# index


def index_call(name: str, dst, src, idxs, sizes, strides, iter_tensors, wrap=False):
    a = IndexArgs()
    a.op = op("INDEX_" + name)
    a.nindices = len(idxs)
    a.wrap_negative = int(wrap)
    for k in range(len(idxs)):
        a.index_size[k] = sizes[k]
        a.index_stride[k] = strides[k]
    a.iter = iter_of(*iter_tensors)
    call("Index", a, dst, src, *idxs)


def index_select(table: torch.Tensor, idx: torch.Tensor, wrap=False, view=lambda t: t):
    """out[i, :] = view(table)[idx[i], :] as GATHER: src's dim-0 stride 0 (the base element of (i, j) is
    table[0, j]); view applies to the table's copy on the device (to keep an unaligned view)."""
    dt, di = view(dev(table)), dev(idx)
    out = dev(torch.zeros(idx.numel(), dt.size(1), dtype=table.dtype))
    n, e = idx.numel(), dt.size(1)
    src_view = dt.as_strided((n, e), (0, dt.stride(1)))
    idx_view = di.view(n, 1).expand(n, e)
    index_call("GATHER", out, dt, [di], [dt.size(0)], [dt.stride(0)], [out, src_view, idx_view], wrap=wrap)
    return out


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32, torch.int64, torch.int8, torch.float64])
@pytest.mark.parametrize("cols", [4096, 129, 1, 8])
def test_index_select_rows(dtype, cols):
    table = rand((1000, cols), dtype)
    idx = torch.randint(0, 1000, (300,), generator=torch.Generator().manual_seed(1))
    close(index_select(table, idx), table[idx])
    close(index_select(table, idx.int()), table[idx])
    if cols > 1:
        close(index_select(table, idx, view=lambda t: t[:, 1:]), table[:, 1:][idx])


def test_gather_scatter_along_dim():
    src = rand((6, 9, 5), torch.float32)
    g = torch.Generator().manual_seed(2)
    for dim in range(3):
        shape = list(src.shape)
        shape[dim] = 4
        idx = torch.randint(0, src.size(dim), shape, generator=g)
        ds, di = dev(src), dev(idx)
        out = dev(torch.zeros(idx.shape))
        strides = list(ds.stride())
        strides[dim] = 0
        index_call("GATHER", out, ds, [di], [src.size(dim)], [ds.stride(dim)], [out, ds.as_strided(shape, strides), di])
        close(out, torch.gather(src, dim, idx))
        # scatter_add with duplicates
        base = rand((6, 9, 5), torch.float64)
        vals = rand(shape, torch.float64)
        dd, dv = dev(base), dev(vals)
        dstrides = list(dd.stride())
        dstrides[dim] = 0
        index_call(
            "SCATTER_ADD", dd, dv, [di], [base.size(dim)], [dd.stride(dim)], [dd.as_strided(shape, dstrides), dv, di]
        )
        close(dd, base.scatter_add(dim, idx, vals))


@pytest.mark.parametrize(
    "dtype",
    [
        torch.float32,
        torch.bfloat16,
        torch.float16,
        torch.float64,
        torch.int32,
        torch.int64,
        torch.int16,
        torch.int8,
        torch.uint8,
        torch.bool,
    ],
)
@pytest.mark.parametrize("name", ["SCATTER_ADD", "SCATTER_MUL", "SCATTER_AMAX", "SCATTER_AMIN", "SCATTER"])
def test_scatter_reduce_duplicates(dtype, name):
    """1-d: dst[idx[i]] op= src[i] with many duplicates (atomics on every element width). Float values are small
    integers and powers of two, so every order of the updates gives the same result."""
    n, m = 3000, 17
    g = torch.Generator().manual_seed(3)
    idx = torch.randint(0, m, (n,), generator=g)
    pick = torch.rand(n, generator=g)
    if dtype == torch.bool:
        src, base = pick < 0.5, torch.rand(m, generator=g) < 0.5
    elif name == "SCATTER_MUL":
        src = torch.where(pick < 0.03, 2.0, torch.where(pick > 0.98, 0.5 if dtype.is_floating_point else 1.0, 1.0))
        src, base = src.to(dtype), torch.randint(1, 4, (m,), generator=g).to(dtype)
    elif name == "SCATTER_ADD":
        src, base = torch.randint(-1, 2, (n,), generator=g).to(dtype), torch.randint(0, 4, (m,), generator=g).to(dtype)
    else:
        src, base = rand((n,), dtype), rand((m,), dtype)
    if dtype.is_floating_point and name in ("SCATTER_AMAX", "SCATTER_AMIN"):
        src[5] = float("nan")  # a NaN wins where it lands
    if name == "SCATTER":  # unique positions: the result is defined
        idx, src = torch.randperm(m, generator=g), src[:m]
    dd, ds, di = dev(base), dev(src), dev(idx)
    index_call(name, dd, ds, [di], [m], [1], [dd.as_strided(idx.shape, (0,)), ds, di])
    if name == "SCATTER":
        ref = base.scatter(0, idx, src)
    elif dtype == torch.bool:
        ref = base.clone()
        for j, v in zip(idx.tolist(), src.tolist()):
            cur = bool(ref[j])
            ref[j] = (cur or v) if name in ("SCATTER_ADD", "SCATTER_AMAX") else (cur and v)
    else:
        how = {"SCATTER_ADD": "sum", "SCATTER_MUL": "prod", "SCATTER_AMAX": "amax", "SCATTER_AMIN": "amin"}[name]
        ref = base.scatter_reduce(0, idx, src, how)
    close(dd, ref, atol=0, rtol=0)


def test_index_wrap_and_out_of_range():
    table = rand((10, 16), torch.float32)
    idx = torch.tensor([0, -1, 9, -10])
    close(index_select(table, idx, wrap=True), table[idx])
    bad = torch.tensor([1, 10, 2])
    out = None
    with pytest.raises(I.InfiniError, match="index out of range"):
        out = index_select(table, bad)
    assert sync() == 0  # reported once, then clear
    assert out is None
    good = index_select(table, torch.tensor([2, 3]))
    close(good, table[[2, 3]])


def test_gather_cast_and_two_indices():
    """x[i, j] with two index operands (advanced indexing) and a cast from float32 to float64."""
    x = rand((7, 11), torch.float32)
    g = torch.Generator().manual_seed(4)
    i, j = torch.randint(-7, 7, (50,), generator=g), torch.randint(0, 11, (50,), generator=g)
    dx, di, dj = dev(x), dev(i), dev(j)
    out = dev(torch.zeros(50, dtype=torch.float64))
    index_call("GATHER", out, dx, [di, dj], [7, 11], [11, 1], [out, dx.as_strided((50,), (0,)), di, dj], wrap=True)
    close(out, x[i, j].double())


# ================================================================================================================
# nonzero


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.bool, torch.uint8])
@pytest.mark.parametrize("shape", [(5000,), (37, 1023), (3, 4, 5), (1,), (2049,)])
def test_nonzero(dtype, shape):
    x = rand(shape, dtype)
    x = torch.where(rand(shape, torch.float32, 0, 1) < 0.7, torch.zeros((), dtype=dtype), x)
    if dtype.is_floating_point:
        x.view(-1)[0] = float("nan")
    for view in (x, x.t() if x.dim() == 2 else x):
        ref = torch.nonzero(view)
        out = dev(torch.full((max(ref.size(0), 1), view.dim()), -7, dtype=torch.int64))
        a = NonzeroArgs()
        dx = _same_view(x, view)
        a.in_ = tensor_of(dx)
        a.out = out.data_ptr()
        a.count = ref.size(0)
        call("Nonzero", a, dx, out)
        close(out[: ref.size(0)], ref)


# ================================================================================================================
# random


def philox_words(seed: int, v: np.ndarray, stream: int) -> np.ndarray:
    """w(v) of random.cu's mapping, in numpy."""
    m0, m1, w0, w1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57), 0x9E3779B9, 0xBB67AE85
    mask = np.uint64(0xFFFFFFFF)
    block = v >> np.uint64(2)
    c = [block & mask, block >> np.uint64(32), np.full_like(v, stream), np.zeros_like(v)]
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for r in range(10):
        p0, p1 = m0 * c[0], m1 * c[2]
        c = [
            (p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0),
            p1 & mask,
            (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1),
            p0 & mask,
        ]
        if r < 9:
            k0, k1 = (k0 + w0) & 0xFFFFFFFF, (k1 + w1) & 0xFFFFFFFF
    words = np.stack(c)  # [4, n]
    return words[(v & np.uint64(3)).astype(np.int64), np.arange(v.size)]


def test_philox_reference_vector():
    # Random123's known-answer test for philox4x32_10: counter 0, key 0
    v = np.arange(4, dtype=np.uint64)
    assert [hex(int(w)) for w in philox_words(0, v, 0)] == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]


def random_call(name: str, out: torch.Tensor, seed=1234, offset=0, f=(0.0, 1.0), i=(0, 10), prob=None):
    a = RandomArgs()
    a.op = op("RANDOM_" + name)
    a.seed = seed
    a.offset = offset
    a.f[0], a.f[1] = f
    a.i[0], a.i[1] = i
    a.iter = iter_of(out) if prob is None else iter_of(out, prob)
    call("Random", a, out, prob)


@pytest.mark.skipif(
    BACKEND != "nvidia",
    reason="the nvidia backend's own stream (backends/nvidia/families/random.cu); "
    "each backend is reproducible by seed, their streams differ",
)
def test_uniform_follows_the_mapping():
    seed, offset, n = 0x1234_5678_9ABC, 77, 10001
    out = dev(torch.zeros(n))
    random_call("UNIFORM", out, seed=seed, offset=offset, f=(-2.0, 3.0))
    w = philox_words(seed, np.arange(offset, offset + n, dtype=np.uint64), 0)
    u = (w >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
    ref = np.float32(-2.0) + np.float32(5.0) * u
    assert np.array_equal(out.cpu().numpy(), ref)
    # the stream continues: 50 values from offset + 100 are elements 100.. of the first call
    part = dev(torch.zeros(50))
    random_call("UNIFORM", part, seed=seed, offset=offset + 100, f=(-2.0, 3.0))
    assert torch.equal(part.cpu(), out.cpu()[100:150])
    # a strided output takes the values in its own element order
    base = dev(torch.zeros(20, 2))
    random_call("UNIFORM", base[:, 0], seed=seed, offset=offset, f=(-2.0, 3.0))
    assert torch.equal(base.cpu()[:, 0], out.cpu()[:20])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_distributions(dtype):
    n = 200000
    out = dev(torch.zeros(n, dtype=dtype))

    def draw(name, **kw):
        random_call(name, out, seed=99, **kw)
        return out.cpu().double()

    x = draw("UNIFORM", f=(1.0, 3.0))
    assert x.min() >= 1.0 and x.max() < 3.0 and abs(x.mean() - 2.0) < 0.01
    x = draw("NORMAL", f=(1.0, 2.0))
    assert abs(x.mean() - 1.0) < 0.02 and abs(x.std() - 2.0) < 0.02
    x = draw("BERNOULLI", f=(0.3, 0.0))
    assert set(x.unique().tolist()) <= {0.0, 1.0} and abs(x.mean() - 0.3) < 0.01
    x = draw("EXPONENTIAL", f=(2.0, 0.0))
    assert x.min() > 0 and abs(x.mean() - 0.5) < 0.01
    x = draw("GEOMETRIC", f=(0.25, 0.0))
    assert x.min() >= 1 and abs(x.mean() - 4.0) < 0.1
    x = draw("CAUCHY", f=(0.0, 1.0))
    assert abs(x.median()) < 0.02
    x = draw("LOG_NORMAL", f=(0.0, 0.5))
    assert x.min() > 0 and abs(x.log().mean()) < 0.01
    ints = dev(torch.zeros(n, dtype=torch.int64))
    random_call("RANDINT", ints, seed=5, i=(-3, 4))
    r = ints.cpu()
    assert r.min() == -3 and r.max() == 3 and abs(r.double().mean()) < 0.05
    random_call("RANDINT", ints, seed=5, i=(0, 1 << 40))
    r = ints.cpu()
    assert r.min() >= 0 and r.max() < (1 << 40) and r.max() > (1 << 39)


def test_bernoulli_tensor_and_reproducibility():
    p = torch.linspace(0, 1, 1000).repeat(100)
    out = dev(torch.zeros(p.shape, dtype=torch.bool))
    dp = dev(p)
    random_call("BERNOULLI_TENSOR", out, seed=7, prob=dp)
    first = out.cpu()
    assert not first[p == 0].any() and first[p == 1].all()
    rate = first.view(100, 1000).double().mean(0)
    assert (rate - torch.linspace(0, 1, 1000).double()).abs().max() < 0.25
    random_call("BERNOULLI_TENSOR", out, seed=7, prob=dp)
    assert torch.equal(out.cpu(), first)
    random_call("BERNOULLI_TENSOR", out, seed=8, prob=dp)
    assert not torch.equal(out.cpu(), first)


# ================================================================================================================
# accelerator-sized grids


@accel_only
def test_grids_past_65535_blocks():
    x = rand((300000, 40), torch.float32)
    out = dev(torch.zeros(300000, 1))
    reduce("SUM", [out], dev(x), (1,))  # a warp an output: 75000 blocks
    close(out, x.double().sum(1, keepdim=True).float(), atol=1e-4, rtol=1e-4)
    out = dev(torch.zeros(1, 300000))
    xt = x.t().contiguous()
    reduce("MAX", [out], dev(xt), (0,))
    close(out, xt.amax(0, keepdim=True))
    lines = rand((1 << 20 | 5, 3), torch.float32)
    out = dev(torch.zeros(lines.shape))
    scan("CUMSUM", [out], dev(lines), 1)  # a block a line, past 2^20 lines
    close(out, lines.cumsum(1), atol=1e-5, rtol=1e-5)
    many = rand((100000, 7), torch.float32)
    v, i = sort_call(many, 1, True)
    rv, ri = torch.sort(many, dim=1, descending=True, stable=True)
    close(v, rv)
    assert torch.equal(i, ri)
    big = rand((5000, 5000), torch.float32)
    big[big.abs() < 2.5] = 0
    ref = torch.nonzero(big)
    nz = dev(torch.zeros(ref.shape, dtype=torch.int64))
    a = NonzeroArgs()
    dbig = dev(big)
    a.in_ = tensor_of(dbig)
    a.out = nz.data_ptr()
    a.count = ref.size(0)
    call("Nonzero", a, dbig, nz)
    close(nz, ref)


@accel_only
def test_embedding_backward_rows():
    """SCATTER_ADD of [4096, 4096] gradient rows into a [1000, 4096] table (duplicate rows: atomics), integer-valued
    so any order of the additions gives the same sums."""
    g = torch.Generator().manual_seed(5)
    grad = torch.randint(-2, 3, (4096, 4096), generator=g).float()
    idx = torch.randint(0, 1000, (4096,), generator=g)
    table = dev(torch.zeros(1000, 4096))
    dgrad, di = dev(grad), dev(idx)
    index_call(
        "SCATTER_ADD",
        table,
        dgrad,
        [di],
        [1000],
        [4096],
        [table.as_strided((4096, 4096), (0, 1)), dgrad, di.view(4096, 1).expand(4096, 4096)],
    )
    close(table, torch.zeros(1000, 4096).index_add(0, idx, grad))
    rows = index_select(grad.to(torch.bfloat16), idx % 4096)  # the rows kernel at 8 KiB a row
    close(rows, grad.to(torch.bfloat16)[idx % 4096])
