"""Streams: ordered queues run by worker threads; launches return at once, only syncs wait."""

import ctypes
import time

from conftest import L, assert_fails, d2h, dmalloc, event_create, h2d, hmalloc, sleeper, stream_create, stream_status

from infinicore_torch import _infini as I


def test_slow_task_then_async_copy_then_sync_returns_the_right_data():
    n = 1 << 20
    src, dst = dmalloc(n), dmalloc(n)
    h2d(src, b"\x11" * n)
    h2d(dst, b"\x00" * n)
    host = hmalloc(n)
    ctypes.memset(host, 0, n)
    s = stream_create()
    slow = sleeper(0.3)
    t0 = time.perf_counter()
    I.check(L.infinirtLaunchHostFunc(s, slow, None))
    I.check(L.infinirtMemsetAsync(src, 0x5A, n, s))
    I.check(L.infinirtMemcpyAsync(dst, src, n, I.D2D, s))
    I.check(L.infinirtMemcpyAsync(host, dst, n, I.D2H, s))
    launched = time.perf_counter() - t0
    assert launched < 0.15, f"launches took {launched:.3f}s: they must not wait for the queue"
    assert stream_status(s) == I.EVENT_NOT_READY
    assert ctypes.string_at(host, n) == b"\x00" * n  # nothing has run yet
    I.check(L.infinirtStreamSynchronize(s))
    assert time.perf_counter() - t0 >= 0.3
    assert stream_status(s) == I.EVENT_COMPLETE
    assert ctypes.string_at(host, n) == b"\x5a" * n
    I.check(L.infinirtStreamDestroy(s))
    I.check(L.infinirtFreeHost(host))
    for p in (src, dst):
        I.check(L.infinirtFree(p))


def test_tasks_run_in_launch_order():
    order = []
    s = stream_create()
    cbs = [I.HOST_FUNC(lambda _a, i=i: order.append(i)) for i in range(50)]
    for cb in cbs:
        I.check(L.infinirtLaunchHostFunc(s, cb, None))
    I.check(L.infinirtStreamSynchronize(s))
    assert order == list(range(50))
    I.check(L.infinirtStreamDestroy(s))


def test_streams_are_independent_and_an_event_orders_them():
    n = 4096
    buf = dmalloc(n)
    h2d(buf, b"\x01" * n)
    a, b = stream_create(), stream_create()
    out_unordered, out_ordered = hmalloc(n), hmalloc(n)
    slow = sleeper(0.25)
    # stream a: slow work, then writes 0x77; stream b reads the buffer
    I.check(L.infinirtLaunchHostFunc(a, slow, None))
    I.check(L.infinirtMemsetAsync(buf, 0x77, n, a))
    e = event_create()
    I.check(L.infinirtEventRecord(e, a))
    I.check(L.infinirtMemcpyAsync(out_unordered, buf, n, I.D2H, b))  # no wait: runs before a's write
    I.check(L.infinirtStreamWaitEvent(b, e))
    I.check(L.infinirtMemcpyAsync(out_ordered, buf, n, I.D2H, b))
    I.check(L.infinirtStreamSynchronize(b))
    assert ctypes.string_at(out_unordered, n) == b"\x01" * n
    assert ctypes.string_at(out_ordered, n) == b"\x77" * n
    for s in (a, b):
        I.check(L.infinirtStreamDestroy(s))
    I.check(L.infinirtEventDestroy(e))
    I.check(L.infinirtFree(buf))
    for p in (out_unordered, out_ordered):
        I.check(L.infinirtFreeHost(p))


def test_wait_on_a_never_recorded_event_is_a_no_op():
    s = stream_create()
    e = event_create()
    I.check(L.infinirtStreamWaitEvent(s, e))
    I.check(L.infinirtStreamSynchronize(s))
    I.check(L.infinirtEventDestroy(e))
    I.check(L.infinirtStreamDestroy(s))


def test_default_stream_and_device_synchronize():
    n = 1 << 16
    buf = dmalloc(n)
    host = hmalloc(n)
    slow = sleeper(0.2)
    s = stream_create()
    t0 = time.perf_counter()
    I.check(L.infinirtLaunchHostFunc(None, slow, None))  # NULL: the device's default stream
    I.check(L.infinirtMemsetAsync(buf, 0x42, n, None))
    I.check(L.infinirtLaunchHostFunc(s, slow, None))
    I.check(L.infinirtMemcpyAsync(host, buf, n, I.D2H, None))
    I.check(L.infinirtDeviceSynchronize())  # waits for both streams
    assert time.perf_counter() - t0 >= 0.2
    assert stream_status(s) == I.EVENT_COMPLETE and stream_status(None) == I.EVENT_COMPLETE
    assert ctypes.string_at(host, n) == b"\x42" * n
    I.check(L.infinirtStreamDestroy(s))
    I.check(L.infinirtFree(buf))
    I.check(L.infinirtFreeHost(host))


def test_free_waits_for_queued_work_that_uses_the_memory():
    n = 1 << 20
    buf = dmalloc(n)
    host = hmalloc(n)
    slow = sleeper(0.2)
    s = stream_create()
    I.check(L.infinirtLaunchHostFunc(s, slow, None))
    I.check(L.infinirtMemsetAsync(buf, 0x33, n, s))
    I.check(L.infinirtMemcpyAsync(host, buf, n, I.D2H, s))
    I.check(L.infinirtFree(buf))  # must not free under the queued memset and copy
    assert stream_status(s) == I.EVENT_COMPLETE
    assert ctypes.string_at(host, n) == b"\x33" * n
    I.check(L.infinirtStreamDestroy(s))
    I.check(L.infinirtFreeHost(host))


def test_stream_destroy_drains_the_queue():
    n = 4096
    buf = dmalloc(n)
    s = stream_create()
    slow = sleeper(0.1)
    I.check(L.infinirtLaunchHostFunc(s, slow, None))
    I.check(L.infinirtMemsetAsync(buf, 0x09, n, s))
    I.check(L.infinirtStreamDestroy(s))
    assert d2h(buf, n) == b"\x09" * n
    I.check(L.infinirtFree(buf))


def test_invalid_stream_handles_are_errors():
    s = stream_create()
    I.check(L.infinirtStreamDestroy(s))
    assert_fails(L.infinirtStreamSynchronize(s), I.INVALID_HANDLE, "infinirtStreamSynchronize", "not a live stream")
    assert_fails(L.infinirtStreamDestroy(s), I.INVALID_HANDLE, "infinirtStreamDestroy")
    bogus = 0xDEADBEEF
    assert_fails(L.infinirtMemsetAsync(None, 0, 0, bogus), I.INVALID_HANDLE, "infinirtMemsetAsync")
    assert_fails(L.infinirtStreamQuery(bogus, ctypes.byref(ctypes.c_int())), I.INVALID_HANDLE)
    assert_fails(L.infinirtLaunchHostFunc(bogus, sleeper(0), None), I.INVALID_HANDLE, "infinirtLaunchHostFunc")
    assert_fails(L.infinirtStreamCreate(None), I.NULL_POINTER, "infinirtStreamCreate")
    assert_fails(L.infinirtStreamDestroy(None), I.BAD_PARAM, "default stream")
    assert_fails(L.infinirtStreamQuery(None, None), I.NULL_POINTER)
