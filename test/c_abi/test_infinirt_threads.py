"""Eight threads allocating, copying, launching and freeing at once stay consistent."""

import ctypes
import random
import threading
from ctypes import byref, c_void_p

from conftest import L, event_create, used_bytes

from infinicore_torch import _infini as I

THREADS = 8
ITERATIONS = 150


def worker(tid: int, errors: list) -> None:
    rng = random.Random(tid)
    try:
        streams = {}
        for dev in (0, 1):
            I.set_device(I.DEVICE_CPU, dev)
            s = c_void_p()
            I.check(L.infinirtStreamCreate(byref(s)))
            streams[dev] = s.value
        e = event_create()  # on device 1 (current)
        for it in range(ITERATIONS):
            dev = (tid + it) % 2
            I.set_device(I.DEVICE_CPU, dev)
            assert I.get_device() == (I.DEVICE_CPU, dev)
            n = rng.randrange(1, 1 << 18)
            fill = (tid * 37 + it) % 256
            p = c_void_p()
            I.check(L.infinirtMalloc(byref(p), n))
            host_in = ctypes.create_string_buffer(bytes([fill]) * n, n)
            pinned_out = c_void_p()
            I.check(L.infinirtMallocHost(byref(pinned_out), n))
            s = streams[dev] if it % 3 else None
            I.check(L.infinirtMemcpyAsync(p, host_in, n, I.H2D, s))
            I.check(L.infinirtMemsetAsync(p, 255 - fill, n // 2, s))
            I.check(L.infinirtMemcpyAsync(pinned_out, p, n, I.D2H, s))
            if dev == 1:
                I.check(L.infinirtEventRecord(e, s))
                I.check(L.infinirtEventSynchronize(e))
            else:
                I.check(L.infinirtStreamSynchronize(s))
            got = ctypes.string_at(pinned_out, n)
            expect = bytes([255 - fill]) * (n // 2) + bytes([fill]) * (n - n // 2)
            if got != expect:
                raise AssertionError(f"thread {tid} iteration {it}: wrong data")
            if it % 2:
                I.check(L.infinirtFreeAsync(p, s))
            else:
                I.check(L.infinirtFree(p))
            I.check(L.infinirtFreeHost(pinned_out))
        I.check(L.infinirtEventDestroy(e))
        for dev, s in streams.items():
            I.check(L.infinirtStreamDestroy(s))
    except Exception as ex:  # reported by the main thread
        errors.append(f"thread {tid}: {ex}")


def test_eight_threads_allocating_copying_and_freeing():
    base = (used_bytes(0), used_bytes(1))
    errors: list = []
    threads = [threading.Thread(target=worker, args=(t, errors)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert errors == []
    for dev in (0, 1):
        I.set_device(I.DEVICE_CPU, dev)
        I.check(L.infinirtDeviceSynchronize())  # FreeAsync completes with the stream
    assert (used_bytes(0), used_bytes(1)) == base
