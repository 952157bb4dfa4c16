"""aten scans on the infini device's scan family, against torch on CPU tensors: cumsum, cumprod (functional,
in-place, out=), cummax / cummin, logcumsumexp. Every test runs with INFINI_FALLBACK=error and checks that nothing
fell back."""

import math

import pytest
import torch

import infinicore_torch

DEV = "infini"
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
ALL = FLOATS + INTS + [torch.bool]
TOL = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
    torch.float64: (1e-10, 1e-10),
}
SHAPES = [
    ((), [0, -1]),
    ((0,), [0]),
    ((1,), [0]),
    ((7,), [0, -1]),
    ((1023,), [0]),
    ((3, 5), [0, 1, -1]),
    ((4, 0, 3), [0, 1, 2]),
    ((2, 3, 5), [0, 1, 2, -2]),
    ((70, 9), [0, 1]),
]


@pytest.fixture(autouse=True)
def native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def make(shape, dtype, seed=0, low=-3, high=4):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    return torch.randint(0 if dtype == torch.uint8 else low, high, shape, generator=g).to(dtype)


def close(actual, expected, scale=1.0):
    if isinstance(expected, (tuple, list)):
        for a, e in zip(actual, expected):
            close(a, e, scale)
        return
    assert actual.device.type == "infini"
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    if expected.dtype.is_floating_point:
        rtol, atol = TOL[expected.dtype]
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol * scale, equal_nan=True)
    else:
        assert torch.equal(actual, expected), (actual, expected)


def sweep(fn, dtypes, nan=False):
    for dtype in dtypes:
        for shape, dims in SHAPES:
            x = make(shape, dtype)
            if nan and dtype.is_floating_point and x.numel() > 2:
                x.view(-1)[x.numel() // 3] = float("nan")
            variants = [x]
            if x.dim() >= 2:
                variants.append(x.transpose(0, -1).contiguous().transpose(0, -1))
            for v in variants:
                for dim in dims:
                    n = v.shape[dim] if v.dim() else 1
                    close(fn(v.to(DEV), dim), fn(v, dim), scale=math.sqrt(max(n, 1)))


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_cumsum(dtype):
    sweep(lambda x, d: x.cumsum(d), [dtype], nan=True)


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_cumprod(dtype):
    def fn(x, d):
        if x.dtype.is_floating_point:
            x = 1 + x / 16
        return x.cumprod(d)

    sweep(fn, [dtype])


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_cummax_cummin_last_index_of_ties(dtype):
    sweep(lambda x, d: tuple(x.cummax(d)) + tuple(x.cummin(d)), [dtype], nan=True)


def test_cummax_nan_stays_and_takes_each_later_nan():
    nan = float("nan")
    x = torch.tensor([1.0, nan, 3.0, nan, 0.5, 7.0])
    close(tuple(x.to(DEV).cummax(0)), tuple(x.cummax(0)))
    close(tuple(x.to(DEV).cummin(0)), tuple(x.cummin(0)))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_logcumsumexp(dtype):
    sweep(lambda x, d: torch.logcumsumexp(x, d), [dtype], nan=True)


def test_logcumsumexp_infinities():
    inf = math.inf
    x = torch.tensor([[-inf, -inf, 1.0, inf, 2.0], [inf, inf, -inf, 3.0, 1e4]])
    close(torch.logcumsumexp(x.to(DEV), 1), torch.logcumsumexp(x, 1))


def test_dtype_argument_and_forms():
    x = make((5, 8), torch.float32)
    d = x.to(DEV)
    close(d.cumsum(1, dtype=torch.float64), x.cumsum(1, dtype=torch.float64))
    close(d.cumsum(0, dtype=torch.float16), x.cumsum(0, dtype=torch.float16))  # elements round first
    i = make((5, 8), torch.int32)
    close(i.to(DEV).cumsum(1), i.cumsum(1))  # int64 result
    close(i.to(DEV).cumprod(0, dtype=torch.float32), i.cumprod(0, dtype=torch.float32))
    out = torch.empty(0, device=DEV)
    torch.cumsum(d, 1, out=out)
    close(out, x.cumsum(1))
    strided = torch.empty(8, 5, device=DEV).t()
    torch.cumprod(d, 0, out=strided)
    close(strided, x.cumprod(0))
    y, yc = d.clone(), x.clone()
    y.cumsum_(1)
    yc.cumsum_(1)
    close(y, yc)
    y.t().cumprod_(1)
    yc.t().cumprod_(1)
    close(y, yc)
    vals, idx = torch.empty(0, device=DEV), torch.empty(0, dtype=torch.long, device=DEV)
    torch.cummax(d, 1, out=(vals, idx))
    close((vals, idx), tuple(x.cummax(1)))
    o = torch.empty(0, device=DEV)
    torch.logcumsumexp(d, 0, out=o)
    close(o, torch.logcumsumexp(x, 0))


def test_non_contiguous_inputs():
    x = make((6, 10, 8), torch.float32)
    d = x.to(DEV)
    for view in [
        lambda t: t.transpose(0, 2),
        lambda t: t[:, ::3, 1::2],
        lambda t: t.permute(1, 2, 0)[2:],
        lambda t: t[:1].expand(5, 10, 8),
    ]:
        for dim in range(3):
            close(view(d).cumsum(dim), view(x).cumsum(dim), scale=3)
            close(tuple(view(d).cummin(dim)), tuple(view(x).cummin(dim)))
            close(torch.logcumsumexp(view(d), dim), torch.logcumsumexp(view(x), dim))


def test_long_float32_cumsum_accumulates_in_double():
    x = torch.rand(1 << 20, generator=torch.Generator().manual_seed(2))
    close(x.to(DEV).cumsum(0), x.cumsum(0))  # torch's CPU kernel accumulates float32 in double


def test_bad_input_raises_and_leaves_inputs_untouched():
    x = make((3, 4), torch.float32)
    d = x.to(DEV)
    i = torch.arange(6).to(DEV)
    cases = [
        (lambda: d.cumsum(2), "Dimension out of range"),
        (lambda: torch.cumsum(d, 1, dtype=torch.float64, out=torch.empty(0, device=DEV)), "dtype"),
        (lambda: d.cumsum_(0, dtype=torch.float64), "dtype"),
        (lambda: torch.logcumsumexp(i, 0), "not implemented for 'Long'"),
        (lambda: torch.cummax(d, 3), "Dimension out of range"),
    ]
    for fn, message in cases:
        with pytest.raises((RuntimeError, IndexError), match=message):
            fn()
    close(d, x)
    close(i, torch.arange(6))


def test_llm_cumsum_of_positions():
    mask = torch.ones(1, 128, dtype=torch.int64)
    mask[0, :5] = 0
    close(mask.to(DEV).cumsum(-1), mask.cumsum(-1))
    probs = torch.softmax(torch.randn(4, 32000, generator=torch.Generator().manual_seed(5)), -1)
    close(probs.to(DEV).cumsum(-1), probs.cumsum(-1))  # top-p sampling's cumulative probabilities
