"""torch.infini: the "infini" device's module, mirroring torch.cuda.

Registered by ``import infinicore_torch`` (or automatically through torch's backend entry point).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch

from .. import _C
from .graphs import InfiniGraph, graph, graph_pool_handle, is_current_stream_capturing
from .memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_stats,
    reset_accumulated_memory_stats,
    reset_peak_memory_stats,
)
from .random import (
    default_generators,
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from .streams import Event, Stream

__all__ = [
    "Event",
    "InfiniGraph",
    "graph",
    "graph_pool_handle",
    "is_current_stream_capturing",
    "Stream",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_amp_supported_dtype",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "is_available",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "stream",
    "synchronize",
    "default_generators",
]


def is_available() -> bool:
    """True when the infini backend has at least one device."""
    return _C._infini_device_count() > 0


def device_count() -> int:
    return _C._infini_device_count()


def backend() -> str:
    """The infini backend behind the device ("cpu", "nvidia", ...)."""
    return _C._backend_name()


def is_initialized() -> bool:
    return _C._is_initialized()


def _is_in_bad_fork() -> bool:
    return _C._is_in_bad_fork()


def _lazy_init() -> None:
    _C._lazy_init()


init = _lazy_init


def _index(device) -> int:
    """The device index of an int, str, torch.device or None (the current device)."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    device = torch.device(device)
    if device.type != "infini":
        raise ValueError(f"Expected an infini device, but got: {device}")
    return current_device() if device.index is None else device.index


def current_device() -> int:
    _lazy_init()
    return _C._get_device()


def set_device(device) -> None:
    index = _index(device)
    if index >= 0:
        _C._set_device(index)


class device:
    """Context manager that makes a device current: ``with torch.infini.device(1): ...``."""

    def __init__(self, device):
        self.index = _index(device) if device is not None else -1
        self.previous = -1

    def __enter__(self):
        self.previous = _C._exchange_device(self.index)

    def __exit__(self, *exc):
        if self.previous >= 0:
            _C._set_device(self.previous)
        return False


class device_of(device):
    """Context manager that makes the device of a tensor current (a no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_infini else None)


def synchronize(device=None) -> None:
    """Waits for all work on the device's streams."""
    _C._synchronize(_index(device))


def _stream(packed) -> Stream:
    stream_id, device_index, device_type = packed
    return Stream(stream_id=stream_id, device_index=device_index, device_type=device_type)


def current_stream(device=None) -> Stream:
    return _stream(_C._current_stream(_index(device)))


def default_stream(device=None) -> Stream:
    return _stream(_C._default_stream(_index(device)))


def set_stream(stream: torch.Stream) -> None:
    if stream is None:
        return
    _C._set_stream(stream.stream_id, stream.device_index, stream.device_type)


@contextlib.contextmanager
def stream(stream: torch.Stream | None):
    """Makes stream current on its device (and that device current) inside the block."""
    if stream is None:
        yield
        return
    previous_device = _C._exchange_device(stream.device_index)
    previous_stream = current_stream(stream.device_index)
    set_stream(stream)
    try:
        yield
    finally:
        set_stream(previous_stream)
        _C._set_device(previous_device)


def get_device_name(device=None) -> str:
    return _C._device_name(_index(device))


@dataclass(frozen=True)
class DeviceProperties:
    name: str
    total_memory: int
    backend: str
    index: int

    @property
    def type(self) -> str:
        return "infini"


def get_device_properties(device=None) -> DeviceProperties:
    index = _index(device)
    _, total = _C._mem_get_info(index)
    return DeviceProperties(_C._device_name(index), total, backend(), index)


def get_amp_supported_dtype() -> list[torch.dtype]:
    return [torch.float16, torch.bfloat16]


_INDUCTOR_CLASSES = ("Scheduling", "PythonWrapperCodegen", "CppWrapperCodegen")


def __getattr__(name: str):
    # Inductor reads these from the device module when it first compiles for "infini"; the registration (and its
    # imports of Dynamo and Inductor) waits until then
    if name in _INDUCTOR_CLASSES:
        from .. import _inductor

        return _inductor.codegen_class(name)
    raise AttributeError(f"module 'torch.infini' has no attribute {name!r}")
