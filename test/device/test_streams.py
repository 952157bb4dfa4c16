"""Streams and events on the asynchronous CPU backend: ordering, waiting, timing, overlap."""

import ctypes
import time

import pytest
import torch

from infinicore_torch import _infini as I

L = I.lib()


def slow_on(stream: torch.Stream, seconds: float):
    """Queues a sleeping host function on stream; keep the result alive until it has run."""
    fn = I.HOST_FUNC(lambda _a: time.sleep(seconds))
    with torch.infini.device(stream.device_index):
        I.check(L.infinirtLaunchHostFunc(ctypes.c_void_p(stream.native_handle), fn, None))
    return fn


@pytest.mark.two_devices
def test_current_default_and_pool_streams():
    d = torch.infini.default_stream()
    assert d.stream_id == 0 and torch.infini.current_stream() == d
    s = torch.infini.Stream()
    assert s.stream_id > 0 and s.device == torch.device("infini:0")
    with torch.infini.stream(s):
        assert torch.infini.current_stream() == s
    assert torch.infini.current_stream() == d
    with s:
        assert torch.infini.current_stream() == s
    s1 = torch.infini.Stream(device=1)
    with torch.infini.stream(s1):
        assert torch.infini.current_device() == 1 and torch.infini.current_stream(1) == s1
    assert torch.infini.current_device() == 0
    t = torch.Stream(device="infini")
    assert t.device_type == torch.device("infini").type or t.device.type == "infini"
    assert t.query()
    t.synchronize()


def test_work_on_two_streams_with_an_event_between_them_orders_correctly():
    a, b = torch.infini.Stream(), torch.infini.Stream()
    src = torch.full((1 << 16,), 1.0, device="infini")
    dst = torch.zeros(1 << 16, device="infini")
    torch.infini.synchronize()  # src and dst were written on the default stream
    keep = slow_on(a, 0.25)
    with torch.infini.stream(a):
        src.fill_(7.0)  # queued behind the slow work on a
    e = torch.infini.Event()
    e.record(a)
    b.wait_event(e)
    with torch.infini.stream(b):
        dst.copy_(src)  # must see 7.0
    assert not a.query()
    b.synchronize()
    assert torch.equal(dst.cpu(), torch.full((1 << 16,), 7.0))
    del keep


def test_without_the_event_the_other_stream_does_not_wait():
    a, b = torch.infini.Stream(), torch.infini.Stream()
    src = torch.full((1024,), 1.0, device="infini")
    host = torch.empty(1024).pin_memory()
    torch.infini.synchronize()  # src was filled on the default stream, which a and b do not wait for
    keep = slow_on(a, 0.25)
    with torch.infini.stream(a):
        src.fill_(7.0)
    with torch.infini.stream(b):
        host.copy_(src, non_blocking=True)
    b.synchronize()
    assert torch.equal(host, torch.full((1024,), 1.0))  # b ran before a's queued fill
    a.synchronize()
    del keep


def test_wait_stream():
    a, b = torch.infini.Stream(), torch.infini.Stream()
    x = torch.zeros(100, device="infini")
    torch.infini.synchronize()
    keep = slow_on(a, 0.2)
    with torch.infini.stream(a):
        x.fill_(3.0)
    b.wait_stream(a)
    with torch.infini.stream(b):
        y = torch.empty(100, device="infini")
        y.copy_(x)
    b.synchronize()
    assert torch.equal(y.cpu(), torch.full((100,), 3.0))
    del keep


def test_event_timing_query_and_synchronize():
    s = torch.infini.current_stream()
    start, end = torch.infini.Event(enable_timing=True), torch.infini.Event(enable_timing=True)
    start.record()
    keep = slow_on(s, 0.1)
    end.record()
    assert not end.query()
    end.synchronize()
    assert end.query()
    ms = start.elapsed_time(end)
    assert 95 <= ms < 1000, ms
    generic = torch.Event(device="infini", enable_timing=True)
    generic.record(s)
    generic.synchronize()
    assert generic.query()
    del keep


def test_non_blocking_copies_overlap_and_land():
    s = torch.infini.current_stream()
    n = 1 << 20
    src = torch.arange(n, dtype=torch.float32).pin_memory()
    keep = slow_on(s, 0.3)
    t0 = time.perf_counter()
    dev = src.to("infini", non_blocking=True)
    back = torch.empty(n).pin_memory()
    back.copy_(dev, non_blocking=True)
    issued = time.perf_counter() - t0
    assert issued < 0.15, f"non_blocking copies took {issued:.3f}s to issue"
    torch.infini.synchronize()
    assert torch.equal(back, src)
    # a blocking copy waits
    keep2 = slow_on(s, 0.2)
    t0 = time.perf_counter()
    out = dev.cpu()
    assert time.perf_counter() - t0 >= 0.2
    assert torch.equal(out, src)
    del keep, keep2


def test_device_synchronize_waits_for_all_streams():
    a = torch.infini.Stream()
    t0 = time.perf_counter()  # (before the sleep is queued: on a GPU it starts at once)
    keep = slow_on(a, 0.2)
    torch.infini.synchronize()
    assert time.perf_counter() - t0 >= 0.2
    assert a.query()
    del keep
