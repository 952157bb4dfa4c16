"""infiniop handles and tensor descriptors."""

import ctypes
from ctypes import byref, c_int, c_size_t, c_ssize_t, c_void_p

from conftest import L, assert_fails

from infinicore_torch import _infini as I

F16, F32, BF16 = 12, 13, 19


def make_desc(shape, strides=None, dtype=F32):
    d = c_void_p()
    nd = len(shape)
    sh = (c_size_t * max(nd, 1))(*shape)
    st = (c_ssize_t * max(nd, 1))(*strides) if strides is not None else None
    status = L.infiniopCreateTensorDescriptor(byref(d), nd, sh, st, dtype)
    return status, d.value


def read_desc(d):
    nd = c_size_t()
    I.check(L.infiniopGetTensorDescriptor(d, byref(nd), None, None, None))
    sh, st, dt = (c_size_t * max(nd.value, 1))(), (c_ssize_t * max(nd.value, 1))(), c_int()
    I.check(L.infiniopGetTensorDescriptor(d, byref(nd), sh, st, byref(dt)))
    return list(sh)[: nd.value], list(st)[: nd.value], dt.value


def test_handle_is_bound_to_the_current_device():
    I.set_device(I.DEVICE_CPU, 1)
    h = c_void_p()
    I.check(L.infiniopCreateHandle(byref(h)))
    t, i = c_int(), c_int()
    I.check(L.infiniopGetHandleDevice(h, byref(t), byref(i)))
    assert (t.value, i.value) == (I.DEVICE_CPU, 1)
    I.check(L.infiniopDestroyHandle(h))
    assert_fails(L.infiniopDestroyHandle(h), I.INVALID_HANDLE, "infiniopDestroyHandle", "not a live handle")
    assert_fails(L.infiniopGetHandleDevice(h, byref(t), byref(i)), I.INVALID_HANDLE)
    assert_fails(L.infiniopCreateHandle(None), I.NULL_POINTER, "infiniopCreateHandle")
    assert_fails(L.infiniopDestroyHandle(None), I.NULL_POINTER)


def test_tensor_descriptor_contiguous_and_strided():
    status, d = make_desc([2, 3, 5], dtype=BF16)
    I.check(status)
    assert read_desc(d) == ([2, 3, 5], [15, 5, 1], BF16)
    I.check(L.infiniopDestroyTensorDescriptor(d))
    status, d = make_desc([4, 6], [1, 4], F16)  # a transposed view
    I.check(status)
    assert read_desc(d) == ([4, 6], [1, 4], F16)
    I.check(L.infiniopDestroyTensorDescriptor(d))
    status, d = make_desc([], dtype=F32)  # a 0-d tensor
    I.check(status)
    assert read_desc(d) == ([], [], F32)
    I.check(L.infiniopDestroyTensorDescriptor(d))


def test_tensor_descriptor_errors():
    assert_fails(make_desc([2, 2], dtype=0)[0], I.BAD_TENSOR_DTYPE, "infiniopCreateTensorDescriptor", "not a dtype")
    assert_fails(make_desc([2, 2], dtype=77)[0], I.BAD_TENSOR_DTYPE)
    assert_fails(make_desc([1] * 65)[0], I.BAD_TENSOR_SHAPE, "ndim 65")
    d = c_void_p()
    assert_fails(L.infiniopCreateTensorDescriptor(byref(d), 2, None, None, F32), I.NULL_POINTER, "shape")
    assert_fails(L.infiniopCreateTensorDescriptor(None, 0, None, None, F32), I.NULL_POINTER, "desc_ptr")
    status, d = make_desc([3])
    I.check(L.infiniopDestroyTensorDescriptor(d))
    assert_fails(L.infiniopDestroyTensorDescriptor(d), I.INVALID_HANDLE, "not a live descriptor")
    assert_fails(L.infiniopGetTensorDescriptor(0x1234, None, None, None, None), I.INVALID_HANDLE)


def test_status_strings_and_sizes():
    assert I.status_name(I.OUT_OF_MEMORY) == "INFINI_STATUS_OUT_OF_MEMORY"
    assert I.status_name(12345) == "INFINI_STATUS_UNKNOWN"
    assert I.device_type_name(I.DEVICE_NVIDIA) == "nvidia" and I.device_type_name(42) == "unknown"
    assert [L.infiniSizeOf(t) for t in (F16, F32, BF16, 6, 1, 0)] == [2, 4, 2, 8, 1, 0]
    assert ctypes.sizeof(I.BackendInfo) == 40
