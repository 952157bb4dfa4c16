"""Indexing, gathers and scatters on infini's index and nonzero families, against torch on the CPU.

Every test runs with INFINI_FALLBACK=error (a fallback would raise) and checks that nothing fell back."""

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

DEV = "infini"
ALL = [
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.float64,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
]
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]


@pytest.fixture(autouse=True)
def native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def make(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype == torch.uint8:
        return torch.randint(0, 100, shape, generator=g, dtype=dtype)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    return torch.randint(-50, 50, shape, generator=g).to(dtype)


def tol(dtype):
    loose = {torch.float16: {"rtol": 2e-3, "atol": 2e-3}, torch.bfloat16: {"rtol": 1.6e-2, "atol": 1.6e-2}}
    return loose.get(dtype, {"rtol": 1e-5, "atol": 1e-6})


def same(actual, expected):
    assert actual.device.type == "infini"
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True, **tol(expected.dtype))


def on(t):
    return t.to(DEV)


def same_sums(actual, expected, x, dim, idx, src):
    """A scatter_add result whose duplicates the device adds in an unspecified order (atomics, as torch's CUDA
    kernel): each addition may round by half an ulp of the magnitudes summed there, on the device and in the
    reference alike."""
    if not expected.dtype.is_floating_point:
        return same(actual, expected)
    terms = torch.ones(x.shape).scatter_add_(dim, idx, torch.ones(idx.shape))
    mass = x.double().abs().scatter_add_(dim, idx, src.double().abs())
    bound = terms * mass * torch.finfo(expected.dtype).eps + tol(expected.dtype)["atol"]
    assert actual.device.type == "infini"
    err = (actual.cpu().double() - expected.double()).abs()
    assert (err <= bound).all(), f"off by {(err - bound).max().item()} past the rounding bound"


def index_of(shape, high, seed=1, dtype=torch.int64):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


# ---- gather / scatter ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_gather_dtypes(dtype):
    x = make((5, 7), dtype)
    idx = index_of((4, 7), 5)
    same(torch.gather(on(x), 0, on(idx)), torch.gather(x, 0, idx))
    idx = index_of((5, 3), 7)
    same(torch.gather(on(x), -1, on(idx)), torch.gather(x, -1, idx))


@pytest.mark.parametrize(
    "shape,dim,ishape",
    [
        ((1,), 0, (1,)),
        ((1023,), 0, (7,)),
        ((4, 5, 6), 1, (3, 2, 6)),
        ((4, 5, 6), 2, (4, 5, 9)),
        ((3, 0), 0, (2, 0)),
        ((3, 4), 0, (0, 4)),
    ],
)
def test_gather_shapes(shape, dim, ishape):
    x = make(shape, torch.float32)
    idx = index_of(ishape, max(shape[dim], 1))
    same(torch.gather(on(x), dim, on(idx)), torch.gather(x, dim, idx))


def test_gather_noncontiguous_0d_and_out():
    x = make((6, 8), torch.float32)
    idx = index_of((8, 3), 6)
    same(torch.gather(on(x).t(), 1, on(idx)), torch.gather(x.t(), 1, idx))
    idx2 = index_of((3, 8), 8)
    same(torch.gather(on(x), 1, on(idx2).t().contiguous().t()), torch.gather(x, 1, idx2))  # strided index
    s = torch.tensor(3.5)
    same(torch.gather(on(s), 0, on(torch.tensor(0))), torch.gather(s, 0, torch.tensor(0)))
    out = torch.empty(4, 7, device=DEV).t()  # a strided out of the right size keeps its strides
    idx = index_of((7, 4), 5)
    r = torch.gather(on(x[:5, :7].t().contiguous()), 0, on(idx), out=out)
    assert r.data_ptr() == out.data_ptr()
    same(out, torch.gather(x[:5, :7].t().contiguous(), 0, idx))


@pytest.mark.parametrize("dtype", ALL)
def test_scatter_forms(dtype):
    x = make((5, 6), dtype)
    src = make((3, 6), dtype, seed=2)
    idx = torch.stack([torch.randperm(5, generator=torch.Generator().manual_seed(c))[:3] for c in range(6)], 1)
    same(torch.scatter(on(x), 0, on(idx), on(src)), torch.scatter(x, 0, idx, src))
    y = on(x)
    y.scatter_(0, on(idx), on(src))
    same(y, x.clone().scatter_(0, idx, src))
    out = torch.empty(0, dtype=dtype, device=DEV)
    torch.scatter(on(x), 0, on(idx), on(src), out=out)
    same(out, torch.scatter(x, 0, idx, src))
    value = True if dtype == torch.bool else 3
    same(on(x).scatter_(0, on(idx), value), x.clone().scatter_(0, idx, value))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int16])
def test_scatter_reduce_add_multiply(dtype):
    x = make((4, 9), dtype)
    src = make((6, 9), dtype, seed=3)
    idx = index_of((6, 9), 4)  # duplicates
    for reduce in ["add", "multiply"]:
        same(torch.scatter(on(x), 0, on(idx), on(src), reduce=reduce), torch.scatter(x, 0, idx, src, reduce=reduce))
        same(torch.scatter(on(x), 0, on(idx), 2, reduce=reduce), torch.scatter(x, 0, idx, 2, reduce=reduce))


@pytest.mark.parametrize("dtype", ALL)
def test_scatter_add_with_duplicates(dtype):
    x = make((6, 33), dtype)
    src = make((40, 33), dtype, seed=4)
    idx = index_of((40, 33), 6)
    same_sums(torch.scatter_add(on(x), 0, on(idx), on(src)), torch.scatter_add(x, 0, idx, src), x, 0, idx, src)
    idx = index_of((6, 50), 33, seed=5)
    src = make((6, 50), dtype, seed=6)
    same_sums(on(x).scatter_add_(1, on(idx), on(src)), x.clone().scatter_add_(1, idx, src), x, 1, idx, src)


def test_scatter_add_large_duplicates_under_threads():
    # enough work for several threads and buckets: every destination gets many updates
    x = torch.zeros(3, 64)
    src = torch.randn(5000, 64)
    idx = index_of((5000, 64), 3)
    same_sums(torch.scatter_add(on(x), 0, on(idx), on(src)), torch.scatter_add(x, 0, idx, src), x, 0, idx, src)
    x = torch.zeros(1000, dtype=torch.int64)
    idx = index_of((200000,), 1000, seed=9)
    src = torch.ones(200000, dtype=torch.int64)
    same(torch.scatter_add(on(x), 0, on(idx), on(src)), torch.scatter_add(x, 0, idx, src))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64, torch.int32, torch.int64])
def test_scatter_reduce_two(reduce, include_self, dtype):
    x = make((5, 8), dtype)
    src = make((12, 8), dtype, seed=7)
    if reduce == "prod" and dtype.is_floating_point:
        src = (src.float() * 0.1 + 1).to(dtype)
    idx = index_of((12, 8), 4)  # row 4 is never scattered to
    expected = x.scatter_reduce(0, idx, src, reduce, include_self=include_self)
    same(on(x).scatter_reduce(0, on(idx), on(src), reduce, include_self=include_self), expected)
    y = on(x)
    y.scatter_reduce_(0, on(idx), on(src), reduce, include_self=include_self)
    same(y, expected)


def test_scatter_into_noncontiguous_and_0d_self():
    x = make((7, 5), torch.float32)
    idx = index_of((9, 7), 5)
    src = make((9, 7), torch.float32, seed=2)
    y = on(x).t()  # a transposed self, written in place through its strides
    y.scatter_add_(0, on(idx), on(src))
    same(y, x.t().clone().scatter_add_(0, idx, src))
    y = on(x)[:, ::2]
    y.index_add_(0, on(torch.tensor([6, 0, 6])), on(make((3, 3), torch.float32, seed=3)))
    same(y, x[:, ::2].clone().index_add_(0, torch.tensor([6, 0, 6]), make((3, 3), torch.float32, seed=3)))
    s = torch.tensor(1.0)
    same(on(s).scatter(0, on(torch.tensor(0)), on(torch.tensor(4.0))), s.scatter(0, torch.tensor(0), torch.tensor(4.0)))
    same(
        on(s).scatter_add(0, on(torch.tensor([0])), on(torch.tensor([4.0]))),
        s.scatter_add(0, torch.tensor([0]), torch.tensor([4.0])),
    )
    e = torch.empty(0, 7, dtype=torch.int64)
    same(on(x).scatter(0, on(e), on(src)), x.scatter(0, e, src))


def test_scatter_reduce_nan_propagates():
    x = torch.tensor([1.0, 2.0, float("nan")])
    src = torch.tensor([float("nan"), 5.0, 0.0, 7.0])
    idx = torch.tensor([0, 1, 2, 1])
    for reduce in ["amax", "amin"]:
        same(on(x).scatter_reduce(0, on(idx), on(src), reduce), x.scatter_reduce(0, idx, src, reduce))


def test_scatter_gather_bad_arguments_raise_and_leave_inputs():
    x = on(torch.arange(6.0).view(2, 3))
    with pytest.raises(RuntimeError, match="Expected dtype int"):
        torch.gather(x, 0, on(torch.zeros(2, 3)))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.scatter_(5, on(torch.zeros(2, 3, dtype=torch.int64)), 1.0)
    with pytest.raises(RuntimeError, match="reduce argument must be either"):
        x.scatter_reduce(0, on(torch.zeros(2, 3, dtype=torch.int64)), x, "median")
    assert torch.equal(x.cpu(), torch.arange(6.0).view(2, 3))


def test_index_out_of_range_is_reported_at_the_next_synchronization():
    x = on(torch.arange(6.0))
    y = torch.gather(x, 0, on(torch.tensor([1, 6])))
    with pytest.raises(RuntimeError, match="index out of range"):
        y.cpu()
    z = on(torch.zeros(3)).scatter_add_(0, on(torch.tensor([0, -1])), on(torch.ones(2)))
    with pytest.raises(RuntimeError, match="index out of range"):
        z.cpu()
    assert torch.equal(x.cpu(), torch.arange(6.0))  # the device works on after the error was reported


# ---- index_select / index_add / index_copy / index_fill ------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_index_select_dtypes(dtype):
    x = make((6, 5, 4), dtype)
    for dim in [0, 1, -1]:
        idx = index_of((7,), x.shape[dim], seed=dim + 3)
        same(torch.index_select(on(x), dim, on(idx)), torch.index_select(x, dim, idx))
    idx32 = index_of((3,), 5, dtype=torch.int32)
    same(torch.index_select(on(x), 1, on(idx32)), torch.index_select(x, 1, idx32))


def test_index_select_shapes_noncontiguous_and_out():
    x = make((9, 1023), torch.float32)
    idx = index_of((1,), 9)
    same(on(x).index_select(0, on(idx)), x.index_select(0, idx))
    same(on(x).t().index_select(1, on(idx)), x.t().index_select(1, idx))
    same(on(x)[:, ::3].index_select(1, on(idx)), x[:, ::3].index_select(1, idx))
    empty = torch.tensor([], dtype=torch.int64)
    same(on(x).index_select(0, on(empty)), x.index_select(0, empty))
    s = torch.tensor(2.5)
    same(on(s).index_select(0, on(torch.tensor([0]))), s.index_select(0, torch.tensor([0])))
    out = torch.empty(0, device=DEV)
    torch.index_select(on(x), 1, on(torch.tensor([5, 0, 5])), out=out)
    same(out, torch.index_select(x, 1, torch.tensor([5, 0, 5])))
    strided_idx = on(torch.tensor([3, 1, 4, 1, 5, 8]))[::2]
    same(on(x).index_select(0, strided_idx), x.index_select(0, torch.tensor([3, 4, 5])))


def test_index_select_errors():
    x = on(torch.ones(3, 4))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_select(0, on(torch.zeros(2, 2, dtype=torch.int64)))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        x.index_select(0, on(torch.zeros(2)))
    y = x.index_select(0, on(torch.tensor([3])))
    with pytest.raises(RuntimeError, match="index out of range"):
        y.cpu()


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64, torch.uint8]
)
def test_index_add_copy(dtype):
    x = make((6, 5), dtype)
    src = make((4, 5), dtype, seed=8)
    idx = torch.tensor([1, 5, 1, 0])  # duplicates
    same(on(x).index_add(0, on(idx), on(src)), x.index_add(0, idx, src))
    alpha = 2
    same(on(x).index_add_(0, on(idx), on(src), alpha=alpha), x.clone().index_add_(0, idx, src, alpha=alpha))
    src2 = make((6, 3), dtype, seed=9)
    idx2 = torch.tensor([4, 0, 2], dtype=torch.int32)
    same(on(x).index_add(1, on(idx2), on(src2)), x.index_add(1, idx2, src2))
    idx = torch.tensor([5, 0, 3, 2])
    same(on(x).index_copy(0, on(idx), on(src)), x.index_copy(0, idx, src))
    y = on(x)
    y.index_copy_(1, on(idx2.long()), on(src2))
    same(y, x.clone().index_copy_(1, idx2.long(), src2))


def test_index_add_0d_and_empty():
    x = torch.tensor(1.5)
    same(
        on(x).index_add(0, on(torch.tensor([0])), on(torch.tensor(2.0))),
        x.index_add(0, torch.tensor([0]), torch.tensor(2.0)),
    )
    x = make((3, 4), torch.float32)
    e = torch.tensor([], dtype=torch.int64)
    same(on(x).index_add(0, on(e), on(torch.empty(0, 4))), x.index_add(0, e, torch.empty(0, 4)))


@pytest.mark.parametrize("dtype", ALL)
def test_index_fill(dtype):
    x = make((4, 6), dtype)
    idx = torch.tensor([0, -1, 2])
    value = True if dtype == torch.bool else 7
    same(on(x).index_fill_(1, on(idx), value), x.clone().index_fill_(1, idx, value))
    same(
        on(x).index_fill(0, on(torch.tensor([3])), torch.tensor(value, dtype=dtype)),
        x.index_fill(0, torch.tensor([3]), torch.tensor(value, dtype=dtype)),
    )
    with pytest.raises(IndexError, match="Expected dtype int64 for index"):
        on(x).index_fill_(1, on(idx.int()), value)


# ---- advanced indexing -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_advanced_index_get(dtype):
    x = make((5, 6, 7), dtype)
    i = torch.tensor([4, 0, -1, 2, 2])
    j = torch.tensor([[1], [4]])
    same(on(x)[on(i)], x[i])
    same(on(x)[:, on(i)], x[:, i])
    same(on(x)[on(i), :, on(i)], x[i, :, i])  # not adjacent: indexed dims go to the front
    same(on(x)[on(j), on(i)], x[j, i])  # broadcast indices
    same(on(x)[..., on(i.int())], x[..., i.int()])
    mask = make((5, 6), torch.bool)
    same(on(x)[on(mask)], x[mask])
    same(on(x).transpose(0, 2)[on(i)], x.transpose(0, 2)[i])


def test_advanced_index_shapes_and_out():
    x = make((1023,), torch.float32)
    same(on(x)[on(torch.tensor([], dtype=torch.int64))], x[torch.tensor([], dtype=torch.int64)])
    same(on(x)[on(torch.tensor(7))], x[torch.tensor(7)])
    zero = make((0, 3), torch.float32)
    same(on(zero)[on(torch.tensor([], dtype=torch.int64))], zero[torch.tensor([], dtype=torch.int64)])
    out = torch.empty(0, device=DEV)
    torch.ops.aten.index.Tensor_out(on(x), [on(torch.tensor([3, 3, 1]))], out=out)
    same(out, x[torch.tensor([3, 3, 1])])
    with pytest.raises(IndexError, match="too many indices"):
        on(x)[on(torch.tensor(0)), on(torch.tensor(0))]
    with pytest.raises(IndexError, match="shape mismatch"):
        on(make((4, 5), torch.float32))[on(torch.tensor([0, 1])), on(torch.tensor([0, 1, 2]))]
    y = on(x)[on(torch.tensor([1023]))]
    with pytest.raises(RuntimeError, match="index out of range"):
        y.cpu()


def test_advanced_index_cpu_indices_and_masks():
    x = make((4, 5), torch.float32)
    same(on(x)[torch.tensor([3, 1])], x[torch.tensor([3, 1])])  # indices on the CPU index an infini tensor
    rows = torch.tensor([True, False, True, True])
    same(on(x)[rows], x[rows])
    same(on(x)[on(rows)], x[rows])
    y = on(x)
    y[torch.tensor([2, 0])] = on(torch.zeros(2, 5))
    y[on(rows), 1] = on(torch.ones(3))
    expected = x.clone()
    expected[torch.tensor([2, 0])] = 0
    expected[rows, 1] = 1
    same(y, expected)
    with pytest.raises(IndexError, match="The shape of the mask"):
        on(x)[on(torch.ones(3, dtype=torch.bool))]
    with pytest.raises(IndexError, match="The shape of the mask"):
        y[on(torch.ones(3, dtype=torch.bool))] = on(torch.ones(3, 5))
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        y[on(torch.zeros(2))] = 1.0
    same(y, expected)


@pytest.mark.parametrize("dtype", ALL)
def test_index_put(dtype):
    x = make((6, 5), dtype)
    i = torch.tensor([4, 0, -1])
    v = make((3, 5), dtype, seed=11)
    y = on(x)
    y[on(i)] = on(v)
    expected = x.clone()
    expected[i] = v
    same(y, expected)
    value = False if dtype == torch.bool else 9
    y[:, on(torch.tensor([1, 3]))] = value
    expected[:, torch.tensor([1, 3])] = value
    same(y, expected)
    mask = make((6, 5), torch.bool, seed=12)
    y[on(mask)] = on(make((int(mask.sum()),), dtype, seed=13))
    expected[mask] = make((int(mask.sum()),), dtype, seed=13)
    same(y, expected)
    y[on(mask)] = value  # the masked_fill path
    expected[mask] = value
    same(y, expected)


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64, torch.int8]
)
def test_index_put_accumulate_with_duplicates(dtype):
    x = make((5, 4), dtype)
    i = torch.tensor([0, 3, 0, 0, -1, 3])
    v = make((6, 4), dtype, seed=14)
    same(on(x).index_put_((on(i),), on(v), accumulate=True), x.clone().index_put_((i,), v, accumulate=True))
    j = torch.tensor([1, 1, 2, 1, 0, 1])
    v = make((6,), dtype, seed=15)
    same(on(x).index_put((on(i), on(j)), on(v), accumulate=True), x.index_put((i, j), v, accumulate=True))
    big = torch.zeros(100, dtype=dtype)
    i = index_of((100000,), 100)
    # small integers: every order of the additions gives the same sums (torch's CPU kernel sorts by index first)
    ones = torch.randint(-2, 3, (100000,), generator=torch.Generator().manual_seed(16)).to(dtype)
    same(on(big).index_put_((on(i),), on(ones), accumulate=True), big.clone().index_put_((i,), ones, accumulate=True))


def test_index_put_noncontiguous_self():
    x = make((6, 4), torch.float32)
    y = on(x).t()
    i = torch.tensor([3, 0])
    y[:, on(i)] = on(torch.ones(4, 2))
    expected = x.t().clone()
    expected[:, i] = torch.ones(4, 2)
    same(y, expected)
    y.index_put_((on(torch.tensor([1, 1])),), on(torch.ones(2, 6)), accumulate=True)
    expected.index_put_((torch.tensor([1, 1]),), torch.ones(2, 6), accumulate=True)
    same(y, expected)


def test_index_put_augmented_assignment():
    x = make((8,), torch.float32)
    i = torch.tensor([1, 5, 1])  # a repeated index gets the += once, as on the CPU
    y = on(x)
    y[on(i)] += 2.0
    expected = x.clone()
    expected[i] += 2.0
    same(y, expected)


def test_index_put_errors_leave_self():
    x = on(torch.zeros(4, 3))
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        x[on(torch.tensor([0]))] = on(torch.ones(1, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[on(torch.tensor([0, 1]))] = on(torch.ones(3, 3))
    assert torch.equal(x.cpu(), torch.zeros(4, 3))


# ---- masks and nonzero -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_nonzero(dtype):
    x = make((7, 9), dtype)
    x[2] = 0
    same(torch.nonzero(on(x)), torch.nonzero(x))
    same(torch.nonzero(on(x).t()), torch.nonzero(x.t()))
    for t in torch.nonzero(on(x), as_tuple=True):
        assert t.device.type == "infini"
    same(torch.argwhere(on(x)), torch.argwhere(x))


def test_nonzero_shapes_and_special_values():
    for shape in [(), (0,), (1,), (1023,), (3, 0, 2), (2, 3, 4, 5)]:
        x = make(shape, torch.float32)
        if x.numel() > 3:
            x.view(-1)[::3] = 0
        same(torch.nonzero(on(x)), torch.nonzero(x))
    x = torch.tensor([0.0, -0.0, float("nan"), 1e-45, float("-inf")])
    same(torch.nonzero(on(x)), torch.nonzero(x))
    s = torch.tensor(0.0)
    same(torch.nonzero(on(s)), torch.nonzero(s))
    big = torch.rand(300000) > 0.5
    same(torch.nonzero(on(big)), torch.nonzero(big))
    out = torch.empty(0, dtype=torch.int64, device=DEV)
    torch.nonzero(on(big), out=out)
    same(out, torch.nonzero(big))
    with pytest.raises(RuntimeError, match="Expected out tensor to have scalar type Long"):
        torch.nonzero(on(big), out=torch.empty(0, device=DEV))


@pytest.mark.parametrize("dtype", ALL)
def test_masked_select(dtype):
    x = make((4, 6), dtype)
    mask = make((4, 6), torch.bool, seed=3)
    same(torch.masked_select(on(x), on(mask)), torch.masked_select(x, mask))
    row = make((6,), torch.bool, seed=4)  # broadcast
    same(torch.masked_select(on(x), on(row)), torch.masked_select(x, row))
    out = torch.empty(0, dtype=dtype, device=DEV)
    torch.masked_select(on(x).t(), on(mask).t(), out=out)
    same(out, torch.masked_select(x.t(), mask.t()))
    # 0-d operands: a 0-d mask over a 0-d or a 2-d tensor, and a 0-d tensor under a mask
    for t, m in ((x[0, 0], mask[0, 0]), (x, mask[1, 1]), (x[0, 0], mask)):
        same(torch.masked_select(on(t), on(m)), torch.masked_select(t, m))


@pytest.mark.parametrize("dtype", ALL)
def test_masked_scatter(dtype):
    x = make((5, 6), dtype)
    mask = make((5, 6), torch.bool, seed=5)
    src = make((40,), dtype, seed=6)
    same(on(x).masked_scatter_(on(mask), on(src)), x.clone().masked_scatter_(mask, src))
    row = make((6,), torch.bool, seed=7)
    same(on(x).masked_scatter(on(row), on(src).view(5, 8)), x.masked_scatter(row, src.view(5, 8)))
    same(on(x).t().masked_scatter_(on(mask).t(), on(src)), x.t().clone().masked_scatter_(mask.t(), src))


def test_masked_scatter_errors():
    x = on(torch.zeros(2, 3))
    with pytest.raises(RuntimeError, match="same dtypes"):
        x.masked_scatter_(on(torch.ones(2, 3, dtype=torch.bool)), on(torch.ones(6, dtype=torch.int64)))
    with pytest.raises(RuntimeError, match="at least 6 elements"):
        x.masked_scatter_(on(torch.ones(2, 3, dtype=torch.bool)), on(torch.ones(5)))
    assert torch.equal(x.cpu(), torch.zeros(2, 3))


# ---- take / put_ -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_take_put(dtype):
    x = make((4, 5), dtype)
    idx = torch.tensor([[0, 19], [-1, 7]])
    same(torch.take(on(x), on(idx)), torch.take(x, idx))
    same(torch.take(on(x).t(), on(idx)), torch.take(x.t(), idx))
    src = make((2, 2), dtype, seed=3)
    idx = torch.tensor([[0, 18], [-1, 7]])  # no index twice: put_ without accumulate leaves the winner unspecified
    same(on(x).put_(on(idx), on(src)), x.clone().put_(idx, src))
    y = on(x).t()
    y.put_(on(idx), on(src))
    same(y, x.t().clone().put_(idx, src))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_put_accumulate_with_duplicates(dtype):
    x = make((3, 4), dtype)
    idx = torch.tensor([0, 5, 5, -1, 0, 5])
    src = make((6,), dtype, seed=4)
    same(on(x).put_(on(idx), on(src), accumulate=True), x.clone().put_(idx, src, accumulate=True))
    same(on(x).put(on(idx), on(src), accumulate=True), x.put(idx, src, accumulate=True))


def test_take_errors():
    with pytest.raises(RuntimeError, match="Expected a long tensor for index"):
        torch.take(on(torch.ones(3)), on(torch.tensor([0], dtype=torch.int32)))
    with pytest.raises(IndexError, match="tried to take from an empty tensor"):
        torch.take(on(torch.ones(0)), on(torch.tensor([0])))


# ---- embedding -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("padding_idx,scale", [(None, False), (2, False), (None, True), (0, True)])
def test_embedding_forward_backward(dtype, padding_idx, scale):
    weight = make((10, 16), dtype)
    ids = torch.tensor([[1, 2, 2, 9], [0, 2, 7, 1]])
    grad = make((2, 4, 16), dtype, seed=5)
    w_cpu = weight.clone().requires_grad_()
    out_cpu = F.embedding(ids, w_cpu, padding_idx=padding_idx, scale_grad_by_freq=scale)
    out_cpu.backward(grad)
    w_inf = on(weight).requires_grad_()
    out_inf = F.embedding(on(ids), w_inf, padding_idx=padding_idx, scale_grad_by_freq=scale)
    out_inf.backward(on(grad))
    same(out_inf.detach(), out_cpu.detach())
    same(w_inf.grad, w_cpu.grad)


def test_embedding_module_and_int32_ids():
    torch.manual_seed(0)
    emb = torch.nn.Embedding(50, 8, padding_idx=3)
    ids = index_of((5, 7), 50, dtype=torch.int32)
    ref = emb(ids)
    ref.backward(torch.ones_like(ref))
    emb_inf = torch.nn.Embedding(50, 8, padding_idx=3).to(DEV)
    emb_inf.weight.data.copy_(on(emb.weight.detach()))
    out = emb_inf(on(ids))
    out.backward(torch.ones_like(out))
    same(out.detach(), ref.detach())
    same(emb_inf.weight.grad, emb.weight.grad)
