"""aten reductions on the infini device's reduce family, against torch on CPU tensors: sum, mean, prod, nansum,
amax / amin / aminmax, max / min (along a dim and over everything), argmax / argmin, any / all, norms, var / std
(and with the mean), logsumexp, count_nonzero, trace. Every test runs with INFINI_FALLBACK=error (a CPU fallback would
raise) and checks that nothing fell back."""

import math
import warnings

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
# shapes and the dims reduced over each (None: all)
SHAPES = [
    ((), [None, 0, -1]),
    ((0,), [None, 0]),
    ((1,), [None, 0]),
    ((7,), [None, 0, -1]),
    ((1023,), [None, 0]),
    ((3, 5), [None, 0, 1, -1, (0, 1)]),
    ((4, 0, 3), [None, 0, 1, (0, 2)]),
    ((2, 3, 5), [None, 1, (0, 2), (-1, 0)]),
    ((5, 7, 1, 3), [None, 2, (1, 3), (0, 1, 2)]),
]


@pytest.fixture(autouse=True)
def native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def make(shape, dtype, seed=0, low=-4, high=5):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype == torch.uint8:
        low = 0
    return torch.randint(low, high, shape, generator=g).to(dtype)


def close(actual, expected, dtype=None, scale=1.0):
    """actual (infini) against expected (CPU): exact for integers and bool, per-dtype tolerance for floats."""
    if isinstance(expected, (tuple, list)):
        for a, e in zip(actual, expected):
            close(a, e, dtype, scale)
        return
    assert actual.device.type == "infini"
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    if expected.dtype.is_floating_point:
        rtol, atol = TOL[expected.dtype]
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol * scale, equal_nan=True)
    else:
        assert torch.equal(actual, expected), (actual, expected)


def dims_of(shape, dims):
    """(dim argument, number of elements each output combines)"""
    for dim in dims:
        if dim is None:
            yield dim, max(1, math.prod(shape))
        else:
            ds = dim if isinstance(dim, tuple) else (dim,)
            yield dim, max(1, math.prod(shape[d] for d in ds) if shape else 1)


def sweep(fn, dtypes, *, nan=False, nonempty=False, seed=0, dims_ok=lambda dim: True):
    """fn(x, dim, keepdim) on CPU and on infini over SHAPES, their dims, keepdim and a transposed input."""
    for dtype in dtypes:
        for shape, dims in SHAPES:
            if nonempty and 0 in shape:
                continue
            x = make(shape, dtype, seed)
            if nan and dtype.is_floating_point and x.numel() > 2:
                x.view(-1)[x.numel() // 2] = float("nan")
            variants = [x]
            if x.dim() >= 2:
                variants.append(x.transpose(0, -1).contiguous().transpose(0, -1))  # same values, permuted strides
            for v in variants:
                for dim, n in dims_of(shape, dims):
                    if not dims_ok(dim):
                        continue
                    for keepdim in (False, True):
                        close(fn(v.to(DEV), dim, keepdim), fn(v, dim, keepdim), dtype, scale=math.sqrt(n))


def dim_kw(dim):
    return {} if dim is None else {"dim": dim}


def red(x, name, d, k, **kw):
    """x.name() over everything when d is None and not k, else x.name(dim=d, keepdim=k)."""
    if d is None and not k:
        return getattr(x, name)(**kw)
    return getattr(x, name)(dim=d, keepdim=k, **kw)


# ---- sums and products ----


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_sum(dtype):
    sweep(lambda x, d, k: red(x, "sum", d, k), [dtype])


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_nansum(dtype):
    sweep(lambda x, d, k: torch.nansum(x, dim=d, keepdim=k), [dtype], nan=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_mean(dtype):
    sweep(lambda x, d, k: red(x, "mean", d, k), [dtype])


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_prod(dtype):
    def fn(x, d, k):
        if x.dtype.is_floating_point:
            x = 1 + x / 16  # near 1: no overflow over a thousand terms
        if d is None:
            return x.prod()
        if isinstance(d, tuple):
            return x.prod(d[0], keepdim=k)
        return x.prod(d, keepdim=k)

    sweep(fn, [dtype])


def test_sum_and_mean_dtype_argument():
    x = make((6, 9), torch.float16)
    close(x.to(DEV).sum(1, dtype=torch.float32), x.sum(1, dtype=torch.float32))
    close(x.to(DEV).mean(0, dtype=torch.float64), x.mean(0, dtype=torch.float64))
    y = make((6, 9), torch.float32)
    close(y.to(DEV).sum(dtype=torch.float16), y.sum(dtype=torch.float16))  # elements round to float16 first
    i = make((6, 9), torch.int32)
    close(i.to(DEV).sum(0), i.sum(0))  # int64 result
    close(i.to(DEV).sum(0, dtype=torch.int8), i.sum(0, dtype=torch.int8))  # wraps as torch
    close(i.to(DEV).sum(dtype=torch.float32), i.sum(dtype=torch.float32))
    close(i.to(DEV).prod(1, dtype=torch.float64), i.prod(1, dtype=torch.float64))
    b = make((6, 9), torch.bool)
    close(b.to(DEV).sum(1), b.sum(1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.uint8], ids=str)
def test_trace(dtype):
    def ref(x):
        try:
            return x.trace()
        except NotImplementedError:  # torch before 2.12 has no bfloat16 trace on the CPU
            return x.float().trace().to(dtype)

    for shape in [(4, 4), (3, 7), (6, 2), (0, 3), (1, 1)]:
        x = make(shape, dtype)
        close(x.to(DEV).trace(), ref(x))
        close(x.t().to(DEV).trace(), ref(x.t()))
    with pytest.raises(RuntimeError, match="trace: expected a matrix"):
        torch.ones(3).to(DEV).trace()


def test_integer_sums_wrap_as_torch():
    x = torch.full((64,), 2**62, dtype=torch.int64)
    close(x.to(DEV).sum(), x.sum())
    close(x.to(DEV).prod(), x.prod())


# ---- extremes and indices ----


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_amax_amin(dtype):
    def fn(x, d, k):
        d = () if d is None else d  # amax / amin: () is every dim
        return x.amax(d, keepdim=k), x.amin(d, keepdim=k)

    sweep(fn, [dtype], nan=True, nonempty=True)


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_max_min_dim_first_index_of_ties(dtype):
    def fn(x, d, k):
        return tuple(x.max(d, keepdim=k)) + tuple(x.min(d, keepdim=k))

    sweep(fn, [dtype], nan=True, nonempty=True, dims_ok=lambda d: isinstance(d, int))


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=str)
def test_argmax_argmin(dtype):
    def fn(x, d, k):
        return x.argmax(d, keepdim=k), x.argmin(d, keepdim=k)

    sweep(fn, [dtype], nan=True, nonempty=True, dims_ok=lambda d: not isinstance(d, tuple))


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_max_min_over_everything(dtype):
    for shape in [(), (1,), (7,), (1023,), (3, 5), (5, 7, 1, 3)]:
        x = make(shape, dtype)
        close(x.to(DEV).max(), x.max())
        close(x.to(DEV).min(), x.min())
        if dtype.is_floating_point and x.numel() > 1:
            x.view(-1)[-1] = float("nan")
            close(x.to(DEV).max(), x.max())
            close(x.to(DEV).min(), x.min())


def test_aminmax():
    x = make((4, 9), torch.float32)
    close(torch.aminmax(x.to(DEV)), torch.aminmax(x))
    close(torch.aminmax(x.to(DEV), dim=1, keepdim=True), torch.aminmax(x, dim=1, keepdim=True))
    close(torch.aminmax(x.to(DEV), keepdim=True), torch.aminmax(x, keepdim=True))


def test_nan_wins_and_its_first_index():
    nan = float("nan")
    x = torch.tensor([[1.0, nan, 5.0, nan], [3.0, 3.0, -1.0, -1.0], [-math.inf, -math.inf, -math.inf, -math.inf]])
    d = x.to(DEV)
    close(d.max(1), x.max(1))
    close(d.min(1), x.min(1))
    close(d.argmax(1), x.argmax(1))
    close(d.argmin(1), x.argmin(1))
    close(d.amax(1), x.amax(1))
    close(d.argmax(), x.argmax())


# ---- any / all / count_nonzero ----


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_any_all(dtype):
    def fn(x, d, k):
        return red(x, "any", d, k), red(x, "all", d, k)

    sweep(fn, [dtype])
    for dtype_ in [dtype]:
        x = make((3, 4), dtype_)
        close(x.to(DEV).any(), x.any())
        close(x.to(DEV).all(), x.all())
        close(torch.any(x.to(DEV), dim=()), torch.any(x, dim=()))  # no dims: elementwise
    z = torch.zeros(5, 3, dtype=dtype)
    close(z.to(DEV).any(0), z.any(0))
    close(z.to(DEV).all(1), z.all(1))


def test_any_all_see_nan_as_true():
    x = torch.tensor([[0.0, float("nan")], [0.0, 0.0]])
    close(x.to(DEV).any(1), x.any(1))
    close(x.to(DEV).all(0), x.all(0))


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_count_nonzero(dtype):
    def fn(x, d, k):
        return torch.count_nonzero(x, dim=d)

    sweep(fn, [dtype], nan=True)


# ---- norms, var / std, logsumexp ----


@pytest.mark.parametrize("ord", [2, 1, 0, math.inf, -math.inf, 3, 0.5, -1])
def test_vector_norm(ord):
    def fn(x, d, k):
        if x.numel() == 0 and (ord < 0 or ord == math.inf):
            return torch.zeros((), device=x.device)  # no identity: torch raises (test_bad_input)
        return torch.linalg.vector_norm(x, ord, dim=d, keepdim=k)

    sweep(fn, [torch.float32, torch.bfloat16, torch.float64], nonempty=ord < 0 or ord == math.inf)


def test_norm_overloads():
    x = make((5, 6), torch.float32)
    d = x.to(DEV)
    close(d.norm(), x.norm())
    close(d.norm(p=1, dim=1), x.norm(p=1, dim=1))
    close(torch.norm(d, 3, dim=(0, 1), keepdim=True), torch.norm(x, 3, dim=(0, 1), keepdim=True))
    close(torch.norm(d, dim=0, dtype=torch.float64), torch.norm(x, dim=0, dtype=torch.float64))
    aten = torch.ops.aten  # the norm overloads torch.norm itself routes around
    close(aten.norm.ScalarOpt_dim(d, 3, [1]), aten.norm.ScalarOpt_dim(x, 3, [1]))
    close(
        aten.norm.ScalarOpt_dim_dtype(d, 2, [0], True, dtype=torch.float64),
        aten.norm.ScalarOpt_dim_dtype(x, 2, [0], True, dtype=torch.float64),
    )
    close(aten.norm.Scalar(d, 1), aten.norm.Scalar(x, 1))
    close(aten.norm.ScalarOpt_dtype(d, 2, dtype=torch.float64), aten.norm.ScalarOpt_dtype(x, 2, dtype=torch.float64))
    close(
        torch.linalg.vector_norm(d.half(), dtype=torch.float32), torch.linalg.vector_norm(x.half(), dtype=torch.float32)
    )


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_var_std(dtype):
    def fn(x, d, k):
        return (
            x.var(dim=d, keepdim=k),
            x.std(dim=d, correction=0, keepdim=k),
            torch.var_mean(x, dim=d, correction=2, keepdim=k),
            torch.std_mean(x, dim=d, keepdim=k),
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degrees of freedom <= 0 in the small shapes
        sweep(fn, [dtype], nan=True)


def test_var_is_accurate_far_from_zero():
    x = 1e4 + 1e-2 * torch.randn(100000, generator=torch.Generator().manual_seed(1))
    ref = x.double().var()
    got = x.to(DEV).var().cpu().double()
    assert abs(got - ref) / ref < 1e-3, (got, ref)


def test_var_warns_on_no_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        v = torch.ones(1, device=DEV).var()
    assert math.isnan(v.item())


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64], ids=str)
def test_logsumexp(dtype):
    def fn(x, d, k):
        return torch.logsumexp(x, d if d is not None else tuple(range(x.dim())), keepdim=k)

    sweep(fn, [dtype], nan=True, dims_ok=lambda d: d != ())


def test_logsumexp_infinities():
    inf = math.inf
    x = torch.tensor([[-inf, -inf], [inf, 1.0], [inf, inf], [1000.0, 1000.0], [-inf, 2.0]])
    close(torch.logsumexp(x.to(DEV), 1), torch.logsumexp(x, 1))


# ---- layouts and forms ----


def test_non_contiguous_and_broadcast_inputs():
    x = make((6, 10, 8), torch.float32)
    d = x.to(DEV)
    for view in [
        lambda t: t.transpose(0, 2),
        lambda t: t[:, ::3, 1::2],
        lambda t: t.permute(1, 2, 0)[2:],
        lambda t: t[:1].expand(5, 10, 8),
    ]:
        dv, v = view(d), view(x)
        for dim in [0, 1, 2, (0, 2), None]:
            close(dv.sum(**dim_kw(dim)), v.sum(**dim_kw(dim)), scale=10)
            close(dv.amax(**dim_kw(dim)), v.amax(**dim_kw(dim)))
            close(dv.var(**dim_kw(dim)), v.var(**dim_kw(dim)))
        close(dv.argmax(1), v.argmax(1))
        close(tuple(dv.max(-1)), tuple(v.max(-1)))


def test_out_forms():
    x = make((4, 6), torch.float32)
    d = x.to(DEV)
    out = torch.empty(0, device=DEV)
    torch.sum(d, 1, out=out)
    close(out, x.sum(1))
    strided = torch.empty(6, 4, device=DEV).t()  # a non-contiguous out keeps its strides
    torch.sum(d, 1, keepdim=True, out=strided[:, :1])
    close(strided[:, :1], x.sum(1, keepdim=True))
    for fn in [
        lambda t, o: torch.mean(t, 0, out=o),
        lambda t, o: torch.amax(t, 1, out=o),
        lambda t, o: torch.prod(t, 1, out=o),
        lambda t, o: torch.nansum(t, 0, out=o),
        lambda t, o: torch.logsumexp(t, 1, out=o),
        lambda t, o: torch.std(t, 0, out=o),
        lambda t, o: torch.var(t, 1, out=o),
        lambda t, o: torch.linalg.vector_norm(t, dim=1, out=o),
        lambda t, o: torch.norm(t, dim=0, out=o),
        lambda t, o: torch.max(t, out=o),
    ]:
        o = torch.empty(0, device=DEV)
        ref = fn(x, torch.empty(0))
        fn(d, o)
        close(o, ref)
    vals, idx = torch.empty(0, device=DEV), torch.empty(0, dtype=torch.long, device=DEV)
    torch.max(d, 1, out=(vals, idx))
    close((vals, idx), tuple(x.max(1)))
    o = torch.empty(0, dtype=torch.long, device=DEV)
    torch.argmax(d, 0, out=o)
    close(o, x.argmax(0))
    b = torch.empty(0, dtype=torch.bool, device=DEV)
    torch.any(d > 0, 1, out=b)
    close(b, (x > 0).any(1))
    u = torch.empty(0, dtype=torch.uint8, device=DEV)
    torch.all(d.to(torch.uint8), 0, out=u)
    close(u, torch.all(x.to(torch.uint8), 0, out=torch.empty(0, dtype=torch.uint8)))


def test_bad_input_raises_and_leaves_inputs_untouched():
    x = make((3, 4), torch.float32)
    d = x.to(DEV)
    i = torch.arange(6).to(DEV)
    cases = [
        (lambda: i.mean(), "mean\\(\\): could not infer output dtype"),
        (lambda: d.sum(5), "Dimension out of range"),
        (lambda: d.sum((0, 0)), "appears multiple times"),
        (lambda: torch.empty(0, 3, device=DEV).argmax(), "Expected reduction dim to be specified"),
        (lambda: torch.empty(0, 3, device=DEV).amax(0), "Expected reduction dim 0 to have non-zero size"),
        (lambda: torch.empty(0, device=DEV).max(), "Expected reduction dim to be specified"),
        (lambda: torch.empty(2, 0, device=DEV).max(1), "Expected reduction dim 1 to have non-zero size"),
        (lambda: i.std(), "std and var only support floating point"),
        (lambda: torch.linalg.vector_norm(torch.empty(0, device=DEV), math.inf), "does not have an identity"),
        (lambda: torch.sum(d, 1, dtype=torch.float64, out=torch.empty(3, device=DEV)), "dtype"),
        (lambda: torch.amax(d, 1, out=torch.empty(3, dtype=torch.float64, device=DEV)), "Expected the dtype"),
        (lambda: torch.logsumexp(d, 1, out=torch.empty(3, dtype=torch.long, device=DEV)), "Expected floating point"),
    ]
    for fn, message in cases:
        with pytest.raises((RuntimeError, IndexError), match=message):
            fn()
    close(d, x)
    close(i, torch.arange(6))


def test_long_reductions_split_over_threads():
    # few outputs over many elements: the reduced range splits into chunks whose partials merge in order
    g = torch.Generator().manual_seed(7)
    ints = torch.randint(0, 5, (40000, 3), generator=g)
    floats = torch.randn(40000, 3, generator=g)
    floats[12345, 1] = float("nan")
    for x in (ints, floats, ints.t(), floats.t().contiguous()):
        d = x.to(DEV)
        dim = 0 if x.shape[0] > x.shape[1] else 1
        close(tuple(d.max(dim)), tuple(x.max(dim)))
        close(tuple(d.min(dim)), tuple(x.min(dim)))
        close(d.argmax(dim), x.argmax(dim))
        close(d.amin(dim), x.amin(dim))
        close(d.sum(dim), x.sum(dim), scale=200)
        close((d > 3).any(dim), (x > 3).any(dim))
        close((d > -3).all(dim), (x > -3).all(dim))
        close(torch.count_nonzero(d, dim), torch.count_nonzero(x, dim))
        if x.dtype.is_floating_point:
            close(d.var(dim), x.var(dim))
            close(torch.logsumexp(d, dim), torch.logsumexp(x, dim))
            close(torch.linalg.vector_norm(d, 3, dim), torch.linalg.vector_norm(x, 3, dim))


# ---- accuracy and the reductions an LLM uses ----


def test_large_float32_sums_are_accurate():
    x = torch.randn(4096, 4096, generator=torch.Generator().manual_seed(3))
    d = x.to(DEV)
    ref = x.double()
    for dim in (0, 1):
        got = d.sum(dim).cpu().double()
        err = (got - ref.sum(dim)).abs().max().item()
        assert err < 2e-4, (dim, err)  # sums of 4096 terms of size ~1
    total = d.sum().cpu().double().item()
    assert abs(total - ref.sum().item()) < 2e-2, total  # 16M terms
    mean = d.mean(0).cpu().double()
    assert (mean - ref.mean(0)).abs().max().item() < 1e-7


def test_llm_reductions():
    g = torch.Generator().manual_seed(4)
    h = torch.randn(2, 16, 4096, generator=g).bfloat16()  # RMSNorm: mean of squares over the last dim
    close(h.to(DEV).pow(2).mean(-1, keepdim=True), h.pow(2).mean(-1, keepdim=True))
    close(h.to(DEV).float().pow(2).mean(-1, keepdim=True), h.float().pow(2).mean(-1, keepdim=True))
    logits = torch.randn(4, 32000, generator=g)
    for t in (logits, logits.bfloat16()):
        close(t.to(DEV).max(-1), t.max(-1))
        close(t.to(DEV).argmax(-1), t.argmax(-1))
    probs = torch.softmax(logits, -1)
    close(probs.to(DEV).sum(-1), probs.sum(-1))
