"""Graphs at the C ABI: stream capture records instead of running, launches replay, refused calls spoil it."""

import ctypes
from ctypes import byref, c_int, c_void_p

from conftest import L, assert_fails, d2h, dmalloc, event_create, h2d, hmalloc, stream_create

from infinicore_torch import _infini as I


def capture_status(stream) -> int:
    st = c_int()
    I.check(L.infinirtStreamIsCapturing(stream, byref(st)))
    return st.value


def end_capture(stream) -> int:
    g = c_void_p()
    I.check(L.infinirtStreamEndCapture(stream, byref(g)))
    assert g.value
    return g.value


def test_a_capture_records_and_each_launch_replays_in_order():
    n = 4096
    a, b = dmalloc(n), dmalloc(n)
    h2d(a, b"\x00" * n)
    h2d(b, b"\x00" * n)
    calls = []
    cb = I.HOST_FUNC(lambda _arg: calls.append(d2h_pinned()))
    pinned = hmalloc(n)

    def d2h_pinned():
        return ctypes.string_at(pinned, 1)

    s = stream_create()
    assert capture_status(s) == I.CAPTURE_NONE
    I.check(L.infinirtStreamBeginCapture(s, I.CAPTURE_MODE_GLOBAL))
    assert capture_status(s) == I.CAPTURE_ACTIVE
    I.check(L.infinirtMemsetAsync(a, 0x21, n, s))
    I.check(L.infinirtMemcpyAsync(b, a, n, I.D2D, s))
    I.check(L.infinirtMemcpyAsync(pinned, b, n, I.D2H, s))
    I.check(L.infinirtLaunchHostFunc(s, cb, None))
    g = end_capture(s)
    assert capture_status(s) == I.CAPTURE_NONE
    I.check(L.infinirtStreamSynchronize(s))
    assert calls == [] and d2h(b, n) == b"\x00" * n, "the capture ran what it recorded"

    other = stream_create()
    for stream in (s, other, s):
        I.check(L.infinirtGraphLaunch(g, stream))
    I.check(L.infinirtDeviceSynchronize())
    assert calls == [b"\x21"] * 3 and d2h(b, n) == b"\x21" * n
    I.check(L.infinirtGraphDestroy(g))
    assert_fails(L.infinirtGraphLaunch(g, s), I.INVALID_HANDLE, "not a live graph")
    for st in (s, other):
        I.check(L.infinirtStreamDestroy(st))
    I.check(L.infinirtFreeHost(pinned))
    for p in (a, b):
        I.check(L.infinirtFree(p))


def test_an_event_recorded_in_a_capture_is_recorded_by_each_launch():
    n = 256
    buf = dmalloc(n)
    s, waiter = stream_create(), stream_create()
    e = event_create()
    I.check(L.infinirtStreamBeginCapture(s, I.CAPTURE_MODE_GLOBAL))
    I.check(L.infinirtMemsetAsync(buf, 0x42, n, s))
    I.check(L.infinirtEventRecord(e, s))
    q = c_int()
    assert_fails(L.infinirtEventQuery(e, byref(q)), I.CAPTURE_UNSUPPORTED, "recorded during a stream capture")
    assert_fails(L.infinirtStreamWaitEvent(waiter, e), I.CAPTURE_UNSUPPORTED, "recorded during a stream capture")
    assert capture_status(s) == I.CAPTURE_INVALIDATED
    g = c_void_p()
    assert_fails(L.infinirtStreamEndCapture(s, byref(g)), I.CAPTURE_UNSUPPORTED, "recorded during a stream capture")
    assert g.value is None

    I.check(L.infinirtStreamBeginCapture(s, I.CAPTURE_MODE_RELAXED))
    I.check(L.infinirtMemsetAsync(buf, 0x43, n, s))
    I.check(L.infinirtEventRecord(e, s))
    graph = end_capture(s)
    I.check(L.infinirtGraphLaunch(graph, s))
    I.check(L.infinirtStreamWaitEvent(waiter, e))  # waits for the launch's record
    I.check(L.infinirtMemsetAsync(buf, 0x44, 1, waiter))
    I.check(L.infinirtStreamSynchronize(waiter))
    I.check(L.infinirtEventSynchronize(e))
    assert d2h(buf, n) == b"\x44" + b"\x43" * (n - 1)
    I.check(L.infinirtGraphDestroy(graph))
    I.check(L.infinirtEventDestroy(e))
    for st in (s, waiter):
        I.check(L.infinirtStreamDestroy(st))
    I.check(L.infinirtFree(buf))


def test_calls_that_need_captured_work_are_refused_and_spoil_the_capture():
    n = 256
    buf = dmalloc(n)
    host = ctypes.create_string_buffer(n)
    s = stream_create()
    refused = [
        lambda: L.infinirtStreamSynchronize(s),
        lambda: L.infinirtDeviceSynchronize(),
        lambda: L.infinirtStreamQuery(s, byref(c_int())),
        lambda: L.infinirtMemcpy(buf, host, n, I.H2D),
        lambda: L.infinirtMemset(buf, 0, n),
        lambda: L.infinirtMemcpyAsync(buf, host, n, I.H2D, s),
        lambda: L.infinirtMallocAsync(byref(c_void_p()), n, s),
    ]
    for call in refused:
        I.check(L.infinirtStreamBeginCapture(s, I.CAPTURE_MODE_GLOBAL))
        assert_fails(call(), I.CAPTURE_UNSUPPORTED, "capturing")
        assert capture_status(s) == I.CAPTURE_INVALIDATED
        g = c_void_p()
        assert_fails(L.infinirtStreamEndCapture(s, byref(g)), I.CAPTURE_UNSUPPORTED, "has no graph")
        assert capture_status(s) == I.CAPTURE_NONE
    I.check(L.infinirtStreamSynchronize(s))  # usable again
    I.check(L.infinirtStreamDestroy(s))
    I.check(L.infinirtFree(buf))


def test_bad_arguments():
    s = stream_create()
    assert_fails(L.infinirtStreamBeginCapture(None, 0), I.BAD_PARAM, "default stream cannot be captured")
    assert_fails(L.infinirtStreamBeginCapture(s, 7), I.BAD_PARAM, "not a capture mode")
    g = c_void_p()
    assert_fails(L.infinirtStreamEndCapture(s, byref(g)), I.CAPTURE_UNSUPPORTED, "not capturing")
    I.check(L.infinirtStreamBeginCapture(s, 0))
    assert_fails(L.infinirtStreamBeginCapture(s, 0), I.BAD_PARAM, "capturing already")
    assert_fails(L.infinirtStreamDestroy(s), I.CAPTURE_UNSUPPORTED, "capturing")
    graph = end_capture(s)  # an empty graph launches as nothing
    I.check(L.infinirtGraphLaunch(graph, s))
    I.set_device(I.DEVICE_CPU, 1)
    assert_fails(L.infinirtGraphLaunch(graph, None), I.BAD_PARAM, "captured on cpu:0")
    I.set_device(I.DEVICE_CPU, 0)
    I.check(L.infinirtGraphDestroy(graph))
    assert_fails(L.infinirtGraphDestroy(graph), I.INVALID_HANDLE, "not a live graph")
    I.check(L.infinirtStreamDestroy(s))
