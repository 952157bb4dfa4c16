"""aten sorting on the infini device's sort family, against torch on CPU tensors: sort (stable and not,
descending), argsort, msort, topk, kthvalue, median. Every test runs with INFINI_FALLBACK=error and checks that
nothing fell back."""

import math

import pytest
import torch

import infinicore_torch

DEV = "infini"
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
ALL = FLOATS + INTS + [torch.bool]
SHAPES = [
    ((), [0, -1]),
    ((0,), [0]),
    ((1,), [0]),
    ((7,), [0, -1]),
    ((1023,), [0]),
    ((3, 5), [0, 1, -1]),
    ((4, 0, 3), [0, 2]),
    ((2, 3, 5), [0, 1, 2, -2]),
]


@pytest.fixture(autouse=True)
def native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def make(shape, dtype, seed=0, distinct=False):
    g = torch.Generator().manual_seed(seed)
    if distinct:  # a permutation: no ties, so every index is determined
        n = math.prod(shape)
        x = torch.randperm(n, generator=g).reshape(shape)
        return (x - n // 2).to(dtype) if dtype != torch.uint8 else x.to(dtype)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    return torch.randint(0 if dtype == torch.uint8 else -4, 5, shape, generator=g).to(dtype)


def same(actual, expected):
    if isinstance(expected, (tuple, list)):
        for a, e in zip(actual, expected):
            same(a, e)
        return
    assert actual.device.type == "infini"
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    if expected.dtype.is_floating_point:
        torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)
    else:
        assert torch.equal(actual, expected), (actual, expected)


def with_nans(x):
    if x.dtype.is_floating_point and x.numel() > 3:
        x = x.clone()
        x.view(-1)[1] = float("nan")
        x.view(-1)[-2] = float("nan")
    return x


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_sort_stable(dtype):
    for shape, dims in SHAPES:
        x = with_nans(make(shape, dtype))
        for v in [x] + ([x.transpose(0, -1).contiguous().transpose(0, -1)] if x.dim() >= 2 else []):
            for dim in dims:
                for descending in (False, True):
                    same(
                        tuple(torch.sort(v.to(DEV), dim=dim, descending=descending, stable=True)),
                        tuple(torch.sort(v, dim=dim, descending=descending, stable=True)),
                    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16], ids=str)
def test_sort_unstable_argsort_msort(dtype):
    x = make((6, 33), dtype)
    d = x.to(DEV)
    values, indices = d.sort(1)
    same(values, x.sort(1).values)
    same(values, x.gather(1, indices.cpu()))  # the indices fit the values
    same(torch.argsort(d, dim=0, stable=True), torch.argsort(x, dim=0, stable=True))
    same(torch.argsort(d, dim=-1, descending=True, stable=True), torch.argsort(x, dim=-1, descending=True, stable=True))
    same(torch.msort(d), torch.msort(x))
    vals, idx = torch.empty(0, dtype=dtype, device=DEV), torch.empty(0, dtype=torch.long, device=DEV)
    torch.sort(d, 0, out=(vals, idx))
    same(vals, x.sort(0).values)


def test_nan_sorts_above_everything():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([nan, 1.0, -inf, nan, inf, -0.0, 0.0, 1.0])
    for descending in (False, True):
        same(
            tuple(x.to(DEV).sort(descending=descending, stable=True)), tuple(x.sort(descending=descending, stable=True))
        )
    same(tuple(x.to(DEV).topk(3)), tuple(x.topk(3)))
    same(x.to(DEV).topk(3, largest=False).values, x.topk(3, largest=False).values)


def test_non_contiguous_inputs_and_outputs():
    x = make((6, 10, 8), torch.float32)
    d = x.to(DEV)
    for view in [
        lambda t: t.transpose(0, 2),
        lambda t: t[:, ::3, 1::2],
        lambda t: t.permute(1, 2, 0)[2:],
        lambda t: t[:1].expand(5, 10, 8),
    ]:
        for dim in range(3):
            same(tuple(view(d).sort(dim=dim, stable=True)), tuple(view(x).sort(dim=dim, stable=True)))
            same(view(d).topk(2, dim).values, view(x).topk(2, dim).values)
    vals = torch.empty(10, 6, device=DEV).t()
    idx = torch.empty(10, 6, dtype=torch.long, device=DEV).t()
    torch.sort(d[:, :, 0], dim=1, stable=True, out=(vals, idx))
    same((vals, idx), tuple(torch.sort(x[:, :, 0], dim=1, stable=True)))


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=str)
def test_topk(dtype):
    for shape, dims in SHAPES:
        x = make(shape, dtype, distinct=True)
        for dim in dims:
            n = x.shape[dim] if x.dim() else 1
            for k in sorted({0, min(1, n), min(3, n), n}):
                for largest in (True, False):
                    got, ref = x.to(DEV).topk(k, dim, largest=largest), x.topk(k, dim, largest=largest)
                    same(got.values, ref.values)
                    if x.unique().numel() == x.numel():  # narrow dtypes repeat values: then any tied index
                        same(got.indices, ref.indices)
                    elif x.dim():
                        assert torch.equal(x.gather(dim, got.indices.cpu()), ref.values)
                    got = x.to(DEV).topk(k, dim, largest=largest, sorted=False)
                    ref = x.topk(k, dim, largest=largest, sorted=False)
                    same(got.values.sort(dim).values, ref.values.sort(dim).values)


def test_topk_ties_pick_lowest_index_consistently():
    x = torch.tensor([[3, 1, 3, 2, 3, 1], [0, 0, 0, 0, 0, 0]])
    values, indices = x.to(DEV).topk(2, 1)
    same(values, x.topk(2, 1).values)
    assert torch.equal(indices.cpu(), torch.tensor([[0, 2], [0, 1]]))


def test_kthvalue_and_median():
    x = make((5, 9), torch.float32, distinct=True)
    d = x.to(DEV)
    for k in (1, 4, 9):
        same(tuple(d.kthvalue(k, 1)), tuple(x.kthvalue(k, 1)))
        same(tuple(d.kthvalue(k, -1, keepdim=True)), tuple(x.kthvalue(k, -1, keepdim=True)))
    same(tuple(d.kthvalue(2, 0)), tuple(x.kthvalue(2, 0)))
    for dim in (0, 1):
        for keepdim in (False, True):
            same(tuple(d.median(dim, keepdim=keepdim)), tuple(x.median(dim, keepdim=keepdim)))
    same(d.median(), x.median())
    ties = make((4, 10), torch.int64)  # many ties: torch's CPU kernel picks by index too
    same(tuple(ties.to(DEV).median(1)), tuple(ties.median(1)))
    nan = with_nans(make((3, 8), torch.float32))
    same(tuple(nan.to(DEV).median(1)), tuple(nan.median(1)))
    same(nan.to(DEV).median(), nan.median())
    s = torch.tensor(2.5)
    same(tuple(s.to(DEV).kthvalue(1)), tuple(s.kthvalue(1)))
    same(tuple(s.to(DEV).median(0)), tuple(s.median(0)))
    vals, idx = torch.empty(0, device=DEV), torch.empty(0, dtype=torch.long, device=DEV)
    torch.kthvalue(d, 3, 1, out=(vals, idx))
    same((vals, idx), tuple(x.kthvalue(3, 1)))
    vals, idx = torch.empty(0, device=DEV), torch.empty(0, dtype=torch.long, device=DEV)
    torch.median(d, 0, out=(vals, idx))
    same((vals, idx), tuple(x.median(0)))
    assert math.isnan(torch.median(torch.empty(0, device=DEV)).item())


def test_bad_input_raises_and_leaves_inputs_untouched():
    x = make((3, 4), torch.float32)
    d = x.to(DEV)
    cases = [
        (lambda: d.sort(2), "Dimension out of range"),
        (lambda: d.topk(5, 1), "selected index k out of range"),
        (lambda: d.topk(-1, 1), "selected index k out of range"),
        (lambda: d.kthvalue(0, 1), "kthvalue\\(\\): selected number k out of range"),
        (lambda: torch.empty(2, 0, device=DEV).kthvalue(1, 1), "Expected reduction dim 1 to have non-zero size"),
        (lambda: torch.empty(0, 2, device=DEV).median(0), "Expected reduction dim 0 to have non-zero size"),
    ]
    for fn, message in cases:
        with pytest.raises((RuntimeError, IndexError), match=message):
            fn()
    same(d, x)


def test_llm_topk_and_sort_over_the_vocabulary():
    logits = torch.randn(4, 32000, generator=torch.Generator().manual_seed(6))
    for t in (logits, logits.bfloat16()):
        for k in (1, 50):
            got, ref = t.to(DEV).topk(k, -1), t.topk(k, -1)
            same(got.values, ref.values)
            if t.dtype == torch.float32:
                same(got.indices, ref.indices)
    same(
        tuple(logits.to(DEV).sort(dim=-1, descending=True, stable=True)),
        tuple(logits.sort(dim=-1, descending=True, stable=True)),
    )
