"""Devices: counts, per-thread current device, memory info, names, bad indices."""

import threading
from ctypes import byref, c_int

from conftest import L, assert_fails, dmalloc, used_bytes

from infinicore_torch import _infini as I


def test_cpu_backend_has_two_devices_by_default():
    assert I.device_count(I.DEVICE_CPU) == 2
    counts = (c_int * I.DEVICE_TYPE_COUNT)()
    I.check(L.infinirtGetAllDeviceCount(counts))
    assert counts[I.DEVICE_CPU] == 2
    assert I.check(L.infinirtInit()) is None


def test_each_device_has_its_own_memory_accounting():
    before0, before1 = used_bytes(0), used_bytes(1)
    I.set_device(I.DEVICE_CPU, 1)
    p = dmalloc(1 << 20)
    assert used_bytes(1) == before1 + (1 << 20)
    assert used_bytes(0) == before0
    I.check(L.infinirtFree(p))
    assert used_bytes(1) == before1


def test_current_device_is_per_thread():
    I.set_device(I.DEVICE_CPU, 1)
    seen = {}
    barrier = threading.Barrier(2)

    def worker():
        seen["start"] = I.get_device()  # a new thread starts on cpu:0
        I.set_device(I.DEVICE_CPU, 0)
        barrier.wait()
        barrier.wait()
        seen["end"] = I.get_device()

    t = threading.Thread(target=worker)
    t.start()
    barrier.wait()
    I.set_device(I.DEVICE_CPU, 1)  # main thread switching does not move the worker
    barrier.wait()
    t.join()
    assert seen["start"] == (I.DEVICE_CPU, 0)
    assert seen["end"] == (I.DEVICE_CPU, 0)
    assert I.get_device() == (I.DEVICE_CPU, 1)


def test_allocation_follows_the_calling_threads_device():
    results = {}

    def worker(dev):
        I.set_device(I.DEVICE_CPU, dev)
        p = dmalloc(4096)
        attr = I.PointerAttributes()
        I.check(L.infinirtPointerGetAttributes(byref(attr), p))
        results[dev] = (attr.type, attr.device_id)
        I.check(L.infinirtFree(p))

    threads = [threading.Thread(target=worker, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {0: (I.MEMORY_DEVICE, 0), 1: (I.MEMORY_DEVICE, 1)}


def test_bad_device_indices_and_types_are_errors():
    assert_fails(
        L.infinirtSetDevice(I.DEVICE_CPU, 2), I.DEVICE_NOT_FOUND, "infinirtSetDevice", "cpu:2", "2 cpu devices"
    )
    assert_fails(L.infinirtSetDevice(I.DEVICE_CPU, -1), I.DEVICE_NOT_FOUND, "cpu:-1")
    assert_fails(L.infinirtSetDevice(99, 0), I.BAD_PARAM, "99 is not a device type")
    assert I.get_device() == (I.DEVICE_CPU, 0)  # a failed switch changes nothing
    assert_fails(L.infinirtGetMemInfo(I.DEVICE_CPU, 5, None, None), I.NULL_POINTER, "infinirtGetMemInfo")


def test_absent_backend_type_is_reported_not_crashed():
    if I.device_count(I.DEVICE_NVIDIA) > 0:
        return  # on a GPU machine the nvidia backend is present
    assert_fails(L.infinirtSetDevice(I.DEVICE_NVIDIA, 0), I.DEVICE_TYPE_NOT_SUPPORTED, "no nvidia backend")


def test_mem_info_and_name():
    free, total = I.mem_info(I.DEVICE_CPU, 0)
    assert total == 8 << 30 and 0 <= free <= total
    assert I.device_name(I.DEVICE_CPU, 1).startswith("InfiniCore CPU device 1")


def test_null_out_pointers_are_errors():
    assert_fails(L.infinirtGetDevice(None, None), I.NULL_POINTER, "infinirtGetDevice")
    assert_fails(L.infinirtGetDeviceCount(I.DEVICE_CPU, None), I.NULL_POINTER, "count")
    assert_fails(L.infinirtGetAllDeviceCount(None), I.NULL_POINTER, "count_array")
    assert_fails(L.infinirtGetBackendInfo(0, None), I.NULL_POINTER)
    assert_fails(L.infinirtGetBackendInfo(1000, byref(I.BackendInfo())), I.BAD_PARAM, "out of range")
