"""torch.distributed with the "infiniccl" backend, multi-process (world sizes 2, 3 and 4).

Each test spawns the ranks once and runs many checks in them: every collective, dtype and reduce op
on infini tensors against the same collective run by gloo on CPU copies in the same processes (one
"cpu:gloo,infini:infiniccl" group); uneven sizes; async work overlapped with compute; DDP on infini
against DDP on CPU; a rank that exits early and a rank that arrives late end in errors, not hangs.

On the CPU backend ranks may share its two devices. On a GPU backend (the nvidia one: infiniccl over NCCL)
each rank takes a device of its own, so a world larger than the GPUs skips; the two failure tests here are the
CPU backend's (they expect the failing collective itself to raise, as the CPU backend's blocking waits do);
test_faults.py checks the same faults on any backend, the nvidia one included (there the group's watchdog
finds them).
"""

from __future__ import annotations

import datetime
import os
import time

import pytest
import torch
import torch.distributed as dist
from _harness import assert_ok, close, data, launch

import infinicore_torch  # noqa: F401

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="torch.distributed is not available")

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.uint8, torch.int8]
OPS = {
    "sum": dist.ReduceOp.SUM,
    "product": dist.ReduceOp.PRODUCT,
    "max": dist.ReduceOp.MAX,
    "min": dist.ReduceOp.MIN,
}


# ------------------------------------------------------------------------------------------------
# The checks (run in every rank).


def check_collectives(rank, world):
    dev = torch.device("infini", torch.infini.current_device())
    for dtype in DTYPES:
        for name, op in OPS.items():
            x = data(rank, 1031, dtype, seed=7)
            ref = x.clone()
            dist.all_reduce(ref, op=op)  # gloo, on the CPU copy
            got = x.to(dev)
            dist.all_reduce(got, op=op)
            close(got, ref, f"all_reduce {name} {dtype}")
        if dtype.is_floating_point:
            x = data(rank, 517, dtype, seed=8)
            ref = x.double()
            dist.all_reduce(ref)
            got = x.to(dev)
            dist.all_reduce(got, op=dist.ReduceOp.AVG)
            close(got, (ref / world).to(dtype), f"all_reduce avg {dtype}")
        if dtype.is_floating_point:  # PREMUL_SUM: each rank's input times the factor, summed (gloo has none)
            x = data(rank, 257, dtype, seed=14)
            want = sum(data(r, 257, dtype, seed=14).double() * 0.5 for r in range(world)).to(dtype)
            got = x.to(dev)
            dist.all_reduce(got, op=dist._make_nccl_premul_sum(0.5))
            close(got, want, f"all_reduce premul_sum {dtype}")
            factor = torch.tensor(0.5, dtype=dtype, device=dev)
            big = data(rank, world * 65, dtype, seed=15)
            want = sum(data(r, world * 65, dtype, seed=15).double() * 0.5 for r in range(world)).to(dtype)
            got = torch.empty(65, dtype=dtype, device=dev)
            before = big.clone()
            dist.reduce_scatter_tensor(got, big.to(dev), op=dist._make_nccl_premul_sum(factor))
            close(got, want[rank * 65 : (rank + 1) * 65], f"reduce_scatter_tensor premul_sum {dtype}")
            assert torch.equal(big, before)
        else:  # the bitwise ops, against gloo's
            for op in (dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR):
                x = data(rank, 257, dtype, seed=13) * 37 % 128
                ref = x.clone()
                dist.all_reduce(ref, op=op)
                got = x.to(dev)
                dist.all_reduce(got, op=op)
                close(got, ref, f"all_reduce {op} {dtype}")
        for root in range(world):
            x = data(rank, 333, dtype, seed=9 + root)
            ref = x.clone()
            dist.broadcast(ref, src=root)
            got = x.to(dev)
            dist.broadcast(got, src=root)
            close(got, ref, f"broadcast root {root} {dtype}")
            ref = x.clone()
            dist.reduce(ref, dst=root, op=dist.ReduceOp.MAX)
            got = x.to(dev)
            dist.reduce(got, dst=root, op=dist.ReduceOp.MAX)
            if rank == root:
                close(got, ref, f"reduce root {root} {dtype}")
        x = data(rank, 129, dtype, seed=11)
        refs = [torch.empty_like(x) for _ in range(world)]
        dist.all_gather(refs, x)
        gots = [torch.empty_like(x, device=dev) for _ in range(world)]
        dist.all_gather(gots, x.to(dev))
        for j in range(world):
            close(gots[j], refs[j], f"all_gather {dtype} part {j}")
        ref = torch.empty(world * 129, dtype=dtype)
        dist.all_gather_into_tensor(ref, x)
        got = torch.empty(world * 129, dtype=dtype, device=dev)
        dist.all_gather_into_tensor(got, x.to(dev))
        close(got, ref, f"all_gather_into_tensor {dtype}")
        big = data(rank, world * 65, dtype, seed=12)
        want = sum(data(r, world * 65, dtype, seed=12).double() for r in range(world))
        want = want.to(dtype)[rank * 65 : (rank + 1) * 65]
        got = torch.empty(65, dtype=dtype, device=dev)
        dist.reduce_scatter_tensor(got, big.to(dev))
        close(got, want, f"reduce_scatter_tensor {dtype}")
        got = torch.empty(65, dtype=dtype, device=dev)
        dist.reduce_scatter(got, [c.to(dev) for c in big.chunk(world)])
        close(got, want, f"reduce_scatter {dtype}")
    # gather / scatter / all_to_all / send-recv / barrier (float32 and int64)
    for dtype in (torch.float32, torch.int64):
        x = data(rank, 77, dtype, seed=13)
        for root in range(world):
            refs = [torch.empty_like(x) for _ in range(world)] if rank == root else None
            dist.gather(x, refs, dst=root)
            gots = [torch.empty_like(x, device=dev) for _ in range(world)] if rank == root else None
            dist.gather(x.to(dev), gots, dst=root)
            if rank == root:
                for j in range(world):
                    close(gots[j], refs[j], f"gather {dtype} root {root} part {j}")
            chunks = [data(j, 19, dtype, seed=14 + root) for j in range(world)] if rank == root else None
            ref = torch.empty(19, dtype=dtype)
            dist.scatter(ref, chunks, src=root)
            got = torch.empty(19, dtype=dtype, device=dev)
            dist.scatter(got, [c.to(dev) for c in chunks] if chunks else None, src=root)
            close(got, ref, f"scatter {dtype} root {root}")
        inp = data(rank, world * 10, dtype, seed=15)
        ref = torch.empty_like(inp)
        dist.all_to_all_single(ref, inp)
        got = torch.empty_like(inp, device=dev)
        dist.all_to_all_single(got, inp.to(dev))
        close(got, ref, f"all_to_all_single {dtype}")
        ins = [data(rank * world + j, 7, dtype, seed=16) for j in range(world)]
        # by hand: gloo's all_to_all exists only in newer torch (2.13 has it, 2.11 does not)
        refs = [data(j * world + rank, 7, dtype, seed=16) for j in range(world)]
        gots = [torch.empty(7, dtype=dtype, device=dev) for _ in range(world)]
        dist.all_to_all(gots, [t.to(dev) for t in ins])
        for j in range(world):
            close(gots[j], refs[j], f"all_to_all {dtype} part {j}")
    # send/recv around a ring, larger than one channel slot
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    x = data(rank, 300_001, torch.float32, seed=17)
    got = torch.empty_like(x, device=dev)
    reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, x.to(dev), nxt), dist.P2POp(dist.irecv, got, prv)])
    for r in reqs:
        r.wait()
    close(got, data(prv, 300_001, torch.float32, seed=17), "ring send/recv")
    if rank == 0:
        dist.send(x.to(dev), 1)
    elif rank == 1:
        got = torch.empty_like(x, device=dev)
        dist.recv(got, 0)
        close(got, data(0, 300_001, torch.float32, seed=17), "send/recv")
    dist.barrier()
    # coalesced all-reduce
    ts = [data(rank, n, torch.float32, seed=18) for n in (3, 1000, 0, 70_000)]
    with dist._coalescing_manager(device=dev):
        gots = [t.to(dev) for t in ts]
        for t in gots:
            dist.all_reduce(t)
    for t, g in zip(ts, gots):
        want = sum(data(r, t.numel(), torch.float32, seed=18) for r in range(world))
        close(g, want, f"coalesced all_reduce numel {t.numel()}")


def check_recv_any_source(rank, world):
    """Ranks 1.. send rank 0 two messages each; rank 0 takes rank 1's first by name, the rest from any source."""
    dev = torch.device("infini", torch.infini.current_device())
    msg = lambda src, k: torch.full((33,), 100.0 * src + k)  # noqa: E731  (message k of rank src)
    if rank != 0:
        for k in range(2):
            dist.send(msg(rank, k).to(dev), 0)
        dist.barrier()
        return None
    got = torch.empty(33, device=dev)
    dist.recv(got, src=1)
    close(got, msg(1, 0), "named recv")
    taken = {1: 1} | {src: 0 for src in range(2, world)}  # each sender's messages taken so far
    for i in range(2 * (world - 1) - 1):
        got = torch.empty(33, device=dev)
        if i == 0:
            work = dist.irecv(got)  # the asynchronous form: the source is known once it is waited for
            work.wait()
            src = work._source_rank()
        else:
            src = dist.recv(got)
        assert src in taken, f"source {src}"
        close(got, msg(src, taken[src]), f"message {taken[src]} of rank {src}")  # in each sender's order
        taken[src] += 1
    assert all(n == 2 for n in taken.values()), taken
    dist.barrier()
    return None


def check_uneven(rank, world):
    dev = torch.device("infini", torch.infini.current_device())
    sizes = [3 + 4 * j for j in range(world)]
    x = data(rank, sizes[rank], torch.float32, seed=21)
    gots = [torch.empty(sizes[j], device=dev) for j in range(world)]
    dist.all_gather(gots, x.to(dev))
    for j in range(world):
        close(gots[j], data(j, sizes[j], torch.float32, seed=21), f"uneven all_gather part {j}")
    # uneven all_to_all_single: rank r sends j + r + 1 rows to rank j
    send_splits = [j + rank + 1 for j in range(world)]
    recv_splits = [rank + j + 1 for j in range(world)]
    inp = torch.cat([torch.full((send_splits[j], 2), 100.0 * rank + j) for j in range(world)])
    out = torch.empty(sum(recv_splits), 2, device=dev)
    dist.all_to_all_single(out, inp.to(dev), recv_splits, send_splits)
    want = torch.cat([torch.full((recv_splits[j], 2), 100.0 * j + rank) for j in range(world)])
    close(out, want, "uneven all_to_all_single")
    # uneven all_to_all: rank r sends 5 + j elements to rank j
    ins = [data(rank * world + j, 5 + j, torch.int64, seed=16) for j in range(world)]
    gots = [torch.empty(5 + rank, dtype=torch.int64, device=dev) for _ in range(world)]
    dist.all_to_all(gots, [t.to(dev) for t in ins])
    for j in range(world):
        close(gots[j], data(j * world + rank, 5 + rank, torch.int64, seed=16), f"uneven all_to_all part {j}")
    # uneven reduce_scatter (block j has sizes[j] elements)
    ins = [data(rank, sizes[j], torch.float32, seed=22 + j) for j in range(world)]
    got = torch.empty(sizes[rank], device=dev)
    dist.reduce_scatter(got, [t.to(dev) for t in ins])
    want = sum(data(r, sizes[rank], torch.float32, seed=22 + rank) for r in range(world))
    close(got, want, "uneven reduce_scatter")


def check_async_overlap(rank, world):
    dev = torch.device("infini", torch.infini.current_device())
    big = torch.full((4_000_000,), float(rank + 1), device=dev)
    a = torch.randn(256, 256, device=dev)
    work = dist.all_reduce(big, async_op=True)
    c = a @ a  # queued on the current stream while the all-reduce runs on the communication stream
    for _ in range(5):
        c = torch.ops.infini.rms_norm(c, torch.ones(256, device=dev), 1e-6)
    work.wait()
    assert work.is_completed() and work.is_success()
    want = float(sum(range(1, world + 1)))
    assert torch.equal(big.cpu(), torch.full((4_000_000,), want)), "all_reduce result"
    ref = a.cpu() @ a.cpu()
    for _ in range(5):
        ref = torch.nn.functional.rms_norm(ref, (256,), torch.ones(256), 1e-6)
    torch.testing.assert_close(c.cpu(), ref, rtol=1e-4, atol=1e-4)
    # the future of the work delivers the result, as DDP's comm hooks use it
    t = torch.ones(10, device=dev)
    fut = dist.all_reduce(t, async_op=True).get_future()
    val = fut.wait()
    assert torch.equal(val[0].cpu(), torch.full((10,), float(world)))


def check_ddp(rank, world):
    from torch.nn.parallel import DistributedDataParallel as DDP

    dev = torch.device("infini", torch.infini.current_device())
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    cpu_model = DDP(model)
    infini_model = DDP(torch.nn.Sequential(*[m for m in __import__("copy").deepcopy(model)]).to(dev))
    opt_c = torch.optim.SGD(cpu_model.parameters(), lr=0.1)
    opt_i = torch.optim.SGD(infini_model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(rank)
    for _ in range(5):
        x, y = torch.randn(8, 16, generator=g), torch.randn(8, 4, generator=g)
        for mdl, opt, d in ((cpu_model, opt_c, "cpu"), (infini_model, opt_i, dev)):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(mdl(x.to(d)), y.to(d))
            loss.backward()
            opt.step()
    for pc, pi in zip(cpu_model.parameters(), infini_model.parameters()):
        torch.testing.assert_close(pi.detach().cpu(), pc.detach(), rtol=1e-5, atol=1e-5)
    # the replicas agree across ranks
    w = next(infini_model.parameters()).detach().cpu()
    ws = [torch.empty_like(w) for _ in range(world)]
    dist.all_gather(ws, w)
    for other in ws:
        assert torch.equal(other, w)


def check_peer_exits(rank, world):
    dev = torch.device("infini", torch.infini.current_device())
    t = torch.ones(1000, device=dev)
    dist.all_reduce(t)  # everyone joined
    torch.infini.synchronize()
    if rank == world - 1:
        os._exit(0)  # leaves without a word
    t0 = time.time()
    try:
        dist.all_reduce(t)
    except dist.DistBackendError as e:
        took = time.time() - t0
        assert took < 10, f"took {took:.1f} s"
        assert "exited" in str(e) or "failed" in str(e), str(e)
        return f"RAISED after {took:.2f} s: {e}"
    raise AssertionError("all_reduce with an exited peer did not raise")


def check_peer_late(rank, world):
    dev = torch.device("infini", torch.infini.current_device())
    t = torch.ones(10, device=dev)
    if rank == 1:
        time.sleep(6)
        return "LATE"
    t0 = time.time()
    try:
        dist.all_reduce(t)
    except dist.DistBackendError as e:
        took = time.time() - t0
        assert "timed out after 2000 ms" in str(e), str(e)
        return f"RAISED after {took:.2f} s: {e}"
    raise AssertionError("all_reduce with a peer that never arrives did not raise")


def check_bad_input(rank, world):
    dev = torch.device("infini", torch.infini.current_device())
    t = torch.arange(12, dtype=torch.float32, device=dev)
    before = t.cpu().clone()
    cases = [
        (lambda: dist.all_reduce(t[::2]), "must be contiguous"),
        (lambda: dist.all_reduce(t, op=dist.ReduceOp.BAND), "bitwise reduce ops take integer dtypes"),
        (lambda: dist.all_reduce(torch.ones(2, dtype=torch.bool, device=dev)), "cannot reduce"),
        (lambda: dist.all_gather_into_tensor(torch.empty(5, device=dev), t), "all_gather_into_tensor"),
    ]
    for fn, fragment in cases:
        try:
            fn()
        except (RuntimeError, ValueError) as e:
            assert fragment in str(e), (fragment, str(e))
        else:
            raise AssertionError(f"no error for {fragment}")
    # a receive from any source that no rank sends to: the group's timeout, then an error that says so
    quick = dist.new_group(backend="infiniccl", timeout=datetime.timedelta(seconds=1))
    if rank == 0:
        try:
            dist.recv(torch.empty(3, device=dev), group=quick)
        except dist.DistBackendError as e:
            assert "no rank sent to rank 0 within 1000 ms" in str(e), str(e)
        else:
            raise AssertionError("a receive from any source with no sender did not raise")
    dist.barrier()
    assert torch.equal(t.cpu(), before), "a failed call changed its input"
    dist.all_reduce(t)  # the group still works
    assert torch.equal(t.cpu(), before * world)


# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("world", [2, 3, 4])
def test_collectives_match_gloo(tmp_path, world):
    assert_ok(launch(tmp_path, world, check_collectives))


@pytest.mark.parametrize("world", [2, 3, 4])
def test_recv_from_any_source(tmp_path, world):
    if torch.infini.backend() != "cpu":
        pytest.skip("a receive from any source is the CPU backend's (its sends count themselves in the store)")
    assert_ok(launch(tmp_path, world, check_recv_any_source))


@pytest.mark.parametrize("world", [2, 3, 4])
def test_uneven_sizes(tmp_path, world):
    assert_ok(launch(tmp_path, world, check_uneven))


def test_async_work_overlaps_compute(tmp_path):
    assert_ok(launch(tmp_path, 2, check_async_overlap))


@pytest.mark.parametrize("world", [2, 3, 4])
def test_ddp_on_infini_matches_ddp_on_cpu(tmp_path, world):
    assert_ok(launch(tmp_path, world, check_ddp))


def test_bad_input_raises_and_leaves_inputs(tmp_path):
    assert_ok(launch(tmp_path, 2, check_bad_input))


NO_NCCL_FAILURES = (
    "the failing collective itself raises only where waits block the host (CPU backend); test_faults.py covers nvidia"
)


@pytest.mark.cpu_backend(NO_NCCL_FAILURES)
def test_a_rank_that_exits_makes_the_others_raise(tmp_path):
    results = launch(tmp_path, 3, check_peer_exits, timeout_s=30)
    for r in range(2):
        assert results[r].startswith("RAISED"), f"rank {r}:\n{results[r]}"


@pytest.mark.cpu_backend(NO_NCCL_FAILURES)
def test_a_rank_that_never_arrives_times_out(tmp_path):
    results = launch(tmp_path, 2, check_peer_late, timeout_s=2)
    assert results[0].startswith("RAISED"), results[0]
