"""Events: record on streams, query, synchronize, and time the work between them."""

import ctypes
import time
from ctypes import byref, c_float

from conftest import L, assert_fails, event_create, event_status, sleeper, stream_create

from infinicore_torch import _infini as I


def test_elapsed_time_measures_the_work_between_two_events():
    s = stream_create()
    start, end = event_create(), event_create()
    slow = sleeper(0.1)
    I.check(L.infinirtEventRecord(start, s))
    I.check(L.infinirtLaunchHostFunc(s, slow, None))
    I.check(L.infinirtEventRecord(end, s))
    assert event_status(end) == I.EVENT_NOT_READY
    ms = c_float()
    assert_fails(
        L.infinirtEventElapsedTime(byref(ms), start, end), I.NOT_READY, "infinirtEventElapsedTime", "not completed"
    )
    I.check(L.infinirtEventSynchronize(end))
    assert event_status(end) == I.EVENT_COMPLETE
    I.check(L.infinirtEventElapsedTime(byref(ms), start, end))
    assert 95.0 <= ms.value < 1000.0, ms.value
    I.check(L.infinirtEventElapsedTime(byref(ms), end, start))
    assert ms.value < 0  # as CUDA: reversed order gives a negative time
    for e in (start, end):
        I.check(L.infinirtEventDestroy(e))
    I.check(L.infinirtStreamDestroy(s))


def test_event_synchronize_waits_for_the_record_only():
    a, b = stream_create(), stream_create()
    e = event_create()
    slow_a, slow_b = sleeper(0.1), sleeper(1.0)
    I.check(L.infinirtLaunchHostFunc(a, slow_a, None))
    I.check(L.infinirtEventRecord(e, a))
    I.check(L.infinirtLaunchHostFunc(b, slow_b, None))
    t0 = time.perf_counter()
    I.check(L.infinirtEventSynchronize(e))
    waited = time.perf_counter() - t0
    assert waited < 0.8, f"event sync waited {waited:.2f}s: it must not wait for other streams"
    I.check(L.infinirtStreamSynchronize(b))
    I.check(L.infinirtEventDestroy(e))
    for s in (a, b):
        I.check(L.infinirtStreamDestroy(s))


def test_a_never_recorded_event_is_complete_but_has_no_time():
    e = event_create()
    assert event_status(e) == I.EVENT_COMPLETE
    I.check(L.infinirtEventSynchronize(e))
    ms = c_float()
    assert_fails(L.infinirtEventElapsedTime(byref(ms), e, e), I.BAD_PARAM, "never recorded")
    I.check(L.infinirtEventDestroy(e))


def test_disable_timing_events_order_but_do_not_time():
    s = stream_create()
    e = event_create(I.EVENT_DISABLE_TIMING)
    I.check(L.infinirtEventRecord(e, s))
    I.check(L.infinirtEventSynchronize(e))
    ms = c_float()
    assert_fails(L.infinirtEventElapsedTime(byref(ms), e, e), I.BAD_PARAM, "DISABLE_TIMING")
    I.check(L.infinirtEventDestroy(e))
    I.check(L.infinirtStreamDestroy(s))


def test_rerecording_moves_the_event():
    s = stream_create()
    e = event_create()
    I.check(L.infinirtEventRecord(e, s))
    I.check(L.infinirtStreamSynchronize(s))
    slow = sleeper(0.15)
    I.check(L.infinirtLaunchHostFunc(s, slow, None))
    I.check(L.infinirtEventRecord(e, s))
    assert event_status(e) == I.EVENT_NOT_READY
    I.check(L.infinirtEventSynchronize(e))
    assert event_status(e) == I.EVENT_COMPLETE
    I.check(L.infinirtEventDestroy(e))
    I.check(L.infinirtStreamDestroy(s))


def test_event_errors():
    e = event_create()
    I.set_device(I.DEVICE_CPU, 1)
    s1 = stream_create()
    I.set_device(I.DEVICE_CPU, 0)
    assert_fails(L.infinirtEventRecord(e, s1), I.BAD_PARAM, "infinirtEventRecord", "event of cpu:0", "stream of cpu:1")
    I.check(L.infinirtStreamWaitEvent(s1, e))  # waiting across devices is allowed
    I.check(L.infinirtEventDestroy(e))
    assert_fails(L.infinirtEventDestroy(e), I.INVALID_HANDLE, "infinirtEventDestroy", "not a live event")
    assert_fails(L.infinirtEventRecord(e, None), I.INVALID_HANDLE, "infinirtEventRecord")
    assert_fails(L.infinirtEventQuery(0xBAD, byref(ctypes.c_int())), I.INVALID_HANDLE)
    assert_fails(L.infinirtEventCreate(None), I.NULL_POINTER, "infinirtEventCreate")
    assert_fails(L.infinirtEventCreateWithFlags(byref(ctypes.c_void_p()), 0x80), I.BAD_PARAM, "unknown flags")
    assert_fails(L.infinirtEventElapsedTime(None, 1, 2), I.NULL_POINTER, "ms_ptr")
    assert_fails(L.infinirtStreamWaitEvent(None, None), I.NULL_POINTER, "event")
    I.check(L.infinirtStreamDestroy(s1))
