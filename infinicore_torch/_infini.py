"""ctypes binding of the infini C ABI (libinfinicore.so), torch-free.

Used by the environment report (``python -m infinicore_torch``) and by the tests of the C ABI
itself. Every function is declared with its exact C signature; :func:`check` turns a failing
status into :class:`InfiniError`, whose message is the library's own (it names the API and the reason).
"""

from __future__ import annotations

import ctypes
import os
from ctypes import POINTER, c_char_p, c_float, c_int, c_size_t, c_ssize_t, c_uint32, c_void_p
from dataclasses import dataclass

LIB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")

# infiniStatus_t
SUCCESS = 0
BAD_PARAM = 3
NULL_POINTER = 4
DEVICE_TYPE_NOT_SUPPORTED = 5
DEVICE_NOT_FOUND = 6
DEVICE_NOT_INITIALIZED = 7
BAD_TENSOR_DTYPE = 10
BAD_TENSOR_SHAPE = 11
OUT_OF_MEMORY = 20
INVALID_HANDLE = 21
NOT_READY = 22
TIMEOUT = 23
REMOTE_ERROR = 24
CAPTURE_UNSUPPORTED = 25
ABORTED = 26

# infinicclReduceOp_t
CCL_SUM, CCL_PROD, CCL_MAX, CCL_MIN, CCL_AVG, CCL_BAND, CCL_BOR, CCL_BXOR = 0, 1, 2, 3, 4, 5, 6, 7

# infiniDevice_t
DEVICE_CPU = 0
DEVICE_NVIDIA = 1
DEVICE_TYPE_COUNT = 10

# infinirtMemcpyKind_t
H2H, H2D, D2H, D2D = 0, 1, 2, 3

# infinirtEventStatus_t and flags
EVENT_COMPLETE, EVENT_NOT_READY = 0, 1
EVENT_DEFAULT, EVENT_DISABLE_TIMING, EVENT_BLOCKING_SYNC = 0, 1, 2

# infinirtStreamCaptureMode_t, infinirtStreamCaptureStatus_t
CAPTURE_MODE_GLOBAL, CAPTURE_MODE_THREAD_LOCAL, CAPTURE_MODE_RELAXED = 0, 1, 2
CAPTURE_NONE, CAPTURE_ACTIVE, CAPTURE_INVALIDATED = 0, 1, 2

# infinirtMemoryType_t
MEMORY_UNREGISTERED, MEMORY_HOST, MEMORY_DEVICE = 0, 1, 2

HOST_FUNC = ctypes.CFUNCTYPE(None, c_void_p)


class BackendInfo(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("path", c_char_p),
        ("device_type", c_int),
        ("loaded", c_int),
        ("device_count", c_int),
        ("message", c_char_p),
    ]


class PointerAttributes(ctypes.Structure):
    _fields_ = [
        ("type", c_int),
        ("device", c_int),
        ("device_id", c_int),
        ("base", c_void_p),
        ("size", c_size_t),
    ]


class UniqueId(ctypes.Structure):
    """infinicclUniqueId: 128 opaque bytes, passed by value."""

    _fields_ = [("internal", ctypes.c_char * 128)]


class InfiniError(RuntimeError):
    """A failing infini call: ``status`` is the infiniStatus_t, the message names the API and the reason."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


_P = POINTER
_SIGNATURES = {
    "infiniGetStatusString": (c_char_p, [c_int]),
    "infiniGetLastErrorMessage": (c_char_p, []),
    "infiniGetDeviceTypeName": (c_char_p, [c_int]),
    "infiniSizeOf": (c_size_t, [c_int]),
    "infinirtInit": (c_int, []),
    "infinirtGetAllDeviceCount": (c_int, [_P(c_int)]),
    "infinirtGetDeviceCount": (c_int, [c_int, _P(c_int)]),
    "infinirtSetDevice": (c_int, [c_int, c_int]),
    "infinirtGetDevice": (c_int, [_P(c_int), _P(c_int)]),
    "infinirtDeviceSynchronize": (c_int, []),
    "infinirtGetMemInfo": (c_int, [c_int, c_int, _P(c_size_t), _P(c_size_t)]),
    "infinirtGetDeviceName": (c_int, [c_int, c_int, c_char_p, c_size_t]),
    "infinirtStreamCreate": (c_int, [_P(c_void_p)]),
    "infinirtStreamDestroy": (c_int, [c_void_p]),
    "infinirtStreamSynchronize": (c_int, [c_void_p]),
    "infinirtStreamQuery": (c_int, [c_void_p, _P(c_int)]),
    "infinirtStreamWaitEvent": (c_int, [c_void_p, c_void_p]),
    "infinirtLaunchHostFunc": (c_int, [c_void_p, HOST_FUNC, c_void_p]),
    "infinirtEventCreate": (c_int, [_P(c_void_p)]),
    "infinirtEventCreateWithFlags": (c_int, [_P(c_void_p), c_uint32]),
    "infinirtEventRecord": (c_int, [c_void_p, c_void_p]),
    "infinirtEventQuery": (c_int, [c_void_p, _P(c_int)]),
    "infinirtEventSynchronize": (c_int, [c_void_p]),
    "infinirtEventDestroy": (c_int, [c_void_p]),
    "infinirtEventElapsedTime": (c_int, [_P(c_float), c_void_p, c_void_p]),
    "infinirtMalloc": (c_int, [_P(c_void_p), c_size_t]),
    "infinirtMallocHost": (c_int, [_P(c_void_p), c_size_t]),
    "infinirtFree": (c_int, [c_void_p]),
    "infinirtFreeHost": (c_int, [c_void_p]),
    "infinirtMemcpy": (c_int, [c_void_p, c_void_p, c_size_t, c_int]),
    "infinirtMemcpyAsync": (c_int, [c_void_p, c_void_p, c_size_t, c_int, c_void_p]),
    "infinirtMallocAsync": (c_int, [_P(c_void_p), c_size_t, c_void_p]),
    "infinirtFreeAsync": (c_int, [c_void_p, c_void_p]),
    "infinirtMemset": (c_int, [c_void_p, c_int, c_size_t]),
    "infinirtMemsetAsync": (c_int, [c_void_p, c_int, c_size_t, c_void_p]),
    "infinirtPointerGetAttributes": (c_int, [_P(PointerAttributes), c_void_p]),
    "infinirtStreamBeginCapture": (c_int, [c_void_p, c_int]),
    "infinirtStreamEndCapture": (c_int, [c_void_p, _P(c_void_p)]),
    "infinirtStreamIsCapturing": (c_int, [c_void_p, _P(c_int)]),
    "infinirtGraphLaunch": (c_int, [c_void_p, c_void_p]),
    "infinirtGraphDestroy": (c_int, [c_void_p]),
    "infinirtGetBackendCount": (c_int, [_P(c_int)]),
    "infinirtGetBackendInfo": (c_int, [c_int, _P(BackendInfo)]),
    "infiniopCreateHandle": (c_int, [_P(c_void_p)]),
    "infiniopDestroyHandle": (c_int, [c_void_p]),
    "infiniopGetHandleDevice": (c_int, [c_void_p, _P(c_int), _P(c_int)]),
    "infiniopCreateTensorDescriptor": (c_int, [_P(c_void_p), c_size_t, _P(c_size_t), _P(c_ssize_t), c_int]),
    "infiniopDestroyTensorDescriptor": (c_int, [c_void_p]),
    "infiniopGetTensorDescriptor": (c_int, [c_void_p, _P(c_size_t), _P(c_size_t), _P(c_ssize_t), _P(c_int)]),
    "infinicclGetUniqueId": (c_int, [c_int, _P(UniqueId)]),
    "infinicclCommInitRank": (c_int, [_P(c_void_p), c_int, UniqueId, c_int]),
    "infinicclCommInitAll": (c_int, [c_int, _P(c_void_p), c_int, _P(c_int)]),
    "infinicclCommDestroy": (c_int, [c_void_p]),
    "infinicclCommCount": (c_int, [c_void_p, _P(c_int)]),
    "infinicclCommUserRank": (c_int, [c_void_p, _P(c_int)]),
    "infinicclCommSetTimeout": (c_int, [c_void_p, ctypes.c_uint64]),
    "infinicclCommGetAsyncError": (c_int, [c_void_p, _P(c_int)]),
    "infinicclCommAbort": (c_int, [c_void_p]),
    "infinicclAllReduce": (c_int, [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p]),
    "infinicclBroadcast": (c_int, [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p]),
    "infinicclReduce": (c_int, [c_void_p, c_void_p, c_size_t, c_int, c_int, c_int, c_void_p, c_void_p]),
    "infinicclAllGather": (c_int, [c_void_p, c_void_p, c_size_t, c_int, c_void_p, c_void_p]),
    "infinicclReduceScatter": (c_int, [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p]),
    "infinicclSend": (c_int, [c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p]),
    "infinicclRecv": (c_int, [c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p]),
    "infinicclGroupStart": (c_int, []),
    "infinicclGroupEnd": (c_int, []),
}

_lib = None


def lib(path: str | None = None) -> ctypes.CDLL:
    """The loaded libinfinicore.so (from the package's lib folder unless ``path`` is given)."""
    global _lib
    if _lib is None:
        so = path or os.path.join(LIB_DIR, "libinfinicore.so")
        if not os.path.exists(so):
            raise ImportError(
                f"{so} does not exist: the backend libraries were not built "
                "(pip install --no-build-isolation -e . builds them)"
            )
        loaded = ctypes.CDLL(so)
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(loaded, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _lib = loaded
    return _lib


def last_error() -> str:
    return lib().infiniGetLastErrorMessage().decode()


def status_name(status: int) -> str:
    return lib().infiniGetStatusString(status).decode()


def check(status: int) -> None:
    """Raises InfiniError for a failing status, with the library's message."""
    if status != SUCCESS:
        raise InfiniError(status, f"{last_error()} [{status_name(status)}]")


def device_type_name(device_type: int) -> str:
    return lib().infiniGetDeviceTypeName(device_type).decode()


@dataclass
class Backend:
    name: str
    path: str
    device_type: int
    loaded: bool
    device_count: int
    message: str


def backends() -> list[Backend]:
    """Every backend library the loader looked at, loaded or not (with the reason)."""
    n = c_int()
    check(lib().infinirtGetBackendCount(ctypes.byref(n)))
    out = []
    for i in range(n.value):
        info = BackendInfo()
        check(lib().infinirtGetBackendInfo(i, ctypes.byref(info)))
        out.append(
            Backend(
                info.name.decode(),
                info.path.decode(),
                info.device_type,
                bool(info.loaded),
                info.device_count,
                info.message.decode(),
            )
        )
    return out


def device_count(device_type: int = DEVICE_CPU) -> int:
    n = c_int()
    check(lib().infinirtGetDeviceCount(device_type, ctypes.byref(n)))
    return n.value


def set_device(device_type: int, index: int) -> None:
    check(lib().infinirtSetDevice(device_type, index))


def get_device() -> tuple[int, int]:
    t, i = c_int(), c_int()
    check(lib().infinirtGetDevice(ctypes.byref(t), ctypes.byref(i)))
    return t.value, i.value


def mem_info(device_type: int, index: int) -> tuple[int, int]:
    """(free, total) bytes of one device."""
    free, total = c_size_t(), c_size_t()
    check(lib().infinirtGetMemInfo(device_type, index, ctypes.byref(free), ctypes.byref(total)))
    return free.value, total.value


def device_name(device_type: int, index: int) -> str:
    buf = ctypes.create_string_buffer(256)
    check(lib().infinirtGetDeviceName(device_type, index, buf, len(buf)))
    return buf.value.decode()
