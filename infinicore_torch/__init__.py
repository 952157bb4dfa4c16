"""infinicore_torch: the InfiniCore stack (infinirt, infiniop, infiniccl) as a PyTorch device.

``import infinicore_torch`` (or just ``import torch``, through torch's backend entry point) makes
"infini" a torch device::

    x = torch.randn(8, 4096, device="infini")
    model.to("infini")

``python -m infinicore_torch`` prints what was built and which devices are present.
"""

from __future__ import annotations

import torch

__version__ = "0.1.0"

try:
    from . import _C
except ImportError as e:  # most often: built against another torch than the one running
    raise ImportError(
        f"infinicore_torch._C failed to load under torch {torch.__version__}: {e}. "
        "Rebuild with: pip install --no-build-isolation -e ."
    ) from e

from . import _infini  # noqa: E402


def _register() -> None:
    """Renames PrivateUse1 to "infini" and installs torch.infini and the tensor/module methods."""
    if torch._C._get_privateuse1_backend_name() == "infini" and hasattr(torch, "infini"):
        return
    from . import infini

    torch.utils.rename_privateuse1_backend("infini")
    torch._register_device_module("infini", infini)
    torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)


_register()

from . import nn, ops  # noqa: E402, F401  (registers fake and autograd support of torch.ops.infini)

if torch.distributed.is_available():
    from . import distributed  # noqa: E402

    distributed.register()  # torch.distributed backend "infiniccl" for the infini device


def backends() -> list[_infini.Backend]:
    """Every backend library the loader found, loaded or not (with the reason)."""
    return _infini.backends()


def cuda_kernels_available() -> bool:
    """True when torch.ops.infini runs on CUDA tensors here: the nvidia backend is loaded and sees a GPU."""
    return any(b.name == "nvidia" and b.loaded and b.device_count > 0 for b in _infini.backends())


def fallback_stats() -> dict[str, int]:
    """How many times each aten op without an infini kernel ran through the CPU fallback."""
    return dict(_C._fallback_stats())


def reset_fallback_stats() -> None:
    _C._reset_fallback_stats()


def as_cuda(t: torch.Tensor) -> torch.Tensor:
    """The infini tensor ``t`` seen as a torch CUDA tensor of the same GPU, without a copy (nvidia backend only).

    The view keeps ``t`` alive. The two devices have their own streams: synchronize (or order with events) before
    the other side reads what one side wrote."""
    return _C._alias_on_device(t, torch.device("cuda", t.device.index))


def as_infini(t: torch.Tensor) -> torch.Tensor:
    """The CUDA tensor ``t`` seen as an infini tensor of the same GPU, without a copy (nvidia backend only)."""
    return _C._alias_on_device(t, torch.device("infini", t.device.index))


def to_dlpack(t: torch.Tensor):
    """A DLPack capsule of an infini tensor as a CUDA array (kDLCUDA), for CuPy, JAX or torch.from_dlpack."""
    from torch.utils.dlpack import to_dlpack as _to

    return _to(as_cuda(t) if t.device.type == "infini" else t)


def from_dlpack(obj) -> torch.Tensor:
    """An infini tensor sharing the memory of a CUDA DLPack capsule or array (nvidia backend only)."""
    t = torch.from_dlpack(obj)
    return as_infini(t) if t.device.type == "cuda" else t


__all__ = [
    "as_cuda",
    "as_infini",
    "backends",
    "cuda_kernels_available",
    "fallback_stats",
    "from_dlpack",
    "reset_fallback_stats",
    "to_dlpack",
    "__version__",
]
