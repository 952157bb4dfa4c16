"""Random numbers on infini's random family: distributions (moments over 1e5 draws), reproducibility by seed and
by generator state, dropout, bernoulli, randperm, multinomial, and the ops' argument checks.

Tests run with INFINI_FALLBACK=error (a fallback would raise) unless they say why not."""

import math

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

DEV = "infini"
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
N = 100_000


@pytest.fixture
def native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def moments(t):
    x = t.cpu().double()
    return x.mean().item(), x.var().item()


def near(value, expected, tol):
    assert abs(value - expected) <= tol, f"{value} is not within {tol} of {expected}"


# ---- distributions ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform(native_only, dtype):
    x = torch.empty(N, dtype=dtype, device=DEV).uniform_(-2, 3)
    c = x.cpu()
    assert c.min() >= -2 and c.max() < 3
    mean, var = moments(x)
    near(mean, 0.5, 0.03)
    near(var, 25 / 12, 0.05)
    r = torch.rand(7, 1023, device=DEV, dtype=dtype)
    assert r.shape == (7, 1023) and r.dtype == dtype and 0 <= r.cpu().min() and r.cpu().max() < 1


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal(native_only, dtype):
    x = torch.empty(N, dtype=dtype, device=DEV).normal_(1.5, 2.0)
    mean, var = moments(x)
    near(mean, 1.5, 0.04)
    near(math.sqrt(var), 2.0, 0.03)
    z = torch.randn(N, device=DEV, dtype=dtype).cpu().double()
    near(((z.abs() < 1).double().mean()).item(), 0.6827, 0.01)  # the shape, not only two moments
    near(((z**3).mean()).item(), 0.0, 0.05)
    near(((z**4).mean()).item(), 3.0, 0.15)


def test_normal_tensor_overloads():
    # these check `std >= 0` with a min reduction, which runs through the fallback until the reduce family lands
    mean = torch.tensor([0.0, 10.0, -5.0]).repeat(20000)
    std = torch.tensor([1.0, 0.5, 2.0]).repeat(20000)
    a = torch.normal(mean.to(DEV), 1.0).cpu().view(-1, 3)
    b = torch.normal(0.0, std.to(DEV)).cpu().view(-1, 3)
    c = torch.normal(mean.to(DEV), std.to(DEV)).cpu().view(-1, 3)
    torch.testing.assert_close(a.mean(0), torch.tensor([0.0, 10.0, -5.0]), atol=0.05, rtol=0)
    torch.testing.assert_close(b.std(0), torch.tensor([1.0, 0.5, 2.0]), atol=0.05, rtol=0)
    torch.testing.assert_close(c.mean(0), torch.tensor([0.0, 10.0, -5.0]), atol=0.06, rtol=0)
    out = torch.empty(mean.shape, device=DEV)
    torch.normal(mean.to(DEV), 2.0, out=out)
    near((out.cpu() - mean).std().item(), 2.0, 0.03)


def test_exponential_geometric_cauchy_log_normal(native_only):
    e = torch.empty(N, device=DEV).exponential_(2.0)
    assert e.cpu().min() > 0
    mean, var = moments(e)
    near(mean, 0.5, 0.01)
    near(var, 0.25, 0.01)
    g = torch.empty(N, device=DEV, dtype=torch.float64).geometric_(0.25).cpu()
    assert g.min() >= 1 and torch.equal(g, g.round())
    near(g.mean().item(), 4.0, 0.06)
    gi = torch.empty(1000, device=DEV, dtype=torch.int32).geometric_(0.5).cpu()
    assert gi.min() >= 1
    c = torch.empty(N, device=DEV).cauchy_(1.0, 3.0).cpu().double()
    near(c.median().item(), 1.0, 0.08)
    near((c.quantile(0.75) - c.quantile(0.25)).item(), 6.0, 0.25)  # the interquartile range is 2 sigma
    ln = torch.empty(N, device=DEV).log_normal_(0.5, 0.25).cpu().double()
    assert ln.min() > 0
    near(ln.log().mean().item(), 0.5, 0.005)
    near(ln.log().std().item(), 0.25, 0.005)


@pytest.mark.parametrize("dtype", INTS + FLOATS + [torch.bool])
def test_random_ranges(native_only, dtype):
    x = torch.empty(20000, dtype=dtype, device=DEV)
    if dtype == torch.bool:
        v = x.random_().cpu()
        near(v.double().mean().item(), 0.5, 0.02)
        return
    v = x.random_(3, 11).cpu()
    assert v.min() == 3 and v.max() == 10
    counts = torch.bincount(v.long() - 3, minlength=8).double()
    assert (counts / 20000 - 1 / 8).abs().max() < 0.02
    assert x.random_(5).cpu().max() == 4
    top = {torch.float16: 2**11, torch.bfloat16: 2**8, torch.float32: 2**24, torch.float64: 2**53}.get(
        dtype, torch.iinfo(dtype).max if not dtype.is_floating_point else None
    )
    w = x.random_().cpu().double()
    assert w.min() >= 0 and w.max() <= top and w.max() > top / 2


def test_random_full_and_wide_ranges(native_only):
    x = torch.empty(10000, dtype=torch.int64, device=DEV)
    v = x.random_(-(2**63), None).cpu()
    assert v.min() < -(2**61) and v.max() > 2**61
    v = x.random_(-(2**40), 2**40).cpu()
    assert v.min() >= -(2**40) and v.max() < 2**40 and v.min() < -(2**39)
    r = torch.randint(-3, 4, (5000,), device=DEV).cpu()
    assert set(r.tolist()) == set(range(-3, 4))


@pytest.mark.parametrize("dtype", FLOATS + [torch.bool, torch.int64, torch.uint8])
def test_bernoulli(native_only, dtype):
    x = torch.empty(N, dtype=dtype, device=DEV).bernoulli_(0.3).cpu()
    assert set(x.double().unique().tolist()) <= {0.0, 1.0}
    near(x.double().mean().item(), 0.3, 0.01)
    assert torch.equal(torch.empty(100, dtype=dtype, device=DEV).bernoulli_(0).cpu(), torch.zeros(100, dtype=dtype))
    assert torch.equal(torch.empty(100, dtype=dtype, device=DEV).bernoulli_(1).cpu(), torch.ones(100, dtype=dtype))


def test_bernoulli_tensor_probabilities(native_only):
    p = torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0]).repeat(20000)
    for probs in [p, p.half(), p.double()]:
        x = torch.bernoulli(probs.to(DEV)).cpu().view(-1, 5)
        assert x.dtype == probs.dtype
        torch.testing.assert_close(
            x.double().mean(0), torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0], dtype=torch.float64), atol=0.01, rtol=0
        )
    y = torch.empty(20000, 5, device=DEV, dtype=torch.bool).bernoulli_(on_device(torch.tensor([0.0, 0.2, 1.0, 0, 0])))
    torch.testing.assert_close(
        y.cpu().double().mean(0), torch.tensor([0.0, 0.2, 1.0, 0, 0], dtype=torch.float64), atol=0.01, rtol=0
    )
    out = torch.empty(0, device=DEV)
    torch.bernoulli(p.to(DEV), out=out)
    assert out.shape == p.shape


def on_device(t):
    return t.to(DEV)


def test_empty_and_0d(native_only):
    for fill in [
        lambda t: t.uniform_(),
        lambda t: t.normal_(),
        lambda t: t.bernoulli_(0.5),
        lambda t: t.random_(),
        lambda t: t.exponential_(),
    ]:
        assert fill(torch.empty(0, 3, device=DEV)).shape == (0, 3)
        s = fill(torch.empty((), device=DEV))
        assert s.shape == () and math.isfinite(s.item())


def test_noncontiguous_outputs(native_only):
    base = torch.zeros(64, 32, device=DEV)
    view = base.t()[::2]  # a strided view: only its elements change
    view.uniform_(1, 2)
    c = base.cpu()
    changed = c.t()[::2]
    assert changed.min() >= 1 and changed.max() < 2
    assert (c.t()[1::2] == 0).all()


# ---- reproducibility -------------------------------------------------------------------------------------------


def test_seed_reproduces_and_layout_independence(native_only):
    torch.infini.manual_seed(1234)
    a = torch.randn(1000, device=DEV).cpu()
    b = torch.rand(10, 100, device=DEV).cpu()
    torch.infini.manual_seed(1234)
    a2 = torch.randn(10, 100, device=DEV).cpu()  # one stream: the same values whatever the shape
    b2 = torch.rand(1000, device=DEV).cpu()
    assert torch.equal(a, a2.view(-1)) and torch.equal(b.view(-1), b2)
    torch.infini.manual_seed(1235)
    assert not torch.equal(torch.randn(1000, device=DEV).cpu(), a)


def test_consecutive_draws_differ_and_state_roundtrip(native_only):
    torch.infini.manual_seed(5)
    x = torch.rand(100, device=DEV).cpu()
    state = torch.infini.get_rng_state()
    assert state.dtype == torch.uint8 and state.numel() == 16
    y = torch.rand(100, device=DEV).cpu()
    assert not torch.equal(x, y)
    torch.infini.set_rng_state(state)
    assert torch.equal(torch.rand(100, device=DEV).cpu(), y)
    with pytest.raises(RuntimeError, match="16 bytes"):
        torch.infini.set_rng_state(torch.zeros(5, dtype=torch.uint8))


def test_explicit_generators_are_independent(native_only):
    g1 = torch.Generator(device=DEV).manual_seed(7)
    g2 = torch.Generator(device=DEV).manual_seed(7)
    a = torch.randn(50, device=DEV, generator=g1).cpu()
    torch.randn(10, device=DEV)  # the default generator does not move g2
    b = torch.randn(50, device=DEV, generator=g2).cpu()
    assert torch.equal(a, b)
    assert g1.get_state().numel() == 16 and g1.initial_seed() == 7
    with pytest.raises(RuntimeError, match="generator of the infini device"):
        torch.empty(3, device=DEV).uniform_(generator=torch.Generator())


def test_thread_split_does_not_change_values(native_only):
    # a large call is split over the kernel threads; its prefix equals a small call's values at the same offset
    torch.infini.manual_seed(99)
    small = torch.rand(5000, device=DEV).cpu()
    torch.infini.manual_seed(99)
    large = torch.rand(400000, device=DEV).cpu()
    assert torch.equal(large[:5000], small)


# ---- dropout ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_dropout_mask_and_scale(native_only, dtype):
    x = (torch.rand(200, 500) + 0.5).to(dtype)
    xi = x.to(DEV).requires_grad_()
    y = F.dropout(xi, p=0.2, training=True)
    yc = y.detach().cpu()
    kept = yc != 0
    near(kept.double().mean().item(), 0.8, 0.01)
    torch.testing.assert_close(yc[kept], (x / 0.8)[kept], rtol=1e-2 if dtype != torch.float64 else 1e-7, atol=0)
    y.backward(torch.ones_like(y))
    g = xi.grad.cpu()
    assert torch.equal(g != 0, kept)
    torch.testing.assert_close(
        g[kept].double(), torch.full((int(kept.sum()),), 1 / 0.8, dtype=torch.float64), rtol=1e-2, atol=0
    )
    assert torch.equal(F.dropout(xi, p=0.2, training=False).detach().cpu(), x)


def test_native_dropout_edges(native_only):
    x = torch.randn(1000, device=DEV)
    out, mask = torch.native_dropout(x, 0.0, True)
    assert torch.equal(out.cpu(), x.cpu()) and mask.dtype == torch.bool and bool(mask.cpu().all())
    out, mask = torch.native_dropout(x, 1.0, True)
    assert torch.equal(out.cpu(), torch.zeros(1000)) and not bool(mask.cpu().any())
    out, mask = torch.native_dropout(x, 0.5, False)
    assert torch.equal(out.cpu(), x.cpu()) and bool(mask.cpu().all())
    e = torch.empty(0, 4, device=DEV)
    out, mask = torch.native_dropout(e, 0.5, True)
    assert out.shape == (0, 4) and mask.shape == (0, 4)
    grad = torch.ops.aten.native_dropout_backward(
        torch.ones(4, device=DEV), torch.tensor([True, False, True, False], device=DEV), 2.0
    )
    assert torch.equal(grad.cpu(), torch.tensor([2.0, 0.0, 2.0, 0.0]))


# ---- randperm / multinomial ------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 7, 1000])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32])
def test_randperm_is_a_permutation(native_only, n, dtype):
    p = torch.randperm(n, device=DEV, dtype=dtype)
    assert p.dtype == dtype and p.device.type == "infini"
    assert torch.equal(p.cpu().long().sort().values, torch.arange(n))


def test_randperm_reproducible_and_uniform(native_only):
    torch.infini.manual_seed(3)
    a = torch.randperm(50, device=DEV).cpu()
    torch.infini.manual_seed(3)
    assert torch.equal(torch.randperm(50, device=DEV).cpu(), a)
    firsts = torch.stack([torch.randperm(4, device=DEV).cpu()[0] for _ in range(2000)])
    assert (torch.bincount(firsts, minlength=4).double() / 2000 - 0.25).abs().max() < 0.04
    with pytest.raises(RuntimeError, match="negative dimension"):
        torch.randperm(-1, device=DEV)


def test_multinomial_frequencies():
    # multinomial's checks and its draw use max / min / sum / argmax / topk / cumsum: reductions and a sort, which
    # run through the fallback until those families land; the random draws themselves are infini's
    probs = torch.tensor([[0.1, 0.0, 0.6, 0.3], [0.25, 0.25, 0.25, 0.25]])
    s = torch.multinomial(probs.to(DEV), 20000, replacement=True).cpu()
    assert s.shape == (2, 20000)
    freq = torch.stack([torch.bincount(r, minlength=4) for r in s]).double() / 20000
    torch.testing.assert_close(freq, probs.double(), atol=0.015, rtol=0)
    w = torch.multinomial(probs.to(DEV), 3, replacement=False).cpu()
    assert all(len(set(r.tolist())) == 3 for r in w) and 1 not in w[0].tolist()
    one = torch.stack([torch.multinomial(probs[0].to(DEV), 1).cpu() for _ in range(500)]).view(-1)
    assert 1 not in one.tolist()
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        torch.multinomial(probs.to(DEV), 5)


# ---- argument checks -------------------------------------------------------------------------------------------


def test_bad_arguments_raise_torch_messages_and_leave_self(native_only):
    x = torch.zeros(4, device=DEV)
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range"):
        x.uniform_(2, 1)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        x.normal_(0, -1)
    with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in"):
        x.bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        x.random_(5, 5)
    with pytest.raises(RuntimeError, match="geometric_ expects p to be in"):
        x.geometric_(0)
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0"):
        x.exponential_(-1)
    with pytest.raises(RuntimeError, match="check_uniform_bounds"):
        torch.zeros(3, dtype=torch.int64, device=DEV).uniform_()
    assert torch.equal(x.cpu(), torch.zeros(4))
