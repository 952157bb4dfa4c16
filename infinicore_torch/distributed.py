"""The torch.distributed backend ``"infiniccl"``: collectives of infini tensors through infiniccl.

Registered when ``infinicore_torch`` is imported, for the ``infini`` device, so both

    dist.init_process_group("infiniccl")                  # infini tensors
    dist.init_process_group("cpu:gloo,infini:infiniccl")  # CPU tensors through gloo as well

work. On the CPU backend the ranks are processes of one host and exchange data through shared
memory; the store carries only the communicator's unique id. ``Work.wait()`` makes the current
stream wait for the collective; on the CPU backend (or with ``INFINICCL_BLOCKING_WAIT=1``) it also
waits on the host and raises ``torch.distributed.DistBackendError`` when the collective failed (a
peer that exited, or the group's timeout). On every backend a watchdog thread per group fails the group
when a collective outlives the group's timeout or a communicator fails: the communicators are aborted and
the group's later collectives raise ``DistBackendError`` (docs/distributed.md, "Faults").
"""

from __future__ import annotations

import datetime

import torch.distributed as dist

from . import _C

BACKEND_NAME = "infiniccl"


def _create_backend(store, rank: int, size: int, timeout) -> object:
    if isinstance(timeout, datetime.timedelta):
        ms = max(1, int(timeout.total_seconds() * 1000))
    else:
        ms = max(1, int(timeout))
    return _C._create_infiniccl_backend(store, rank, size, ms)


def register() -> None:
    """Registers ``"infiniccl"`` with torch.distributed (done at import; repeated calls do nothing)."""
    if BACKEND_NAME.upper() in dist.Backend._plugins:
        return
    dist.Backend.register_backend(BACKEND_NAME, _create_backend, devices=["infini"])


def is_available() -> bool:
    """True when torch.distributed is available (infiniccl is then registered)."""
    return dist.is_available()
