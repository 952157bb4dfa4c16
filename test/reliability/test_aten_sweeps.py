"""Property-based sweeps of the aten families on "infini" against torch on the CPU (hypothesis, derandomized, so
every CI run draws the same cases): random shapes with broadcasting, 0-d and 0-size tensors, strided views and
every family dtype, through element-wise ops, reductions, scans, sorts and indexing. Either both devices give the
same result (dtype, shape, values within the dtype's tolerance) or both raise."""

import pytest
import torch

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

DTYPES = [
    torch.float32,
    torch.bfloat16,
    torch.float16,
    torch.float64,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
]
TOL = {torch.bfloat16: 2e-2, torch.float16: 2e-3, torch.float32: 1e-5, torch.float64: 1e-9}
SWEEP = settings(max_examples=600, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))

shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)


def tensor(shape, dtype, seed, strided=False):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        t = torch.randint(0, 2, shape, generator=g).bool()
    elif dtype.is_floating_point:
        t = (torch.randn(shape, generator=g) * 3).to(dtype)
    else:
        lo = 0 if dtype == torch.uint8 else -20
        t = torch.randint(lo, 20, shape, generator=g, dtype=dtype)
    if strided and t.dim() >= 2:
        t = t.transpose(0, -1)  # a non-contiguous view (shape reversed in its first and last dims)
    return t


@st.composite
def operands(draw, n=2):
    shape = draw(shapes)
    out = []
    for k in range(n):
        s = [draw(st.sampled_from([1, d])) for d in shape]  # broadcastable against shape
        s = s[draw(st.integers(0, len(s))) :]
        out.append(tuple(s))
    out[0] = shape
    dtype = draw(st.sampled_from(DTYPES))
    dtype2 = draw(st.sampled_from([dtype] + DTYPES))
    seed = draw(st.integers(0, 1000))
    strided = draw(st.booleans())
    ts = [tensor(s, dtype if k == 0 else dtype2, seed + k, strided and k == 0) for k, s in enumerate(out)]
    return ts


def run(fn, *cpu_args):
    """fn on CPU tensors and on their infini copies: (cpu result or exception, infini result or exception)."""
    results = []
    for dev in ("cpu", "infini"):
        args = [a.to(dev) if isinstance(a, torch.Tensor) else a for a in cpu_args]
        try:
            r = fn(*args)
            if dev == "infini":  # a data error a device kernel finds surfaces at the next synchronization
                torch.infini.synchronize()
            results.append(r)
        except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError) as e:
            results.append(e)
    return results


def agree(ref, got):
    if isinstance(ref, Exception) or isinstance(got, Exception):
        assert isinstance(ref, Exception) and isinstance(got, Exception), f"cpu: {ref!r}\ninfini: {got!r}"
        return
    if isinstance(ref, (tuple, list)):
        for r, g in zip(ref, got):
            agree(r, g)
        return
    if not isinstance(ref, torch.Tensor):
        assert ref == got
        return
    assert got.device.type == "infini" and got.dtype == ref.dtype and got.shape == ref.shape, (got, ref)
    tol = TOL.get(ref.dtype, 0)
    torch.testing.assert_close(got.cpu(), ref, rtol=tol, atol=tol, equal_nan=True)


BINARY = {
    "add": torch.add,
    "sub": lambda a, b: a - b if a.dtype != torch.bool and b.dtype != torch.bool else a ^ b,
    "mul": torch.mul,
    "div": torch.div,
    "maximum": torch.maximum,
    "lt": torch.lt,
    "eq": torch.eq,
    "bitwise_and": torch.bitwise_and,
    "where": lambda a, b: torch.where(a > 0, a, b),
    "clamp": lambda a, b: a.clamp(min=b) if a.dtype != torch.bool else a,
}
UNARY = {
    "neg": lambda a: -a if a.dtype != torch.bool else ~a,
    "abs": torch.abs,
    "exp": torch.exp,
    "sqrt": lambda a: a.abs().sqrt(),
    "sigmoid": torch.sigmoid,
    "floor": lambda a: a.floor() if a.dtype != torch.bool else a,
    "to_float": lambda a: a.float(),
    "to_int": lambda a: a.to(torch.int64) if not a.is_floating_point() or a.isfinite().all() else a,
    "contiguous": lambda a: a.contiguous(),
    "nan_to_num": torch.nan_to_num,
}


@SWEEP
@given(operands(), st.sampled_from(sorted(BINARY)))
def test_binary_ops_broadcast_and_promote_as_torch(ts, op):
    agree(*run(BINARY[op], *ts))


@SWEEP
@given(operands(1), st.sampled_from(sorted(UNARY)))
def test_unary_ops_as_torch(ts, op):
    agree(*run(UNARY[op], ts[0]))


REDUCE = {
    "sum": lambda a, d, k: a.sum(d, keepdim=k),
    "mean": lambda a, d, k: a.float().mean(d, keepdim=k),
    "amax": lambda a, d, k: a.amax(d, keepdim=k),
    "argmax": lambda a, d, k: a.argmax(d, keepdim=k),
    "max": lambda a, d, k: a.max(d, keepdim=k),
    "prod": lambda a, d, k: a.prod(d, keepdim=k) if a.dtype != torch.float16 else a,
    "any": lambda a, d, k: a.any(d, keepdim=k),
    "var": lambda a, d, k: a.double().var(d, keepdim=k),
    "cumsum": lambda a, d, k: a.cumsum(d),
    "sort": lambda a, d, k: a.sort(dim=d, stable=True),
    "topk": lambda a, d, k: _topk(a, d),
    "index_select": lambda a, d, k: a.index_select(d, torch.arange(a.shape[d] - 1, -1, -1, device=a.device)),
}


def _topk(a, d):
    """topk's values, and the values its indices point at (ties may pick any of the tied indices)."""
    if a.dtype == torch.bool:
        return a
    v, i = a.topk(min(2, a.shape[d]) if a.dim() else 1, d)
    return v, (a.gather(d, i) if a.dim() else a)


@SWEEP
@given(operands(1), st.sampled_from(sorted(REDUCE)), st.integers(-4, 3), st.booleans())
def test_reductions_scans_sorts_and_indexing_as_torch(ts, op, dim, keepdim):
    a = ts[0]
    if a.dim() == 0:
        dim = 0 if dim % 2 else -1
    elif not -a.dim() <= dim < a.dim():
        dim = dim % a.dim()
    agree(*run(lambda t: REDUCE[op](t, dim, keepdim), a))


INDEX = {
    "gather": lambda a, d, i: a.gather(d, i),
    "index_select": lambda a, d, i: a.index_select(d, i.flatten()),
    "scatter_add": lambda a, d, i: a.scatter_add(d, i, a[tuple(slice(0, n) for n in i.shape)]),
    "take": lambda a, d, i: a.take(i),
    "getitem": lambda a, d, i: a[i],
    "index_put": lambda a, d, i: a.index_put((i.flatten(),), a.flatten()[:1] if a.numel() else a.flatten()),
    "masked_fill": lambda a, d, i: a.masked_fill(i > 1, 0),
    "cat": lambda a, d, i: torch.cat([a, a.to(torch.float32)], d),
}


@SWEEP
@given(operands(1), st.sampled_from(sorted(INDEX)), st.integers(-5, 4), st.integers(-3, 7), st.integers(0, 50))
def test_indexing_in_and_out_of_range_as_torch(ts, op, dim, high, seed):
    """Indices drawn from [-3, high): some out of range (both devices raise, the device's at the synchronization)."""
    a = ts[0]
    nd = max(a.dim(), 1)
    dim = dim if -nd <= dim < nd else dim % nd
    g = torch.Generator().manual_seed(seed)
    shape = list(a.shape) if a.dim() else []
    if shape:
        shape[dim % len(shape)] = max(0, min(shape[dim % len(shape)], 3))
    idx = torch.randint(-3, max(high, -2), shape, generator=g) if high > -3 else torch.zeros(shape, dtype=torch.long)
    agree(*run(lambda t, i: INDEX[op](t, dim, i), a, idx))
