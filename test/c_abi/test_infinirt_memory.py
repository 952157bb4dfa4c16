"""Memory: allocation and accounting, out of memory, copies of all kinds (sync and async), checks."""

import ctypes
from ctypes import byref, c_void_p

import pytest
from conftest import L, assert_fails, d2h, dmalloc, h2d, hmalloc, stream_create, used_bytes

from infinicore_torch import _infini as I

GiB = 1 << 30


def pattern(n: int, seed: int = 0) -> bytes:
    return bytes((i * 31 + seed) % 251 for i in range(n))


def test_malloc_free_accounting_returns_to_baseline():
    base = used_bytes(0)
    ptrs = [dmalloc(n) for n in (1, 255, 256, 1000, 1 << 20)]
    assert used_bytes(0) == base + 256 + 256 + 256 + 1024 + (1 << 20)  # rounded to 256 bytes
    assert all(p % 256 == 0 for p in ptrs)
    for p in ptrs:
        I.check(L.infinirtFree(p))
    assert used_bytes(0) == base


def test_zero_size_and_null_free():
    p = c_void_p(1234)
    I.check(L.infinirtMalloc(byref(p), 0))
    assert p.value is None
    I.check(L.infinirtFree(None))
    I.check(L.infinirtFreeHost(None))


def test_out_of_memory_is_a_status_and_the_device_stays_usable():
    base = used_bytes(0)
    p = c_void_p()
    msg = assert_fails(L.infinirtMalloc(byref(p), 9 * GiB), I.OUT_OF_MEMORY, "infinirtMalloc", "out of memory on cpu:0")
    assert "tried to allocate 9663676416 bytes" in msg and "free of 8589934592" in msg
    assert p.value is None
    a, b = dmalloc(3 * GiB), dmalloc(3 * GiB)  # untouched, so no host memory is used
    assert_fails(L.infinirtMalloc(byref(p), 3 * GiB), I.OUT_OF_MEMORY, "out of memory")
    I.set_device(I.DEVICE_CPU, 1)
    c = dmalloc(3 * GiB)  # the other device has its own capacity
    I.check(L.infinirtFree(c))
    I.set_device(I.DEVICE_CPU, 0)
    I.check(L.infinirtFree(a))
    I.check(L.infinirtFree(b))
    assert used_bytes(0) == base
    q = dmalloc(1024)
    I.check(L.infinirtFree(q))


@pytest.mark.parametrize("n", [1, 4097, 3 << 20])
def test_sync_copies_of_every_kind(n):
    data = pattern(n)
    a, b = dmalloc(n), dmalloc(n)
    h2d(a, data)  # H2D
    I.check(L.infinirtMemcpy(b, a, n, I.D2D))  # D2D
    assert d2h(b, n) == data  # D2H
    src = ctypes.create_string_buffer(data, n)
    dst = ctypes.create_string_buffer(n)
    I.check(L.infinirtMemcpy(dst, src, n, I.H2H))  # H2H
    assert dst.raw == data
    for p in (a, b):
        I.check(L.infinirtFree(p))


def test_async_copies_of_every_kind_with_pinned_and_pageable_memory():
    n = 1 << 16
    data = pattern(n, 7)
    s = stream_create()
    pinned_in, pinned_out = hmalloc(n), hmalloc(n)
    ctypes.memmove(pinned_in, data, n)
    ctypes.memset(pinned_out, 0, n)
    a, b = dmalloc(n), dmalloc(n)
    I.check(L.infinirtMemcpyAsync(a, pinned_in, n, I.H2D, s))
    I.check(L.infinirtMemcpyAsync(b, a, n, I.D2D, s))
    I.check(L.infinirtMemcpyAsync(pinned_out, b, n, I.D2H, s))
    I.check(L.infinirtStreamSynchronize(s))
    assert ctypes.string_at(pinned_out, n) == data
    # pageable memory: the copy is complete when the call returns
    page_out = ctypes.create_string_buffer(n)
    I.check(L.infinirtMemcpyAsync(page_out, b, n, I.D2H, s))
    assert page_out.raw == data
    page_in = ctypes.create_string_buffer(pattern(n, 3), n)
    I.check(L.infinirtMemcpyAsync(a, page_in, n, I.H2D, s))
    ctypes.memset(page_in, 0, n)  # reusing the source right away must not change the copy
    assert d2h(a, n) == pattern(n, 3)
    h_out = ctypes.create_string_buffer(n)
    I.check(L.infinirtMemcpyAsync(h_out, pinned_in, n, I.H2H, s))
    assert h_out.raw == data
    I.check(L.infinirtStreamDestroy(s))
    for p in (a, b):
        I.check(L.infinirtFree(p))
    for p in (pinned_in, pinned_out):
        I.check(L.infinirtFreeHost(p))


def test_copy_between_devices():
    n = 10000
    a = dmalloc(n)
    h2d(a, pattern(n, 5))
    I.set_device(I.DEVICE_CPU, 1)
    b = dmalloc(n)
    I.check(L.infinirtMemcpy(b, a, n, I.D2D))
    assert d2h(b, n) == pattern(n, 5)
    I.check(L.infinirtFree(b))
    I.check(L.infinirtFree(a))  # freeing works from any current device


def test_memset_sync_and_async():
    n = 5000
    a = dmalloc(n)
    I.check(L.infinirtMemset(a, 0xAB, n))
    assert d2h(a, n) == b"\xab" * n
    s = stream_create()
    I.check(L.infinirtMemsetAsync(a + 100, 0x01, 50, s))
    I.check(L.infinirtStreamSynchronize(s))
    assert d2h(a, n) == b"\xab" * 100 + b"\x01" * 50 + b"\xab" * (n - 150)
    I.check(L.infinirtStreamDestroy(s))
    I.check(L.infinirtFree(a))


def test_malloc_async_and_free_async_are_stream_ordered():
    base = used_bytes(0)
    s = stream_create()
    p = c_void_p()
    I.check(L.infinirtMallocAsync(byref(p), 4096, s))
    I.check(L.infinirtMemsetAsync(p.value, 7, 4096, s))
    out = hmalloc(4096)
    I.check(L.infinirtMemcpyAsync(out, p.value, 4096, I.D2H, s))
    I.check(L.infinirtFreeAsync(p.value, s))
    I.check(L.infinirtStreamSynchronize(s))
    assert ctypes.string_at(out, 4096) == b"\x07" * 4096
    assert used_bytes(0) == base
    I.check(L.infinirtFreeHost(out))
    I.check(L.infinirtStreamDestroy(s))


def test_copy_checks_kinds_and_bounds():
    n = 1024
    a = dmalloc(n)
    host = ctypes.create_string_buffer(n)
    assert_fails(L.infinirtMemcpy(host, a, n, I.H2D), I.BAD_PARAM, "infinirtMemcpy", "dst", "not device memory")
    assert_fails(L.infinirtMemcpy(a, host, n, I.D2H), I.BAD_PARAM, "dst", "is device memory", "says host")
    assert_fails(L.infinirtMemcpy(a, a, n, I.H2H), I.BAD_PARAM, "is device memory")
    assert_fails(L.infinirtMemcpy(a + 512, host, 1024, I.H2D), I.BAD_PARAM, "offset 512", "runs past the end")
    assert_fails(L.infinirtMemcpy(a, host, n, 7), I.BAD_PARAM, "7 is not a memcpy kind")
    assert_fails(L.infinirtMemcpy(None, host, n, I.H2D), I.NULL_POINTER, "dst is NULL")
    assert_fails(L.infinirtMemcpyAsync(a, None, n, I.H2D, None), I.NULL_POINTER, "infinirtMemcpyAsync", "src")
    assert_fails(L.infinirtMemset(host, 0, n), I.BAD_PARAM, "infinirtMemset", "not device memory")
    assert_fails(L.infinirtMemset(a, 0, n + 1), I.BAD_PARAM, "runs past the end")
    I.check(L.infinirtFree(a))


def test_bad_frees_are_errors_not_crashes():
    a = dmalloc(512)
    assert_fails(L.infinirtFree(a + 8), I.BAD_PARAM, "infinirtFree", "inside an allocation")
    assert_fails(
        L.infinirtFreeHost(a), I.BAD_PARAM, "infinirtFreeHost", "not a live allocation from infinirtMallocHost"
    )
    I.check(L.infinirtFree(a))
    assert_fails(L.infinirtFree(a), I.BAD_PARAM, "freed twice")
    host = ctypes.create_string_buffer(64)
    assert_fails(L.infinirtFree(ctypes.addressof(host)), I.BAD_PARAM, "not a live allocation")
    h = hmalloc(100)
    assert_fails(L.infinirtFree(h), I.BAD_PARAM, "from infinirtMalloc")
    I.check(L.infinirtFreeHost(h))
    assert_fails(L.infinirtMalloc(None, 16), I.NULL_POINTER, "infinirtMalloc", "p_ptr")
    assert_fails(L.infinirtMallocHost(None, 16), I.NULL_POINTER, "infinirtMallocHost")


def test_pointer_attributes():
    a = dmalloc(1000)
    h = hmalloc(1000)
    attr = I.PointerAttributes()
    I.check(L.infinirtPointerGetAttributes(byref(attr), a + 10))
    assert (attr.type, attr.device, attr.device_id, attr.base, attr.size) == (I.MEMORY_DEVICE, I.DEVICE_CPU, 0, a, 1024)
    I.check(L.infinirtPointerGetAttributes(byref(attr), h))
    assert attr.type == I.MEMORY_HOST
    buf = ctypes.create_string_buffer(8)
    I.check(L.infinirtPointerGetAttributes(byref(attr), ctypes.addressof(buf)))
    assert attr.type == I.MEMORY_UNREGISTERED
    I.check(L.infinirtFree(a))
    I.check(L.infinirtFreeHost(h))
