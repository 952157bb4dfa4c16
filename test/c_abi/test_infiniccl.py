"""infiniccl's C ABI on the CPU backend: every collective against numpy, on communicators of one process
(infinicclCommInitAll over the backend's two devices) and of several processes (infinicclCommInitRank),
argument checks, and failures (a peer that exits, a peer that never arrives) as statuses, not hangs."""

from __future__ import annotations

import os
import textwrap
from ctypes import byref, c_int, c_void_p

import numpy as np
import pytest
from conftest import ROOT, L, assert_fails, d2h, dmalloc, h2d, stream_create

from infinicore_torch import _infini as I

pytestmark = pytest.mark.cpu_backend("its collectives through the C ABI, on its two devices")

DTYPES = {  # numpy dtype -> infini dtype
    np.float32: 13,
    np.float64: 14,
    np.float16: 12,
    np.int32: 5,
    np.int64: 6,
    np.int8: 3,
    np.uint8: 7,
}
OPS = {"sum": I.CCL_SUM, "prod": I.CCL_PROD, "max": I.CCL_MAX, "min": I.CCL_MIN, "avg": I.CCL_AVG}


def reference(arrays, op):
    stack = np.stack([a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays])
    if op == "sum":
        r = stack.sum(0, dtype=stack.dtype)
    elif op == "prod":
        r = stack.prod(0, dtype=stack.dtype)
    elif op == "max":
        r = stack.max(0)
    elif op == "min":
        r = stack.min(0)
    else:
        r = stack.sum(0, dtype=stack.dtype)
        r = r / len(arrays) if r.dtype.kind == "f" else np.trunc(r / len(arrays)).astype(r.dtype)
    return r.astype(arrays[0].dtype)


class Pair:
    """Two communicators of this process, one per CPU device, each with its own stream."""

    def __init__(self):
        comms = (c_void_p * 2)()
        ids = (c_int * 2)(0, 1)
        I.check(L.infinicclCommInitAll(I.DEVICE_CPU, comms, 2, ids))
        self.comms = [comms[0], comms[1]]
        self.streams = []
        for d in range(2):
            I.set_device(I.DEVICE_CPU, d)
            self.streams.append(stream_create())
        I.set_device(I.DEVICE_CPU, 0)
        self.ptrs = []

    def put(self, rank: int, array: np.ndarray) -> int:
        I.set_device(I.DEVICE_CPU, rank)
        p = dmalloc(max(1, array.nbytes))
        h2d(p, array.tobytes())
        self.ptrs.append((rank, p))
        I.set_device(I.DEVICE_CPU, 0)
        return p

    def get(self, rank: int, p: int, like: np.ndarray) -> np.ndarray:
        I.check(L.infinirtStreamSynchronize(self.streams[rank]))
        return np.frombuffer(d2h(p, like.nbytes), dtype=like.dtype).reshape(like.shape)

    def close(self):
        for r in range(2):
            I.check(L.infinirtStreamSynchronize(self.streams[r]))
        for c in self.comms:
            I.check(L.infinicclCommDestroy(c))
        for r, p in self.ptrs:
            I.set_device(I.DEVICE_CPU, r)
            I.check(L.infinirtFree(p))
        for r, s in enumerate(self.streams):
            I.set_device(I.DEVICE_CPU, r)
            I.check(L.infinirtStreamDestroy(s))
        I.set_device(I.DEVICE_CPU, 0)


@pytest.fixture
def pair():
    p = Pair()
    yield p
    p.close()


def data(rng, n, dtype, rank):
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) + rank).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -5), min(info.max, 6), n).astype(dtype)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("n", [0, 1, 1000, 600_001])
def test_all_reduce_matches_numpy(pair, dtype, op, n):
    if op == "prod" and n > 1000 and np.dtype(dtype).kind == "f":
        n = 1000
    rng = np.random.default_rng(n)
    xs = [data(rng, n, dtype, r) for r in range(2)]
    ps = [pair.put(r, xs[r]) for r in range(2)]
    outs = [pair.put(r, np.zeros_like(xs[r])) for r in range(2)]
    I.check(L.infinicclGroupStart())
    for r in range(2):
        I.check(L.infinicclAllReduce(ps[r], outs[r], n, DTYPES[dtype], OPS[op], pair.comms[r], pair.streams[r]))
    I.check(L.infinicclGroupEnd())
    want = reference(xs, op)
    tol = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}.get(dtype, 0)
    for r in range(2):
        got = pair.get(r, outs[r], xs[r])
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
        assert np.array_equal(pair.get(r, ps[r], xs[r]), xs[r])  # the input is untouched


def test_all_reduce_in_place_without_a_group(pair):
    # each call only queues work on its stream, so two calls from one thread cannot deadlock
    xs = [np.arange(300_000, dtype=np.float32) * (r + 1) for r in range(2)]
    ps = [pair.put(r, xs[r]) for r in range(2)]
    for r in range(2):
        I.check(L.infinicclAllReduce(ps[r], ps[r], xs[r].size, 13, I.CCL_SUM, pair.comms[r], pair.streams[r]))
    for r in range(2):
        np.testing.assert_array_equal(pair.get(r, ps[r], xs[r]), xs[0] + xs[1])


@pytest.mark.parametrize("root", [0, 1])
def test_broadcast_reduce(pair, root):
    n = 3_000_001
    xs = [np.full(n, r + 1, dtype=np.int32) for r in range(2)]
    xs[root] = np.arange(n, dtype=np.int32)
    ps = [pair.put(r, xs[r]) for r in range(2)]
    outs = [pair.put(r, np.zeros(n, np.int32)) for r in range(2)]
    for r in range(2):
        I.check(L.infinicclBroadcast(ps[r], outs[r], n, 5, root, pair.comms[r], pair.streams[r]))
    for r in range(2):
        np.testing.assert_array_equal(pair.get(r, outs[r], xs[r]), xs[root])
    red = [pair.put(r, np.zeros(n, np.int32)) for r in range(2)]
    for r in range(2):
        I.check(L.infinicclReduce(ps[r], red[r], n, 5, I.CCL_MAX, root, pair.comms[r], pair.streams[r]))
    np.testing.assert_array_equal(pair.get(root, red[root], xs[0]), np.maximum(xs[0], xs[1]))
    np.testing.assert_array_equal(pair.get(1 - root, red[1 - root], xs[0]), 0)  # only the root's output is written


def test_all_gather_and_reduce_scatter(pair):
    n = 400_003
    xs = [np.random.default_rng(r).standard_normal(2 * n).astype(np.float32) for r in range(2)]
    ps = [pair.put(r, xs[r]) for r in range(2)]
    gathered = [pair.put(r, np.zeros(2 * n, np.float32)) for r in range(2)]
    scattered = [pair.put(r, np.zeros(n, np.float32)) for r in range(2)]
    for r in range(2):
        I.check(L.infinicclAllGather(ps[r], gathered[r], n, 13, pair.comms[r], pair.streams[r]))
    for r in range(2):
        np.testing.assert_array_equal(pair.get(r, gathered[r], xs[r]), np.concatenate([xs[0][:n], xs[1][:n]]))
    for r in range(2):
        I.check(L.infinicclReduceScatter(ps[r], scattered[r], n, 13, I.CCL_SUM, pair.comms[r], pair.streams[r]))
    total = xs[0] + xs[1]
    for r in range(2):
        np.testing.assert_allclose(pair.get(r, scattered[r], xs[r][:n]), total[r * n : (r + 1) * n], rtol=1e-6)


def test_send_recv_both_ways_in_a_group(pair):
    n = 1_000_003  # larger than the channel: both directions must progress together
    xs = [np.random.default_rng(r).integers(0, 100, n).astype(np.int64) for r in range(2)]
    ps = [pair.put(r, xs[r]) for r in range(2)]
    outs = [pair.put(r, np.zeros(n, np.int64)) for r in range(2)]
    I.check(L.infinicclGroupStart())
    for r in range(2):
        I.check(L.infinicclSend(ps[r], n, 6, 1 - r, pair.comms[r], pair.streams[r]))
        I.check(L.infinicclRecv(outs[r], n, 6, 1 - r, pair.comms[r], pair.streams[r]))
    I.check(L.infinicclGroupEnd())
    for r in range(2):
        np.testing.assert_array_equal(pair.get(r, outs[r], xs[r]), xs[1 - r])


def test_send_recv_size_mismatch_fails_the_stream_not_the_process(pair):
    xs = [np.zeros(10, np.float32), np.zeros(20, np.float32)]
    ps = [pair.put(r, xs[r]) for r in range(2)]
    I.check(L.infinicclSend(ps[0], 10, 13, 1, pair.comms[0], pair.streams[0]))
    I.check(L.infinicclRecv(ps[1], 20, 13, 0, pair.comms[1], pair.streams[1]))
    assert_fails(L.infinirtStreamSynchronize(pair.streams[1]), 1, "sent 40 bytes", "expects 80")
    err = c_int()
    I.check(L.infinicclCommGetAsyncError(pair.comms[1], byref(err)))
    assert err.value == I.BAD_PARAM
    # a failed communicator refuses further work with its first failure
    assert_fails(
        L.infinicclAllReduce(ps[1], ps[1], 1, 13, I.CCL_SUM, pair.comms[1], pair.streams[1]),
        I.BAD_PARAM,
        "infinicclAllReduce",
        "failed earlier",
        "sent 40 bytes",
    )


def test_abort_fails_the_communicator_and_its_peers(pair):
    xs = [np.ones(1000, np.float32) for _ in range(2)]
    ps = [pair.put(r, xs[r]) for r in range(2)]
    I.check(L.infinicclCommAbort(pair.comms[0]))
    I.check(L.infinicclCommAbort(pair.comms[0]))  # again: nothing more to do
    err = c_int()
    I.check(L.infinicclCommGetAsyncError(pair.comms[0], byref(err)))
    assert err.value == I.ABORTED
    assert_fails(
        L.infinicclAllReduce(ps[0], ps[0], 1000, 13, I.CCL_SUM, pair.comms[0], pair.streams[0]),
        I.ABORTED,
        "aborted the communicator",
    )
    # the peer's collective fails at once (the segment's failure flag), not at the timeout
    I.check(L.infinicclAllReduce(ps[1], ps[1], 1000, 13, I.CCL_SUM, pair.comms[1], pair.streams[1]))
    assert_fails(L.infinirtStreamSynchronize(pair.streams[1]), 1, "rank 0 of the group failed")
    I.check(L.infinicclCommGetAsyncError(pair.comms[1], byref(err)))
    assert err.value == I.REMOTE_ERROR
    assert_fails(L.infinicclCommAbort(c_void_p(8)), I.INVALID_HANDLE, "not a live communicator")


def test_argument_checks(pair):
    c0 = pair.comms[0]
    p = pair.put(0, np.zeros(16, np.float32))
    q = pair.put(1, np.zeros(16, np.float32))
    s0 = pair.streams[0]
    count, rank = c_int(), c_int()
    I.check(L.infinicclCommCount(c0, byref(count)))
    I.check(L.infinicclCommUserRank(pair.comms[1], byref(rank)))
    assert (count.value, rank.value) == (2, 1)
    assert_fails(L.infinicclAllReduce(p, p, 4, 13, 8, c0, s0), I.BAD_PARAM, "infinicclAllReduce", "not a reduce op")
    # BAND (5), BOR (6), BXOR (7) take integer dtypes only; float32 is dtype 13
    assert_fails(L.infinicclAllReduce(p, p, 4, 13, 5, c0, s0), I.BAD_TENSOR_DTYPE, "bitwise reduce ops take integer")
    assert_fails(L.infinicclAllReduce(p, p, 4, 2, I.CCL_SUM, c0, s0), I.BAD_TENSOR_DTYPE, "cannot reduce dtype")
    assert_fails(L.infinicclAllReduce(None, p, 4, 13, I.CCL_SUM, c0, s0), I.NULL_POINTER, "sendbuf is NULL")
    assert_fails(L.infinicclBroadcast(p, p, 4, 13, 2, c0, s0), I.BAD_PARAM, "root 2 is not a rank")
    assert_fails(L.infinicclSend(p, 4, 13, 0, c0, s0), I.BAD_PARAM, "cannot send to itself")
    assert_fails(L.infinicclAllReduce(p, p, 1000, 13, I.CCL_SUM, c0, s0), I.BAD_PARAM, "run past the end")
    assert_fails(L.infinicclAllReduce(q, q, 4, 13, I.CCL_SUM, c0, s0), I.BAD_PARAM, "not memory of cpu:0")
    assert_fails(
        L.infinicclAllReduce(p, p, 4, 13, I.CCL_SUM, c0, pair.streams[1]), I.BAD_PARAM, "the stream is on cpu:1"
    )
    assert_fails(
        L.infinicclAllReduce(p, p, 4, 13, I.CCL_SUM, c_void_p(1234), s0), I.INVALID_HANDLE, "not a live communicator"
    )
    assert_fails(L.infinicclGroupEnd(), I.BAD_PARAM, "no group was started")
    assert_fails(L.infinicclCommSetTimeout(c0, 0), I.BAD_PARAM, "must be positive")
    comms = (c_void_p * 2)()
    assert_fails(L.infinicclCommInitAll(I.DEVICE_CPU, comms, 2, (c_int * 2)(1, 1)), I.BAD_PARAM, "listed twice")
    assert_fails(L.infinicclCommInitAll(I.DEVICE_CPU, comms, 3, None), I.DEVICE_NOT_FOUND, "3 ranks need 3 devices")
    uid = I.UniqueId()
    assert_fails(L.infinicclCommInitRank(comms, 2, uid, 0), I.BAD_PARAM, "not made by infinicclGetUniqueId")
    assert_fails(L.infinicclCommInitRank(comms, 2, uid, 2), I.BAD_PARAM, "rank 2 is not in [0, 2)")


WORKER = textwrap.dedent(
    """
    import ctypes, sys, time, os
    from ctypes import byref, c_void_p, c_int
    import numpy as np
    sys.path.insert(0, {test_dir!r})
    from infinicore_torch import _infini as I
    L = I.lib()
    rank, nranks, id_path, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if rank == 0:
        uid = I.UniqueId()
        I.check(L.infinicclGetUniqueId(I.DEVICE_CPU, byref(uid)))
        open(id_path + ".tmp", "wb").write(bytes(uid))  # all 128 bytes (.internal stops at a NUL)
        os.rename(id_path + ".tmp", id_path)
    while not os.path.exists(id_path):
        time.sleep(0.01)
    uid = I.UniqueId()
    ctypes.memmove(ctypes.addressof(uid), open(id_path, "rb").read(), ctypes.sizeof(uid))
    comm = c_void_p()
    I.check(L.infinicclCommInitRank(byref(comm), nranks, uid, rank))
    I.check(L.infinicclCommSetTimeout(comm, 3000))
    n = 1_000_003
    x = (np.arange(n) % 97 * (rank + 1)).astype(np.float32)
    p = c_void_p()
    I.check(L.infinirtMalloc(byref(p), x.nbytes))
    I.check(L.infinirtMemcpy(p, x.ctypes.data, x.nbytes, I.H2D))
    if mode == "exit" and rank == nranks - 1:
        os._exit(0)  # leaves without a word
    if mode == "late" and rank == nranks - 1:
        time.sleep(6)
    I.check(L.infinicclAllReduce(p, p, n, 13, I.CCL_SUM, comm, None))
    t0 = time.time()
    status = L.infinirtDeviceSynchronize()
    if status != 0:
        print("FAILED", rank, status, round(time.time() - t0, 1), I.last_error())
        sys.exit(3)
    out = np.empty_like(x)
    I.check(L.infinirtMemcpy(out.ctypes.data, p, x.nbytes, I.D2H))
    want = (np.arange(n) % 97 * sum(range(1, nranks + 1))).astype(np.float32)
    assert np.array_equal(out, want), (rank, out[:5], want[:5])
    print("OK", rank)
    """
)


def run_ranks(tmp_path, nranks, mode, timeout=60):
    import subprocess
    import sys

    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(test_dir=str(os.path.join(ROOT, "test"))))
    id_path = str(tmp_path / "uid")
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(r), str(nranks), id_path, mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for r in range(nranks)
    ]
    return [p.communicate(timeout=timeout)[0] + f"rc={p.returncode}" for p in procs]


@pytest.mark.parametrize("nranks", [2, 3])
def test_ranks_in_separate_processes(tmp_path, nranks):
    outs = run_ranks(tmp_path, nranks, "ok")
    for r, out in enumerate(outs):
        assert f"OK {r}" in out and out.endswith("rc=0"), out


def test_a_peer_that_exits_is_an_error_not_a_hang(tmp_path):
    outs = run_ranks(tmp_path, 3, "exit")
    for r in range(2):
        assert f"FAILED {r}" in outs[r] and "rc=3" in outs[r], outs[r]
        assert "exited" in outs[r] or "failed" in outs[r], outs[r]


def test_a_peer_that_never_arrives_times_out(tmp_path):
    outs = run_ranks(tmp_path, 2, "late", timeout=90)
    assert "FAILED 0" in outs[0] and "timed out after 3000 ms" in outs[0], outs[0]
