"""attention, paged_attention and paged_attention_prefill against a float32 reference."""

import math

import pytest
import torch
from _devices import CUDA  # noqa: E402
from _devices import OP_DEVICES as DEVICES
from torch.library import opcheck

import infinicore_torch  # noqa: F401
from infinicore_torch import ops

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
TOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 2e-2}
I = torch.ops.infini


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


def attend(q, keys, values, scale, bias=None):
    """q [d]; keys/values [n, d] -> [d], in float32."""
    s = keys.float() @ q.float() * scale
    if bias is not None:
        s = s + bias
    return torch.softmax(s, 0) @ values.float()


def close(out, ref, dtype):
    torch.testing.assert_close(out.cpu().float(), ref.to(dtype).float(), rtol=TOL[dtype] * 2, atol=TOL[dtype] * 2)


def make_paged(seq_lens, kv_heads, d, block_size, dtype, extra_blocks=3):
    """Random per-sequence K/V, scattered into a paged cache with shuffled block tables."""
    blocks_per = [math.ceil(n / block_size) for n in seq_lens]
    max_blocks = max(max(blocks_per), 1)
    total = sum(blocks_per) + extra_blocks
    kc = torch.randn(total, kv_heads, block_size, d).to(dtype)
    vc = torch.randn(total, kv_heads, block_size, d).to(dtype)
    perm = torch.randperm(total)
    tables = torch.zeros(len(seq_lens), max_blocks, dtype=torch.int32)
    keys, values, used = [], [], 0
    for s, n in enumerate(seq_lens):
        k, v = torch.randn(n, kv_heads, d).to(dtype), torch.randn(n, kv_heads, d).to(dtype)
        for b in range(blocks_per[s]):
            tables[s, b] = perm[used]
            rows = slice(b * block_size, min(n, (b + 1) * block_size))
            cnt = rows.stop - rows.start
            kc[perm[used], :, :cnt] = k[rows].transpose(0, 1)
            vc[perm[used], :, :cnt] = v[rows].transpose(0, 1)
            used += 1
        keys.append(k)
        values.append(v)
    return kc, vc, tables, keys, values


def check_decode(device, dtype, seq_lens, heads, kv_heads, d, block_size, slopes):
    """paged_attention over seq_lens against attend() per sequence and head (ALiBi bias when slopes)."""
    kc, vc, tables, keys, values = make_paged(seq_lens, kv_heads, d, block_size, dtype)
    q = torch.randn(len(seq_lens), heads, d).to(dtype)
    scale = 1 / math.sqrt(d)
    group = heads // kv_heads
    ref = torch.stack(
        [
            torch.stack(
                [
                    attend(
                        q[s, h],
                        keys[s][:, h // group],
                        values[s][:, h // group],
                        scale,
                        None if slopes is None else slopes[h] * (torch.arange(n) - (n - 1)),
                    )
                    for h in range(heads)
                ]
            )
            for s, n in enumerate(seq_lens)
        ]
    )
    lens = torch.tensor(seq_lens)
    out = ops.paged_attention(
        q.to(device),
        kc.to(device),
        vc.to(device),
        tables.to(device),
        lens.to(device),
        None if slopes is None else slopes.to(device),
        scale,
    )
    close(out, ref, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads, kv_heads, d", [(4, 4, 64), (8, 2, 128), (4, 1, 256)])
@pytest.mark.parametrize("block_size", [8, 16, 32])
@pytest.mark.parametrize("alibi", [False, True])
def test_paged_attention_decode(device, dtype, heads, kv_heads, d, block_size, alibi):
    check_decode(device, dtype, [1, 7, 40, 83], heads, kv_heads, d, block_size, torch.rand(heads) if alibi else None)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads, kv_heads, d", [(32, 4, 128), (6, 2, 64), (2, 2, 256)])
@pytest.mark.parametrize("alibi", [False, True])
def test_paged_attention_decode_long(device, dtype, heads, kv_heads, d, alibi):
    """Contexts long enough to be split into several partitions (and merged), GQA groups of 8 and 3."""
    check_decode(device, dtype, [1, 300, 1029, 2048], heads, kv_heads, d, 16, torch.rand(heads) / 64 if alibi else None)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("heads, kv_heads", [(32, 8), (8, 8)])
def test_decode_step_back_to_back(device, dtype, heads, kv_heads):
    """A decode step's chain, each op reading what the kernel just before it wrote: linear over 4 rows (the GPU's
    gemv), paged_attention (the tensor-core decode for 32/8 heads, the CUDA-core one for 8/8), linear, three times,
    queued behind a busy GPU (on sm_90+ the nvidia backend launches these kernels as programmatic dependents). Every
    output buffer starts as NaN and each step is checked against float32 of its own inputs."""
    d, seq_lens = 64, [1, 300, 1029, 77]
    hidden, seqs, scale = heads * d, len(seq_lens), 1 / math.sqrt(64)
    kc, vc, tables, keys, values = make_paged(seq_lens, kv_heads, d, 16, dtype)
    wq = (torch.randn(hidden, hidden) / math.sqrt(hidden)).to(dtype)
    wo = (torch.randn(hidden, hidden) / math.sqrt(hidden)).to(dtype)
    x0 = torch.randn(seqs, hidden).to(dtype)
    dev = [t.to(device) for t in (kc, vc, tables, torch.tensor(seq_lens), wq, wo, x0)]
    kcd, vcd, tbd, lensd, wqd, wod, x0d = dev

    def nan(*shape):
        return torch.full(shape, float("nan"), dtype=dtype, device=device)

    bufs = [dict(q=nan(seqs, hidden), a=nan(seqs, heads, d), x=nan(seqs, hidden)) for _ in range(3)]
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda._sleep(20_000_000)  # the GPU busy for milliseconds: the whole chain is queued behind it
    x = x0d
    for o in bufs:
        I.linear.out(x, wqd, None, out=o["q"])
        I.paged_attention.out(o["q"].view(seqs, heads, d), kcd, vcd, tbd, lensd, None, scale, out=o["a"])
        I.linear.out(o["a"].view(seqs, hidden), wod, None, out=o["x"])
        x = o["x"]
    x = x0
    group = heads // kv_heads
    for o in bufs:
        q, a = o["q"].cpu(), o["a"].cpu()
        close(q, x.float() @ wq.float().T, dtype)
        ref = torch.stack(
            [
                torch.stack(
                    [
                        attend(q.view(seqs, heads, d)[s, h], keys[s][:, h // group], values[s][:, h // group], scale)
                        for h in range(heads)
                    ]
                )
                for s in range(seqs)
            ]
        )
        close(a, ref, dtype)
        close(o["x"], a.view(seqs, hidden).float() @ wo.float().T, dtype)
        x = o["x"].cpu()


# Many short sequences, 32 query heads on 8 kv heads: on the GPU the little decode plan of one 8-warp block a
# (sequence, kv head), one partition (16 sequences x 8 kv heads fill the SMs); lengths 1 to the table's 512 tokens.
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("d", [64, 128])
def test_paged_attention_decode_many_short_sequences(device, dtype, d):
    check_decode(
        device, dtype, [1, 16, 17, 100, 255, 256, 257, 300, 384, 400, 450, 480, 500, 511, 512, 3], 32, 8, d, 16, None
    )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("heads, kv_heads, d", [(32, 8, 128), (8, 8, 128), (4, 2, 64)])
def test_paged_attention_ignores_what_lies_past_the_length(device, dtype, heads, kv_heads, d):
    """Only a sequence's first seq_lens[s] tokens count: table entries past them may be anything (here -1 and
    ids past the cache, which must not raise), and cache rows past them may hold NaN (stale memory). Lengths
    end mid-block, at a block's end, at 0, and within the first 16 tokens of a partition."""
    lens_list = [0, 5, 16, 77, 300, 1000]
    kc, vc, tables, keys, values = make_paged(lens_list, kv_heads, d, 16, dtype)
    max_blocks = tables.shape[1] + 3
    wide = torch.full((len(lens_list), max_blocks), -1, dtype=torch.int32)
    wide[:, : tables.shape[1]] = tables
    for s, n in enumerate(lens_list):
        used = (n + 15) // 16
        wide[s, used:] = torch.tensor([-1, 10**9, kc.shape[0]] * max_blocks, dtype=torch.int32)[: max_blocks - used]
        if n % 16:  # the rest of the last block's rows: NaN
            kc[tables[s, used - 1], :, n % 16 :] = float("nan")
            vc[tables[s, used - 1], :, n % 16 :] = float("nan")
    q = torch.randn(len(lens_list), heads, d).to(dtype)
    scale = 1 / math.sqrt(d)
    group = heads // kv_heads
    ref = torch.stack(
        [
            torch.stack(
                [
                    attend(q[s, h], keys[s][:, h // group], values[s][:, h // group], scale) if n else torch.zeros(d)
                    for h in range(heads)
                ]
            )
            for s, n in enumerate(lens_list)
        ]
    )
    args = [x.to(device) for x in (q, kc, vc, wide, torch.tensor(lens_list))]
    out = ops.paged_attention(*args, None, scale)
    run_and_surface_errors(device, lambda: ops.paged_attention(*args, None, scale))  # (raises if it reported)
    assert torch.isfinite(out.cpu().float()).all()
    close(out, ref, dtype)


def paged_copy(k, v, bs):
    """Contiguous keys/values [seqs, kv_heads, ctx, d] as a paged cache of blocks of bs tokens in a shuffled
    order: (k_cache, v_cache [blocks, kv_heads, bs, d], block_tables [seqs, ctx / bs] int32)."""
    seqs, kv_heads, ctx, d = k.shape
    nb = seqs * ctx // bs
    perm = torch.randperm(nb).to(k.device)
    kc = torch.empty(nb, kv_heads, bs, d, device=k.device, dtype=k.dtype)
    vc = torch.empty_like(kc)
    kc[perm] = k.view(seqs, kv_heads, ctx // bs, bs, d).transpose(1, 2).reshape(nb, kv_heads, bs, d)
    vc[perm] = v.view(seqs, kv_heads, ctx // bs, bs, d).transpose(1, 2).reshape(nb, kv_heads, bs, d)
    return kc, vc, perm.view(seqs, ctx // bs).to(torch.int32)


def test_paged_copy_holds_the_same_rows():
    k, v = torch.randn(3, 2, 32, 4), torch.randn(3, 2, 32, 4)
    kc, vc, tables = paged_copy(k, v, 8)
    for s in range(3):
        for t in range(32):
            assert torch.equal(kc[tables[s, t // 8], :, t % 8], k[s, :, t])
            assert torch.equal(vc[tables[s, t // 8], :, t % 8], v[s, :, t])


def decode_ref(q, k, v, lens, scale):
    """Decode's reference: float32 SDPA (GQA native) of q [seqs, heads, d] over the first lens[s] of the keys and
    values stored contiguously [seqs, kv_heads, ctx, d], on their device; returned on the CPU."""
    mask = (torch.arange(k.shape[2]) < lens[:, None]).to(k.device)[:, None, None, :]  # [seqs, 1, 1, ctx]
    return (
        torch.nn.functional.scaled_dot_product_attention(
            q.float().unsqueeze(2), k.float(), v.float(), attn_mask=mask, scale=scale, enable_gqa=True
        )
        .squeeze(2)
        .cpu()
    )


@pytest.mark.skipif(not CUDA, reason="a GPU-size case: only where the nvidia backend sees a GPU")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("bs", [8, 16, 32])
def test_paged_attention_decode_much_work_cuda(dtype, d, bs):
    """Enough sequences x kv heads x tokens (2^19) that the nvidia tensor-core decode takes its plan for
    much work (partitions merged by a second kernel; keys/values by bulk copies into shared memory where
    the GPU has them), which the small cases above do not reach; lengths differ, so partitions run short
    or empty, and the cache rows past each sequence's end hold NaN (never to reach the output, not even
    as 0 x NaN); block sizes 8, 16 and 32 (an 8-row tile is a whole block, half of one, a quarter).
    Reference: float32 SDPA on the GPU. Then a bad block id on the same plan, reported (as the README
    says) at the next operator call."""
    seqs, heads, kv_heads, ctx = 32, 32, 8, 2048
    dev = torch.device("cuda")
    lens = torch.randint(ctx // 2, ctx + 1, (seqs,))
    lens[0], lens[1] = ctx, 1
    k = torch.randn(seqs, kv_heads, ctx, d, device=dev, dtype=dtype)
    v = torch.randn(seqs, kv_heads, ctx, d, device=dev, dtype=dtype)
    kc, vc, tables = paged_copy(k, v, bs)
    nb = kc.shape[0]
    s_past, t_past = (torch.arange(ctx)[None, :] >= lens[:, None]).nonzero(as_tuple=True)
    past_blocks, past_rows = tables[s_past.to(dev), (t_past // bs).to(dev)].long(), (t_past % bs).to(dev)
    kc[past_blocks, :, past_rows] = float("nan")
    vc[past_blocks, :, past_rows] = float("nan")
    q = torch.randn(seqs, heads, d, device=dev, dtype=dtype)
    scale = 1 / math.sqrt(d)
    dlens = lens.to(device=dev, dtype=torch.int32)
    out = ops.paged_attention(q, kc, vc, tables, dlens, None, scale)
    close(out, decode_ref(q, k, v, lens, scale), dtype)
    bad = tables.clone()
    bad[3, 5] = nb + 7
    ops.paged_attention(q, kc, vc, bad, dlens, None, scale)  # found by the kernel: reported at the next call
    torch.cuda.synchronize()
    with pytest.raises(RuntimeError, match=rf"paged_attention: index {nb + 7} in block_tables is out of range"):
        ops.paged_attention(q, kc, vc, tables, dlens, None, scale)


@pytest.mark.skipif(not CUDA, reason="a GPU-size case: only where the nvidia backend sees a GPU")
@pytest.mark.parametrize("heads,kv_heads", [(32, 2), (24, 4)])
def test_paged_attention_decode_much_work_groups_cuda(heads, kv_heads):
    """The tensor-core decode's plan for much work (bulk copies, partitions merged by a second kernel) with
    other groups than the much-work test's 4: 16 query heads a kv head (two passes of 8 a kv head) and 6 (a
    pass with 6 of its 8 rows); ragged lengths (1 token, 17, a whole context, and between: partitions run
    short or empty). Reference: float32 SDPA on the GPU."""
    seqs, ctx, d, bs, dtype = 64, 2048, 128, 16, torch.bfloat16
    dev = torch.device("cuda")
    lens = torch.randint(1, ctx + 1, (seqs,))
    lens[0], lens[1], lens[2] = ctx, 1, 17
    k = torch.randn(seqs, kv_heads, ctx, d, device=dev, dtype=dtype)
    v = torch.randn(seqs, kv_heads, ctx, d, device=dev, dtype=dtype)
    kc, vc, tables = paged_copy(k, v, bs)
    q = torch.randn(seqs, heads, d, device=dev, dtype=dtype)
    scale = 1 / math.sqrt(d)
    out = ops.paged_attention(q, kc, vc, tables, lens.to(device=dev, dtype=torch.int32), None, scale)
    close(out, decode_ref(q, k, v, lens, scale), dtype)


@pytest.mark.skipif(not CUDA, reason="a GPU-size case: only where the nvidia backend sees a GPU")
@pytest.mark.parametrize("kv_heads", [32, 8])
def test_paged_attention_decode_partitions_on_streams_and_graphs_cuda(kv_heads):
    """Long contexts split into partitions and merged by a second kernel (MHA: the CUDA-core decode; GQA:
    the tensor-core one), with the partitions' workspace and the merge on the caller's stream: calls on
    two streams at once, calls in a row, and calls replayed from a CUDA graph all match float32 SDPA."""
    seqs, heads, ctx, d, bs, dtype = 32, 32, 2048, 128, 16, torch.bfloat16
    dev = torch.device("cuda")
    lens = torch.randint(1, ctx + 1, (seqs,))
    lens[0] = ctx
    k = torch.randn(seqs, kv_heads, ctx, d, device=dev, dtype=dtype)
    v = torch.randn(seqs, kv_heads, ctx, d, device=dev, dtype=dtype)
    kc, vc, tables = paged_copy(k, v, bs)
    dlens = lens.to(device=dev, dtype=torch.int32)
    scale = 1 / math.sqrt(d)
    qs = [torch.randn(seqs, heads, d, device=dev, dtype=dtype) for _ in range(5)]
    refs = [decode_ref(q, k, v, lens, scale) for q in qs]
    del k, v

    def run(q):
        return ops.paged_attention(q, kc, vc, tables, dlens, None, scale)

    torch.cuda.synchronize()
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(a):
        on_a = [run(qs[0]), run(qs[1])]
    with torch.cuda.stream(b):
        on_b = [run(qs[2]), run(qs[3])]
    torch.cuda.synchronize()
    for out, ref in zip(on_a + on_b, refs[:4]):
        close(out, ref, dtype)
    static_q = qs[4].clone()
    run(static_q)  # (the descriptor made before capture)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = run(static_q)
    for i in (4, 0):
        static_q.copy_(qs[i])
        graph.replay()
        torch.cuda.synchronize()
        close(static_out, refs[i], dtype)
    close(run(qs[1]), refs[1], dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads, kv_heads, d", [(4, 4, 64), (8, 2, 128)])
@pytest.mark.parametrize("block_size", [8, 16])
def test_paged_attention_prefill(device, dtype, heads, kv_heads, d, block_size):
    seq_lens, q_lens = [7, 40, 1, 20], [7, 5, 1, 0]  # whole prompt, a chunk after history, one token, none
    kc, vc, tables, keys, values = make_paged(seq_lens, kv_heads, d, block_size, dtype)
    cu = torch.tensor([0] + list(torch.tensor(q_lens).cumsum(0)))
    q = torch.randn(int(cu[-1]), heads, d).to(dtype)
    scale = 1 / math.sqrt(d)
    group = heads // kv_heads
    rows = []
    for s, (n, ql) in enumerate(zip(seq_lens, q_lens)):
        for j in range(ql):
            p = n - ql + j
            rows.append(
                torch.stack(
                    [
                        attend(
                            q[int(cu[s]) + j, h], keys[s][: p + 1, h // group], values[s][: p + 1, h // group], scale
                        )
                        for h in range(heads)
                    ]
                )
            )
    ref = torch.stack(rows)
    out = ops.paged_attention_prefill(
        q.to(device),
        kc.to(device),
        vc.to(device),
        tables.to(device),
        torch.tensor(seq_lens).to(device),
        cu.to(device),
        None,
        scale,
    )
    close(out, ref, dtype)


def causal_ref(q, keys, values, qpos, group, scale):
    """q [rows, heads, d], keys/values [n, kv_heads, d], qpos [rows] -> [rows, heads, d] in float32: row i sees the
    keys at positions <= qpos[i] (causal attention, the query heads grouped over the kv heads)."""
    kk = keys.float().repeat_interleave(group, 1).transpose(0, 1)  # [heads, n, d]
    vv = values.float().repeat_interleave(group, 1).transpose(0, 1)
    s = q.float().transpose(0, 1) @ kk.transpose(1, 2) * scale  # [heads, rows, n]
    s = s.masked_fill(torch.arange(keys.shape[0])[None, None, :] > qpos[None, :, None], float("-inf"))
    return (torch.softmax(s, -1) @ vv).transpose(0, 1)


# Long enough for the tiled kernel on the GPU (16-row warp tiles, 64-key tiles, two stages): prompts and chunks
# after history whose lengths are not multiples of 16 or 64, a sequence with no rows, every grouping of query
# heads over kv heads the kernel has (4, 2 or 1 heads a block: groups 8, 4, 2, 3, 1), block sizes of a power of
# two and not.
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads, kv_heads, d", [(8, 2, 128), (8, 1, 64), (4, 2, 128), (6, 2, 64), (4, 4, 128)])
@pytest.mark.parametrize("block_size", [16, 12])
def test_paged_attention_prefill_long(device, dtype, heads, kv_heads, d, block_size):
    seq_lens, q_lens = [300, 77, 200, 45, 131], [300, 33, 129, 0, 17]
    kc, vc, tables, keys, values = make_paged(seq_lens, kv_heads, d, block_size, dtype)
    cu = torch.tensor([0] + list(torch.tensor(q_lens).cumsum(0)))
    q = torch.randn(int(cu[-1]), heads, d).to(dtype)
    scale = 1 / math.sqrt(d)
    ref = torch.cat(
        [
            causal_ref(
                q[int(cu[s]) : int(cu[s]) + ql], keys[s], values[s], torch.arange(n - ql, n), heads // kv_heads, scale
            )
            for s, (n, ql) in enumerate(zip(seq_lens, q_lens))
        ]
    )
    qd = q.to(device)
    out = ops.paged_attention_prefill(
        qd,
        kc.to(device),
        vc.to(device),
        tables.to(device),
        torch.tensor(seq_lens).to(device),
        cu.to(device),
        None,
        scale,
    )
    close(out, ref, dtype)
    assert torch.equal(qd.cpu(), q)


# More sequences than the GPU's tile-list kernel takes at once (256 a chunk): short prompts and chunks after
# history, some sequences with no rows, every sequence's rows and keys in the right place across the chunks.
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_paged_attention_prefill_many_sequences(device, dtype):
    g = torch.Generator().manual_seed(1)
    n = 300
    q_lens = torch.randint(0, 41, (n,), generator=g)
    q_lens[::37] = 0
    seq_lens = (q_lens + torch.randint(0, 30, (n,), generator=g)).clamp(min=1).tolist()
    q_lens = q_lens.tolist()
    heads, kv_heads, d = 8, 2, 128
    kc, vc, tables, keys, values = make_paged(seq_lens, kv_heads, d, 16, dtype)
    cu = torch.tensor([0] + list(torch.tensor(q_lens).cumsum(0)))
    q = torch.randn(int(cu[-1]), heads, d).to(dtype)
    scale = 1 / math.sqrt(d)
    ref = torch.cat(
        [
            causal_ref(
                q[int(cu[s]) : int(cu[s]) + ql], keys[s], values[s], torch.arange(m - ql, m), heads // kv_heads, scale
            )
            for s, (m, ql) in enumerate(zip(seq_lens, q_lens))
        ]
    )
    out = ops.paged_attention_prefill(
        q.to(device),
        kc.to(device),
        vc.to(device),
        tables.to(device),
        torch.tensor(seq_lens).to(device),
        cu.to(device),
        None,
        scale,
    )
    close(out, ref, dtype)


# Many query rows a sequence (on Hopper the prefill then gathers its keys and values out of the pages into the
# workspace and runs the decoupled kernel; see flashGatherPays): a prompt, chunks after history, lengths not
# multiples of 64, a sequence with no rows, table entries past a sequence's keys left as -1 (never read),
# groupings 4, 3 and 1, blocks of a power of two and not; then an out-of-range entry among a sequence's keys
# raises and names block_tables, the inputs unchanged, and the next good call is right.
@pytest.mark.skipif(not CUDA, reason="a GPU-size case: only where the nvidia backend sees a GPU")
@pytest.mark.parametrize("device", ["cuda", "infini"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("heads, kv_heads, d", [(8, 2, 128), (6, 2, 64), (4, 4, 128)])
@pytest.mark.parametrize("block_size", [16, 12])
def test_paged_attention_prefill_many_rows_cuda(device, dtype, heads, kv_heads, d, block_size):
    seq_lens, q_lens = [1600, 700, 1100, 50], [1500, 700, 900, 0]
    args, ref, scale = prefill_case(device, dtype, heads, kv_heads, d, block_size, seq_lens, q_lens, unused_entries=-1)
    close(ops.paged_attention_prefill(*args, None, scale), ref, dtype)
    bad_entry_raises(device, args, scale, 1, 20)
    close(ops.paged_attention_prefill(*args, None, scale), ref, dtype)


def prefill_case(device, dtype, heads, kv_heads, d, block_size, seq_lens, q_lens, unused_entries=None):
    """A paged_attention_prefill call's arguments on device (q, caches, tables, seq_lens, cu_seqlens_q), its
    reference output and scale; unused_entries: the value of each table's entries past its sequence's keys."""
    kc, vc, tables, keys, values = make_paged(seq_lens, kv_heads, d, block_size, dtype)
    if unused_entries is not None:
        for s, n in enumerate(seq_lens):
            tables[s, math.ceil(n / block_size) :] = unused_entries
    cu = torch.tensor([0] + list(torch.tensor(q_lens).cumsum(0)))
    q = torch.randn(int(cu[-1]), heads, d).to(dtype)
    scale = 1 / math.sqrt(d)
    ref = torch.cat(
        [
            causal_ref(
                q[int(cu[s]) : int(cu[s]) + ql], keys[s], values[s], torch.arange(n - ql, n), heads // kv_heads, scale
            )
            for s, (n, ql) in enumerate(zip(seq_lens, q_lens))
        ]
    )
    return [x.to(device) for x in (q, kc, vc, tables, torch.tensor(seq_lens), cu)], ref, scale


def bad_entry_raises(device, args, scale, seq, page):
    """Block-table entry (seq, page) set out of range: the call raises naming block_tables, inputs unchanged."""
    bad = args[3].clone()
    bad[seq, page] = 999
    bad_args = args[:3] + [bad] + args[4:]
    before = [x.cpu().clone() for x in bad_args]
    with pytest.raises(RuntimeError, match=r"paged_attention_prefill: index 999 in block_tables is out of range"):
        run_and_surface_errors(device, lambda: ops.paged_attention_prefill(*bad_args, None, scale))
    for x, b in zip(bad_args, before):
        assert torch.equal(x.cpu(), b)


# Calls that mix sequences of many query rows with decode rows and short chunks (on Hopper the second is split by
# sequence: the long ones' keys gathered and their tiles run by the decoupled form, the others' by the paged form,
# in one kernel; see flashSplitPays; the first, whose tables hold 2000 tokens, all paged), the long sequences first,
# in the middle and alone; then an out-of-range entry among the keys of a short sequence and of a long one raises
# and names block_tables, the inputs unchanged, and the next call is right.
@pytest.mark.skipif(not CUDA, reason="a GPU-size case: only where the nvidia backend sees a GPU")
@pytest.mark.parametrize("device", ["cuda", "infini"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("heads, kv_heads, d", [(8, 2, 128), (6, 2, 64)])
@pytest.mark.parametrize(
    "seq_lens, q_lens",
    [
        ([1800, 900, 40, 500, 20, 600, 2000], [1700, 1, 1, 37, 0, 600, 3]),
        ([30, 17, 2100, 64, 800], [1, 17, 1500, 64, 513]),
        ([1500], [1100]),
    ],
)
def test_paged_attention_prefill_mixed_cuda(device, dtype, heads, kv_heads, d, seq_lens, q_lens):
    args, ref, scale = prefill_case(device, dtype, heads, kv_heads, d, 16, seq_lens, q_lens)
    close(ops.paged_attention_prefill(*args, None, scale), ref, dtype)
    short = min(range(len(q_lens)), key=lambda s: (q_lens[s] == 0, q_lens[s]))
    long_ = max(range(len(q_lens)), key=lambda s: q_lens[s])
    for s in sorted({short, long_}):
        bad_entry_raises(device, args, scale, s, (seq_lens[s] - 1) // 16)
    close(ops.paged_attention_prefill(*args, None, scale), ref, dtype)


# Short calls (on the GPU: the decode kernels where the pages of 16 or 8 of the cache's rows that the call reads
# lie inside the cache - max_seq = pos + seq + 3 below: all but (2040, 2), whose keys end 3 rows short of a page
# that would pass the cache's end - else the general kernel) and 16+ rows (the tiled kernel), at position 0 and
# after history.
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads, kv_heads, d", [(4, 4, 64), (8, 2, 128), (4, 1, 256), (6, 3, 64)])
@pytest.mark.parametrize(
    "pos, seq",
    [(0, 7), (5, 1), (9, 4), (500, 9), (2044, 1), (2046, 1), (2040, 2), (13, 8), (0, 150), (37, 100), (5, 16)],
)
def test_attention_with_cache(device, dtype, heads, kv_heads, d, pos, seq):
    check_attention(device, dtype, heads, kv_heads, d, pos, seq)


# One new row after a long history, 32 query heads on 8 kv heads (the decode plans that take blocks of 8 warps in
# at most 8 partitions of a cluster on the GPU) and on 32 (MHA).
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kv_heads", [8, 32])
@pytest.mark.parametrize("pos", [1000, 2047])
def test_attention_decode_after_long_history(device, dtype, kv_heads, pos):
    check_attention(device, dtype, 32, kv_heads, 128, pos, 1)


def check_attention(device, dtype, heads, kv_heads, d, pos, seq):
    """attention of seq new rows after pos cached ones: the caches hold the new keys and values at [pos, pos + seq),
    the rest unchanged, and the output matches a causal float32 reference."""
    max_seq = pos + seq + 3
    q = torch.randn(heads, seq, d).to(dtype)
    k = torch.randn(kv_heads, seq, d).to(dtype)
    v = torch.randn(kv_heads, seq, d).to(dtype)
    kc = torch.randn(kv_heads, max_seq, d).to(dtype)
    vc = torch.randn(kv_heads, max_seq, d).to(dtype)
    ref_kc, ref_vc = kc.clone(), vc.clone()
    ref_kc[:, pos : pos + seq], ref_vc[:, pos : pos + seq] = k, v
    ref = causal_ref(
        q.transpose(0, 1),
        ref_kc[:, : pos + seq].transpose(0, 1),
        ref_vc[:, : pos + seq].transpose(0, 1),
        torch.arange(pos, pos + seq),
        heads // kv_heads,
        1 / math.sqrt(d),
    ).transpose(0, 1)
    dkc, dvc = kc.to(device), vc.to(device)
    out = ops.attention(q.to(device), k.to(device), v.to(device), dkc, dvc, pos)
    assert torch.equal(dkc.cpu(), ref_kc) and torch.equal(dvc.cpu(), ref_vc)
    close(out, ref, dtype)


# Calls long enough that on Hopper the tiled kernel's persistent blocks (dense attention and one-sequence prefills:
# at most a block an SM) take two or more tiles of rows each, each tile issuing the next one's query rows and first
# key tiles: 1100 rows (35 tiles of 32 rows for each of 8 blocks of heads: 280 tiles), at position 0 (tiles of one
# and two key tiles, whose copies of the next tile start in the prologue) and after history, groupings 4 and 8.
@pytest.mark.skipif(not CUDA, reason="a GPU-size case: only where the nvidia backend sees a GPU")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("heads, kv_heads, d", [(32, 8, 128), (32, 4, 64)])
@pytest.mark.parametrize("pos", [0, 37])
def test_attention_and_prefill_persistent_blocks_cuda(dtype, heads, kv_heads, d, pos):
    seq = 1100
    check_attention("cuda", dtype, heads, kv_heads, d, pos, seq)
    args, ref, scale = prefill_case("cuda", dtype, heads, kv_heads, d, 16, [pos + seq], [seq])
    close(ops.paged_attention_prefill(*args, None, scale), ref, dtype)


def test_bad_indices_raise_and_name_the_argument():
    kc, vc, tables, _, _ = make_paged([5, 9], 2, 64, 8, torch.float32)
    q = torch.randn(2, 2, 64)
    lens = torch.tensor([5, 9])
    bad_tables = tables.clone()
    bad_tables[1, 1] = 999
    with pytest.raises(RuntimeError, match=r"paged_attention: index 999 in block_tables is out of range"):
        ops.paged_attention(q, kc, vc, bad_tables, lens, None, 0.1)
    with pytest.raises(RuntimeError, match=r"paged_attention: seq_lens\[1\] = 100 is out of range"):
        ops.paged_attention(q, kc, vc, tables, torch.tensor([5, 100]), None, 0.1)
    with pytest.raises(RuntimeError, match=r"infini.attention: pos 10 \+ seq 7 exceeds the cache's 16 rows"):
        ops.attention(
            torch.randn(2, 7, 64),
            torch.randn(2, 7, 64),
            torch.randn(2, 7, 64),
            torch.zeros(2, 16, 64),
            torch.zeros(2, 16, 64),
            10,
        )
    with pytest.raises(RuntimeError, match=r"infini.paged_attention: k_cache must be"):
        ops.paged_attention(torch.randn(2, 3, 64), kc, vc, tables, lens, None, 0.1)  # 3 heads, 2 kv heads
    with pytest.raises(RuntimeError, match=r"infini.paged_attention_prefill: cu_seqlens_q must be \[3\]"):
        ops.paged_attention_prefill(torch.randn(4, 2, 64), kc, vc, tables, lens, torch.tensor([0, 4]), None, 0.1)


def run_and_surface_errors(device, fn):
    """Runs fn; on asynchronous devices a bad index surfaces later: at synchronization (infini) or at the
    next launch after the kernel ran (CUDA tensors)."""
    fn()
    if device == "infini":
        torch.infini.synchronize()
    elif device == "cuda":
        torch.cuda.synchronize()
        fn()


@pytest.mark.parametrize("device", DEVICES)
def test_attention_bad_shapes_raise_on_every_device(device):
    """attention's argument checks (one, shared by the backends): each bad argument raises naming it, and the
    caches are left as they were."""
    r = lambda *shape: torch.randn(*shape).to(device)  # noqa: E731
    kc, vc = r(2, 16, 64), r(2, 16, 64)
    before = (kc.cpu().clone(), vc.cpu().clone())
    bad = [
        (
            r"attention: k must be \[kv_heads dividing 3, 7, 64\], got \[2, 7, 64\]",
            (r(3, 7, 64), r(2, 7, 64), r(2, 7, 64), kc, vc, 0),
        ),
        (
            r"attention: k_cache must be \[2, max_seq, 64\], got \[2, 16, 32\]",
            (r(2, 7, 64), r(2, 7, 64), r(2, 7, 64), r(2, 16, 32), r(2, 16, 32), 0),
        ),
        (
            r"attention: pos -1 \+ seq 7 exceeds the cache's 16 rows",
            (r(2, 7, 64), r(2, 7, 64), r(2, 7, 64), kc, vc, -1),
        ),
        (
            r"attention: pos 12 \+ seq 7 exceeds the cache's 16 rows",
            (r(2, 7, 64), r(2, 7, 64), r(2, 7, 64), kc, vc, 12),
        ),
    ]
    for message, args in bad:
        with pytest.raises(RuntimeError, match=message):
            run_and_surface_errors(device, lambda: ops.attention(*args))
    assert torch.equal(kc.cpu(), before[0]) and torch.equal(vc.cpu(), before[1])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_paged_attention_bad_indices_on_every_device(device, dtype):
    """Out-of-range block ids and seq_lens raise and name the argument on every device (bfloat16 with head_dim
    128 takes the GPU decode fast path), and leave the inputs unchanged."""
    kc, vc, tables, _, _ = make_paged([5, 900], 2, 128, 16, dtype)
    q = torch.randn(2, 4, 128).to(dtype)
    lens = torch.tensor([5, 900])
    bad_tables = tables.clone()
    bad_tables[1, 40] = 999
    args = [x.to(device) for x in (q, kc, vc, bad_tables, lens)]
    before = [x.cpu().clone() for x in args]
    with pytest.raises(RuntimeError, match=r"paged_attention: index 999 in block_tables is out of range"):
        run_and_surface_errors(device, lambda: ops.paged_attention(*args, None, 0.1))
    for x, b in zip(args, before):
        assert torch.equal(x.cpu(), b)
    good = [args[0], args[1], args[2], tables.to(device)]
    with pytest.raises(RuntimeError, match=r"paged_attention: seq_lens\[1\] = 5000 is out of range"):
        run_and_surface_errors(
            device, lambda: ops.paged_attention(*good, torch.tensor([5, 5000]).to(device), None, 0.1)
        )
    out = ops.paged_attention(*good, lens.to(device), None, 0.1)  # the device keeps working
    assert torch.isfinite(out.cpu().float()).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_paged_attention_prefill_bad_indices_on_every_device(device, dtype):
    """Prefill long enough for the GPU's tiled kernel (bfloat16, head_dim 128; float32 takes the general one): an
    out-of-range block id, a sequence shorter than its query rows and cu_seqlens_q not rising from 0 to the query
    rows (a bad start, a sequence past the rows, a short end) raise and name the argument, the inputs stay
    unchanged, and the device keeps working."""
    seq_lens, q_lens = [40, 300], [40, 100]
    kc, vc, tables, keys, values = make_paged(seq_lens, 2, 128, 16, dtype)
    cu = torch.tensor([0, 40, 140])
    q = torch.randn(140, 8, 128).to(dtype)
    bad_tables = tables.clone()
    bad_tables[1, 15] = 999
    args = [x.to(device) for x in (q, kc, vc, bad_tables, torch.tensor(seq_lens), cu)]
    before = [x.cpu().clone() for x in args]
    with pytest.raises(RuntimeError, match=r"paged_attention_prefill: index 999 in block_tables is out of range"):
        run_and_surface_errors(device, lambda: ops.paged_attention_prefill(*args, None, 0.1))
    for x, b in zip(args, before):
        assert torch.equal(x.cpu(), b)
    good = [args[0], args[1], args[2], tables.to(device)]
    with pytest.raises(RuntimeError, match=r"paged_attention_prefill: seq_lens\[1\] = 50 is out of range"):
        run_and_surface_errors(
            device, lambda: ops.paged_attention_prefill(*good, torch.tensor([40, 50]).to(device), args[5], None, 0.1)
        )
    for bad_cu in ([3, 40, 140], [0, 150, 140], [0, 40, 130]):
        with pytest.raises(RuntimeError, match=r"paged_attention_prefill: cu_seqlens_q"):
            run_and_surface_errors(
                device, lambda: ops.paged_attention_prefill(*good, args[4], torch.tensor(bad_cu).to(device), None, 0.1)
            )
    for x, b in zip(args, before):
        assert torch.equal(x.cpu(), b)
    out = ops.paged_attention_prefill(*good, args[4], args[5], None, 0.1)  # the device keeps working
    ref = torch.cat(
        [
            causal_ref(q[int(cu[s]) : int(cu[s + 1])], keys[s], values[s], torch.arange(n - ql, n), 4, 0.1)
            for s, (n, ql) in enumerate(zip(seq_lens, q_lens))
        ]
    )
    close(out, ref, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device):
    checks = ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic")
    kc, vc, tables, _, _ = make_paged([5, 9], 2, 64, 8, torch.float32)
    t = lambda x: x.to(device)  # noqa: E731
    cases = [
        (
            I.attention.default,
            (
                t(torch.randn(4, 3, 64)),
                t(torch.randn(2, 3, 64)),
                t(torch.randn(2, 3, 64)),
                t(torch.zeros(2, 8, 64)),
                t(torch.zeros(2, 8, 64)),
                2,
            ),
        ),
        (
            I.paged_attention.default,
            (t(torch.randn(2, 4, 64)), t(kc), t(vc), t(tables), t(torch.tensor([5, 9])), t(torch.rand(4)), 0.125),
        ),
        (
            I.paged_attention_prefill.default,
            (
                t(torch.randn(6, 4, 64)),
                t(kc),
                t(vc),
                t(tables),
                t(torch.tensor([5, 9])),
                t(torch.tensor([0, 2, 6])),
                None,
                0.125,
            ),
        ),
        # bfloat16, head_dim 128: the decode fast path on GPUs
        (
            I.paged_attention.default,
            (
                t(torch.randn(2, 4, 128, dtype=torch.bfloat16)),
                t(torch.randn(6, 2, 8, 128, dtype=torch.bfloat16)),
                t(torch.randn(6, 2, 8, 128, dtype=torch.bfloat16)),
                t(tables),
                t(torch.tensor([5, 9])),
                None,
                0.125,
            ),
        ),
    ]
    # bfloat16, head_dim 128, 16+ rows: the tiled kernel on GPUs
    kc2, vc2, tables2, _, _ = make_paged([20, 24], 2, 128, 8, torch.bfloat16)
    bf = lambda *shape: t(torch.randn(*shape, dtype=torch.bfloat16))  # noqa: E731
    cases += [
        (I.attention.default, (bf(4, 20, 128), bf(2, 20, 128), bf(2, 20, 128), bf(2, 24, 128), bf(2, 24, 128), 2)),
        (
            I.paged_attention_prefill.default,
            (
                bf(44, 4, 128),
                t(kc2),
                t(vc2),
                t(tables2),
                t(torch.tensor([20, 24])),
                t(torch.tensor([0, 20, 44])),
                None,
                0.125,
            ),
        ),
    ]
    for op, args in cases:
        result = opcheck(op, args, test_utils=checks)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)
