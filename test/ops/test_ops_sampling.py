"""topk_softmax, random_sample and paged_caching against plain-PyTorch references of docs/ops.md."""

import pytest
import torch
from _devices import OP_DEVICES as DEVICES  # noqa: E402
from torch.library import opcheck

import infinicore_torch  # noqa: F401
from infinicore_torch import ops

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
I = torch.ops.infini


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


def ref_topk_softmax(logits, k, renormalize):
    p = torch.softmax(logits.cpu().float(), -1)
    values, order = torch.sort(p, dim=-1, descending=True, stable=True)  # ties: lower index first
    w, idx = values[:, :k], order[:, :k]
    if renormalize:
        w = w / w.sum(-1, keepdim=True)
    return w, idx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tokens, experts, k", [(1, 8, 2), (7, 64, 6), (83, 160, 8), (5, 3, 3)])
@pytest.mark.parametrize("renormalize", [False, True])
def test_topk_softmax(device, dtype, tokens, experts, k, renormalize):
    logits = torch.randn(tokens, experts).to(dtype).to(device)
    w, idx = ops.topk_softmax(logits, k, renormalize)
    rw, ridx = ref_topk_softmax(logits, k, renormalize)
    assert w.dtype == torch.float32 and idx.dtype == torch.int64
    assert torch.equal(idx.cpu(), ridx)
    torch.testing.assert_close(w.cpu(), rw, rtol=1e-5, atol=1e-6)


def test_topk_softmax_ties_take_the_lower_index():
    logits = torch.tensor([[1.0, 3.0, 3.0, 0.0, 3.0]])
    _, idx = ops.topk_softmax(logits, 2)
    assert idx.tolist() == [[1, 2]]


def ref_random_sample(logits, r, topp, topk, temperature, acc=torch.float32):
    """docs/ops.md, in float32 (acc: the precision of the softmax and its cumulative sum)."""
    x = logits.cpu().to(acc)
    if topk <= 1 or topp <= 0:
        return int(torch.argmax(x))  # first maximum
    values, order = torch.sort(x, descending=True, stable=True)
    c = torch.cumsum(torch.softmax(values / temperature, -1), -1)
    k = min(topk, x.numel())
    threshold = min(float(c[k - 1]), topp) * r
    i = int(torch.nonzero(c > threshold)[0])
    near = abs(float(c[i]) - threshold) < 1e-5 or (i > 0 and abs(float(c[i - 1]) - threshold) < 1e-5)
    return int(order[i]), near


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("vocab", [1, 7, 1000, 32000])
@pytest.mark.parametrize("topp, topk, temperature", [(0.9, 50, 1.0), (1.0, 10**6, 0.7), (0.5, 3, 1.3)])
def test_random_sample_matches_the_reference(device, dtype, vocab, topp, topk, temperature):
    logits = (torch.randn(4, vocab) * 3).to(dtype)
    rvals = torch.rand(4)
    got = ops.random_sample(logits.to(device), rvals.to(device), topp, topk, temperature).cpu()
    for b in range(4):
        want, near = ref_random_sample(logits[b], float(rvals[b]), topp, topk, temperature)
        if not near:  # docs/ops.md allows a difference only within float32 rounding of the threshold
            assert int(got[b]) == want, (b, int(got[b]), want)
    one = ops.random_sample(logits[0].to(device), 0.25, topp, topk, temperature)
    assert one.dim() == 0 and one.dtype == torch.int64


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [1, 5, 33, 140])
def test_random_sample_long_rows(device, dtype, batch):
    """Rows of 40000 (the nvidia backend splits a row over a cluster of 2-8 blocks while the batch leaves SMs
    free, and takes a block a row at 140): sampling against the reference; more candidates than one block
    sorts (1100 logits tied at the top: the path after the candidates' sort); the argmax with the best logit
    at places far apart (the lower index wins). Where the float32 reference and the same in float64 differ
    (a cumulative probability within float32 rounding of the threshold, as docs/ops.md allows), either is taken."""
    g = torch.Generator().manual_seed(batch)
    vocab = 40000
    logits = (torch.randn(batch, vocab, generator=g) * 4).to(dtype)
    tied = logits.clone()
    for b in range(batch):
        tied[b, torch.randperm(vocab, generator=g)[:1100]] = 30.0
    rvals = torch.rand(batch, generator=g)
    for x, topp, topk, temperature in [(logits, 0.9, 50, 0.7), (tied, 0.8, 10**6, 1.0), (tied, 0.9, 50, 1.0)]:
        got = ops.random_sample(x.to(device), rvals.to(device), topp, topk, temperature).cpu()
        for b in range(batch):
            want, near = ref_random_sample(x[b], float(rvals[b]), topp, topk, temperature)
            want64, _ = ref_random_sample(x[b], float(rvals[b]), topp, topk, temperature, torch.float64)
            if not near:
                assert int(got[b]) in (want, want64), (b, int(got[b]), want, want64)
    peaks = logits.clone()
    peaks[:, 37000] = 40.0
    peaks[:, 20001] = 40.0
    peaks[0, 5] = 40.0  # row 0: a third, earlier one
    got = ops.random_sample(peaks.to(device), rvals.to(device), 0.9, 1, 1.0).cpu()
    assert got.tolist() == [5] + [20001] * (batch - 1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("batch", [1, 16])
def test_random_sample_vocabulary_rows_every_setting(device, dtype, batch):
    """Rows of a 151936-token vocabulary under each setting users pass: top-k with top-p and a temperature, top-p
    alone, top-k alone, a top-k past what one block sorts (the mass search), pure sampling (top-p 1, no top-k);
    and logits packed so close that thousands tie at each value (bf16: the tie at the crossing is found in index
    order among more ties than one block keeps). Each row against docs/ops.md's rule in float32 (or float64 where
    the two differ within rounding)."""
    g = torch.Generator().manual_seed(7 + batch)
    vocab = 151936
    spread = (torch.randn(batch, vocab, generator=g) * 3).to(dtype)
    packed = (torch.randn(batch, vocab, generator=g) * 0.05).to(dtype)
    rvals = torch.rand(batch, generator=g)
    settings = [(spread, 0.9, 50, 0.7), (spread, 0.95, 10**6, 1.0), (spread, 1.0, 40, 1.0), (spread, 0.9, 5000, 1.0)]
    settings += [(spread, 1.0, 10**6, 1.0), (packed, 0.95, 10**6, 1.0), (packed, 0.9, 3000, 1.0)]
    for x, topp, topk, temperature in settings:
        got = ops.random_sample(x.to(device), rvals.to(device), topp, topk, temperature).cpu()
        for b in range(batch):
            want, near = ref_random_sample(x[b], float(rvals[b]), topp, topk, temperature)
            want64, _ = ref_random_sample(x[b], float(rvals[b]), topp, topk, temperature, torch.float64)
            if not near:
                assert int(got[b]) in (want, want64), (topp, topk, b, int(got[b]), want, want64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype, rows", [(torch.bfloat16, 16), (torch.bfloat16, 256), (torch.float32, 16)])
def test_sampling_step_back_to_back(device, dtype, rows):
    """A sampling step's chain over a 128256-token vocabulary, each op reading what the kernel just before it wrote:
    a torch multiply writes the logits, our softmax reads them (on the GPU: split over a cluster of blocks at 16
    rows, the bulk / hold kernels at 256), our add writes logits + probabilities, random_sample reads them - three
    steps queued behind a busy GPU (on sm_90+ the nvidia backend launches these kernels as programmatic dependents
    that wait for the kernel before them). Outputs start as NaN; softmax and add are checked against float32 torch
    of their inputs, and each sample against docs/ops.md's rule applied to its logits as stored."""
    vocab, steps, topp, topk, temp = 128256, 3, 0.9, 50, 1.0
    g = torch.Generator().manual_seed(rows)
    xs = [torch.randn(rows, vocab, generator=g).to(dtype).to(device) for _ in range(steps)]
    rs = [torch.rand(rows, generator=g).to(device) for _ in range(steps)]

    def nan():
        return torch.full((rows, vocab), float("nan"), dtype=dtype, device=device)

    logits, probs, mixed = [nan() for _ in range(steps)], [nan() for _ in range(steps)], [nan() for _ in range(steps)]
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda._sleep(20_000_000)  # the GPU busy for milliseconds: the whole chain is queued behind it
    samples = []
    for k in range(steps):
        torch.mul(xs[k], 4.0, out=logits[k])  # a torch kernel writes the logits
        I.softmax.out(logits[k], -1, out=probs[k])
        I.add.out(logits[k], probs[k], out=mixed[k])
        samples.append(ops.random_sample(mixed[k], rs[k], topp, topk, temp))
    tol = dict(rtol=1.6e-2, atol=1e-6) if dtype == torch.bfloat16 else dict(rtol=1e-4, atol=1e-6)
    for k in range(steps):
        lg, p, m = logits[k].cpu().float(), probs[k].cpu().float(), mixed[k].cpu().float()
        torch.testing.assert_close(p, torch.softmax(lg, -1).to(dtype).float(), **tol)
        torch.testing.assert_close(m, (lg + p).to(dtype).float(), **tol)
        # docs/ops.md's rule on every row at once: sort, softmax of value / temperature, cumulative sum, the first
        # position above min(top-k mass, top-p) * r (a position within float32 rounding of it may go either way)
        values, order = torch.sort(m, dim=-1, descending=True, stable=True)
        c = torch.cumsum(torch.softmax(values / temp, -1), -1)
        thr = torch.minimum(c[:, topk - 1], torch.tensor(topp)) * rs[k].cpu()
        i = (c > thr[:, None]).int().argmax(-1)
        want = order.gather(-1, i[:, None]).squeeze(-1)
        ci = c.gather(-1, i[:, None]).squeeze(-1)
        before = c.gather(-1, (i - 1).clamp(min=0)[:, None]).squeeze(-1)
        near = ((ci - thr).abs() < 1e-5) | ((i > 0) & ((before - thr).abs() < 1e-5))
        got = samples[k].cpu()
        assert got.shape == (rows,) and got.dtype == torch.int64
        assert torch.equal(got[~near], want[~near]), (k, got[~near][:8], want[~near][:8])
        assert int(near.sum()) <= rows // 4 and int((i > 0).sum()) >= rows // 2  # decided rows, and not all argmax


@pytest.mark.parametrize("device", DEVICES)
def test_random_sample_argmax_modes_and_ties(device):
    logits = torch.tensor([0.5, 2.0, 2.0, -1.0]).to(device)
    assert int(ops.random_sample(logits, 0.99, 0.9, 1, 1.0)) == 1  # topk <= 1
    assert int(ops.random_sample(logits, 0.99, 0.0, 50, 1.0)) == 1  # topp <= 0
    assert int(ops.random_sample(logits, 0.0, 0.9, 50, 1.0)) == 1  # r = 0: the best candidate


def test_random_sample_bad_input():
    x = torch.randn(10)
    with pytest.raises(RuntimeError, match="infini.random_sample: temperature must be > 0"):
        ops.random_sample(x, 0.5, 0.9, 5, 0.0)
    with pytest.raises(RuntimeError, match=r"infini.random_sample: random_val must be in \[0, 1\)"):
        ops.random_sample(x, 1.5, 0.9, 5, 1.0)
    with pytest.raises(RuntimeError, match="infini.random_sample: logits must be"):
        ops.random_sample(torch.randn(2, 3, 4), 0.5, 0.9, 5, 1.0)
    with pytest.raises(RuntimeError, match="infini.random_sample: random_val must be"):
        ops.random_sample(torch.randn(3, 10), torch.rand(2), 0.9, 5, 1.0)


def ref_paged_caching(k, v, kc, vc, slots):
    kc, vc = kc.clone(), vc.clone()
    bs = kc.shape[2]
    for t, s in enumerate(slots.tolist()):
        if s >= 0:
            kc[s // bs, :, s % bs] = k[t]
            vc[s // bs, :, s % bs] = v[t]
    return kc, vc


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block_size", [8, 16, 32])
@pytest.mark.parametrize("heads, head_dim", [(2, 64), (8, 128), (1, 256)])
def test_paged_caching(device, dtype, block_size, heads, head_dim):
    tokens, blocks = 7, 5
    k = torch.randn(tokens, heads, head_dim).to(dtype)
    v = torch.randn(tokens, heads, head_dim).to(dtype)
    kc = torch.randn(blocks, heads, block_size, head_dim).to(dtype)
    vc = torch.randn(blocks, heads, block_size, head_dim).to(dtype)
    slots = torch.randperm(blocks * block_size)[:tokens]
    slots[3] = -1  # a padding token
    rk, rv = ref_paged_caching(k, v, kc, vc, slots)
    dk, dv = kc.to(device), vc.to(device)
    ops.paged_caching(k.to(device), v.to(device), dk, dv, slots.to(device).to(torch.int32))
    assert torch.equal(dk.cpu(), rk) and torch.equal(dv.cpu(), rv)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slot_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("tokens", [64, 1027, 4099])
def test_paged_caching_many_tokens(device, dtype, slot_dtype, tokens):
    # more tokens (the GPU's kernels past decode batches: 16-byte pieces from 9 tokens; several tokens a
    # thread for prefill batches, a partial last group)
    heads, head_dim, block_size = 8, 128, 16
    blocks = (tokens + 200) // block_size
    g = torch.Generator().manual_seed(tokens)
    k = torch.randn(tokens, heads, head_dim, generator=g).to(dtype)
    v = torch.randn(tokens, heads, head_dim, generator=g).to(dtype)
    kc = torch.randn(blocks, heads, block_size, head_dim, generator=g).to(dtype)
    vc = torch.randn(blocks, heads, block_size, head_dim, generator=g).to(dtype)
    slots = torch.randperm(blocks * block_size, generator=g)[:tokens]
    slots[[0, tokens // 2, tokens - 1]] = -1  # padding tokens, the last one among them
    rk, rv = ref_paged_caching(k, v, kc, vc, slots)
    dk, dv = kc.to(device), vc.to(device)
    ops.paged_caching(k.to(device), v.to(device), dk, dv, slots.to(device).to(slot_dtype))
    assert torch.equal(dk.cpu(), rk) and torch.equal(dv.cpu(), rv)


def test_paged_caching_out_of_range_slot_raises_and_writes_nothing():
    k = torch.randn(3, 2, 8)
    kc = torch.zeros(2, 2, 4, 8)
    vc = torch.zeros(2, 2, 4, 8)
    with pytest.raises(RuntimeError, match=r"paged_caching: index 8 in slot_mapping is out of range \[0, 8\)"):
        ops.paged_caching(k, k, kc, vc, torch.tensor([0, 8, 1]))
    assert kc.abs().sum() == 0 and vc.abs().sum() == 0
    with pytest.raises(RuntimeError, match="infini.paged_caching: k_cache must be"):
        ops.paged_caching(k, k, torch.zeros(2, 3, 4, 8), vc, torch.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="infini.paged_caching: slot_mapping must be int32 or int64"):
        ops.paged_caching(k, k, kc, vc, torch.tensor([0.0, 1.0, 2.0]))


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device):
    checks = ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic")
    cases = [
        (I.topk_softmax.default, (torch.randn(5, 16).to(device), 4, True)),
        (I.random_sample.default, (torch.randn(3, 50).to(device), 0.3, 0.9, 5, 1.0)),
        (I.random_sample.tensor, (torch.randn(3, 50).to(device), torch.rand(3).to(device), 0.9, 5, 1.0)),
        (
            I.paged_caching.default,
            (
                torch.randn(3, 2, 8).to(device),
                torch.randn(3, 2, 8).to(device),
                torch.zeros(2, 2, 4, 8).to(device),
                torch.zeros(2, 2, 4, 8).to(device),
                torch.tensor([0, 5, -1]).to(device),
            ),
        ),
    ]
    for op, args in cases:
        result = opcheck(op, args, test_utils=checks)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)


def test_descriptor_cache_is_bounded_and_evicted_entries_rebuild():
    from infinicore_torch import _C

    x = torch.randn(2, 50)
    r = torch.tensor([0.3, 0.7])
    first = ops.random_sample(x, r, 0.9, 5, 0.5)
    for i in range(_C._max_cached_descriptors + 100):  # one descriptor per distinct temperature
        ops.random_sample(x, r, 0.9, 5, 0.6 + i * 1e-5)
    assert _C._cached_descriptor_count() <= _C._max_cached_descriptors
    assert torch.equal(ops.random_sample(x, r, 0.9, 5, 0.5), first)  # evicted, made again, same answer


def test_paged_caching_with_zero_block_size_is_refused():
    k = torch.randn(3, 2, 8)
    empty = torch.zeros(2, 2, 0, 8)
    with pytest.raises(RuntimeError, match="paged_caching: k_cache must be"):
        ops.paged_caching(k, k, empty, empty.clone(), torch.tensor([0, 1, 2]))
