"""Faults of an "infiniccl" group, on whichever backend is the infini device: the CPU backend (here and in
CI), or the nvidia backend on a machine with two GPUs (one a rank; with fewer GPUs these tests skip).

- a rank that exits before, or with, an all_reduce makes the other raise DistBackendError within the group's
  timeout (plus slack), and the survivor then shuts its groups down and exits (no hang);
- a rank that never arrives makes the other time out;
- ProcessGroup.abort() returns, later collectives of that group raise on this rank and (by the backend's
  own detection or by the watchdog's timeout) on the other; the default group keeps working;
- ProcessGroup.shutdown() returns, later collectives of that group raise, and destroying it still works.

How the survivor learns of the fault differs by backend, not what it sees: on the CPU backend a wait blocks
the host and the backend notices an exited peer at once; on the nvidia backend (nonblocking waits) the
group's watchdog finds the stuck all_reduce at the timeout and aborts the communicators, the stream moves on,
and the next collective raises (or the blocking wait itself, with INFINICCL_BLOCKING_WAIT=1).
"""

from __future__ import annotations

import datetime
import os
import time

import pytest
import torch
import torch.distributed as dist
from _harness import assert_ok, launch

import infinicore_torch  # noqa: F401

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="torch.distributed is not available")

TIMEOUT_S = 4  # the groups' timeout
SLACK_S = 10  # aborting NCCL, tearing down, a loaded machine


def _device():
    return torch.device("infini", torch.infini.current_device())


def _until_raises(t, group=None, limit_s=TIMEOUT_S + SLACK_S):
    """all_reduce t (then synchronize) until a collective of `group` raises DistBackendError; returns the
    seconds it took and the message."""
    t0 = time.time()
    while time.time() - t0 < limit_s:
        try:
            dist.all_reduce(t, group=group)
            torch.infini.synchronize()
        except dist.DistBackendError as e:
            return time.time() - t0, str(e)
    raise AssertionError(f"no DistBackendError within {limit_s} s")


def _refuses(t, group, why, word):
    """An all_reduce of `group` raises DistBackendError at once, its message naming `word` (after `why`)."""
    try:
        dist.all_reduce(t, group=group)
    except dist.DistBackendError as e:
        assert word in str(e), str(e)
    else:
        raise AssertionError(f"a collective after {why} did not raise")


# ------------------------------------------------------------------------------------------------
# The checks (run in every rank).


def check_peer_dies(rank, world, when):
    t = torch.ones(1 << 20, device=_device())
    dist.all_reduce(t)  # the communicator is up
    torch.infini.synchronize()
    if rank == 1:
        if when == "during":
            dist.all_reduce(t)  # queued: on the nvidia backend the process dies with it in flight
        os._exit(0)
    took, message = _until_raises(t)
    assert took < TIMEOUT_S + SLACK_S, f"took {took:.1f} s"
    return f"RAISED after {took:.2f} s: {message}"


def check_never_arrives(rank, world):
    if rank == 1:
        time.sleep(TIMEOUT_S + 3)
        return "LATE"
    took, message = _until_raises(torch.ones(10, device=_device()))
    assert f"timed out after {TIMEOUT_S * 1000} ms" in message, message
    return f"RAISED after {took:.2f} s: {message}"


def check_abort(rank, world):
    timeout = datetime.timedelta(seconds=TIMEOUT_S)
    g = dist.new_group(backend="infiniccl", timeout=timeout)
    t = torch.ones(100, device=_device())
    dist.all_reduce(t, group=g)
    torch.infini.synchronize()
    assert torch.equal(t.cpu(), torch.full((100,), float(world)))
    if rank == 0:
        t0 = time.time()
        g.abort()
        assert time.time() - t0 < SLACK_S, "abort() took too long"
        _refuses(t, g, "abort()", "aborted")
        g.abort()  # again: nothing more to do
    else:
        took, message = _until_raises(t, group=g)
        assert took < TIMEOUT_S + SLACK_S, f"took {took:.1f} s"
    # the default group is untouched
    u = torch.ones(10, device=_device())
    dist.all_reduce(u)
    assert torch.equal(u.cpu(), torch.full((10,), float(world)))


def check_shutdown(rank, world):
    g = dist.new_group(backend="infiniccl")
    t = torch.ones(100, device=_device())
    work = dist.all_reduce(t, group=g, async_op=True)
    work.wait()
    torch.infini.synchronize()
    assert torch.equal(t.cpu(), torch.full((100,), float(world)))
    dist.barrier()  # both ranks are done with g
    g.shutdown()
    g.shutdown()  # again: nothing more to do
    _refuses(t, g, "shutdown()", "shut down")
    dist.destroy_process_group(g)


# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("blocking_wait", ["0", "1"])
@pytest.mark.parametrize("when", ["before", "during"])
def test_a_rank_that_dies_makes_the_other_raise(tmp_path, monkeypatch, when, blocking_wait):
    monkeypatch.setenv("INFINICCL_BLOCKING_WAIT", blocking_wait)
    results = launch(tmp_path, 2, check_peer_dies, args=(when,), timeout_s=TIMEOUT_S, join_s=120)
    assert results[0].startswith("RAISED"), results[0]


def test_a_rank_that_never_arrives_times_out(tmp_path):
    results = launch(tmp_path, 2, check_never_arrives, timeout_s=TIMEOUT_S, join_s=120)
    assert results[0].startswith("RAISED"), results[0]
    assert results[1] == "LATE", results[1]


def test_abort_fails_the_group_and_returns(tmp_path):
    assert_ok(launch(tmp_path, 2, check_abort, join_s=120))


def test_shutdown_ends_the_group(tmp_path):
    assert_ok(launch(tmp_path, 2, check_shutdown, join_s=120))
