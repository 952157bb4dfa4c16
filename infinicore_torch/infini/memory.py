"""Memory of infini devices: the caching allocator's statistics and cache, as torch.cuda's."""

from __future__ import annotations

from typing import Any

from .. import _C


def _index(device) -> int:
    from . import _index as index

    return index(device)


def memory_stats(device=None) -> dict[str, Any]:
    """The caching allocator's statistics, with torch.cuda.memory_stats's keys."""
    return dict(sorted(_C._memory_stats(_index(device)).items()))


def memory_allocated(device=None) -> int:
    """Bytes occupied by tensors on the device."""
    return _C._memory_stats(_index(device))["allocated_bytes.all.current"]


def max_memory_allocated(device=None) -> int:
    return _C._memory_stats(_index(device))["allocated_bytes.all.peak"]


def memory_reserved(device=None) -> int:
    """Bytes held by the caching allocator (tensors plus its cache)."""
    return _C._memory_stats(_index(device))["reserved_bytes.all.current"]


def max_memory_reserved(device=None) -> int:
    return _C._memory_stats(_index(device))["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None) -> None:
    _C._reset_peak_memory_stats(_index(device))


def reset_accumulated_memory_stats(device=None) -> None:
    _C._reset_accumulated_memory_stats(_index(device))


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes of the device."""
    return tuple(_C._mem_get_info(_index(device)))


def empty_cache() -> None:
    """Returns the allocator's unused cached memory to the device."""
    _C._empty_cache()
