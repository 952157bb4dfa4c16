"""infiniccl's fault handling on the nvidia backend (NCCL), through the C ABI, on one GPU: nonblocking
communicators join, run collectives and groups, abort (a later call reports it) and are destroyed; a rank
that never joins makes the first collective time out at the communicator's timeout instead of hanging; the
same with INFINI_NCCL_BLOCKING=1 (blocking communicators). Skips where the nvidia backend has no device."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from ctypes import byref, c_int, c_void_p

import numpy as np
import pytest
from conftest import ROOT, L, assert_fails, d2h, dmalloc, h2d

from infinicore_torch import _infini as I


def _gpus() -> int:
    n = c_int(0)
    return n.value if L.infinirtGetDeviceCount(I.DEVICE_NVIDIA, byref(n)) == I.SUCCESS else 0


pytestmark = pytest.mark.skipif(_gpus() < 1, reason="needs the nvidia backend with a GPU")


def _comm(nranks: int, timeout_ms: int = 3000) -> c_void_p:
    uid = I.UniqueId()
    I.check(L.infinicclGetUniqueId(I.DEVICE_NVIDIA, byref(uid)))
    c = c_void_p()
    I.check(L.infinicclCommInitRank(byref(c), nranks, uid, 0))
    I.check(L.infinicclCommSetTimeout(c, timeout_ms))
    return c


@pytest.fixture
def gpu():
    I.set_device(I.DEVICE_NVIDIA, 0)
    yield
    I.set_device(I.DEVICE_CPU, 0)


def _ones(n: int) -> int:
    p = dmalloc(4 * n)
    h2d(p, np.ones(n, np.float32).tobytes())
    return p


def test_one_rank_collectives_abort_and_destroy(gpu):
    p = _ones(1024)
    c = _comm(1)
    I.check(L.infinicclAllReduce(p, p, 1024, 13, I.CCL_SUM, c, None))
    I.check(L.infinicclGroupStart())
    I.check(L.infinicclAllReduce(p, p, 1024, 13, I.CCL_MAX, c, None))
    I.check(L.infinicclGroupEnd())
    assert np.frombuffer(d2h(p, 4096), np.float32).tolist() == [1.0] * 1024
    err = c_int(-1)
    I.check(L.infinicclCommGetAsyncError(c, byref(err)))
    assert err.value == I.SUCCESS
    I.check(L.infinicclCommDestroy(c))  # finalized, then destroyed

    c = _comm(1)
    I.check(L.infinicclAllReduce(p, p, 1024, 13, I.CCL_SUM, c, None))
    I.check(L.infinicclCommAbort(c))
    I.check(L.infinicclCommAbort(c))  # again: nothing more to do
    assert_fails(L.infinicclAllReduce(p, p, 1024, 13, I.CCL_SUM, c, None), I.ABORTED, "aborted")
    I.check(L.infinicclCommGetAsyncError(c, byref(err)))
    assert err.value == I.ABORTED
    I.check(L.infinirtDeviceSynchronize())  # the device is fine after an abort
    I.check(L.infinicclCommDestroy(c))
    I.check(L.infinirtFree(p))


def test_a_rank_that_never_joins_times_out(gpu):
    p = _ones(16)
    t0 = time.time()
    c = _comm(2, timeout_ms=3000)  # rank 1 never comes
    assert time.time() - t0 < 3, "a nonblocking join waited for the missing rank"
    t0 = time.time()
    assert_fails(L.infinicclAllReduce(p, p, 16, 13, I.CCL_SUM, c, None), I.TIMEOUT, "timed out after 3000 ms")
    took = time.time() - t0
    assert 2.5 < took < 20, took
    # the failure sticks, and destroying does not wait
    assert_fails(L.infinicclAllReduce(p, p, 16, 13, I.CCL_SUM, c, None), I.TIMEOUT, "timed out after 3000 ms")
    t0 = time.time()
    I.check(L.infinicclCommDestroy(c))
    assert time.time() - t0 < 10
    I.check(L.infinirtFree(p))


def test_blocking_communicators_still_work(tmp_path):
    script = tmp_path / "blocking.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys; sys.path.insert(0, {os.path.join(ROOT, "test")!r}); sys.path.insert(0, {ROOT!r})
            import test_infiniccl_nvidia as t
            t.I.set_device(t.I.DEVICE_NVIDIA, 0)
            t.test_one_rank_collectives_abort_and_destroy(None)
            print("OK")
            """
        )
    )
    env = dict(os.environ, INFINI_NCCL_BLOCKING="1")
    env["PYTHONPATH"] = os.path.join(ROOT, "test", "c_abi") + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr
