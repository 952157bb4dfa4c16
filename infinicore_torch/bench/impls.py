"""The registry of implementations: for an op and a device, each implementation's callable, or the
reason it is skipped.

    infini   torch.ops.infini, on whatever device the run targets
    torch    the plain-PyTorch reference, eager
    compile  torch.compile of that reference
    triton   our Triton kernels (bench/triton_kernels.py) for rms_norm, add_rms_norm, swiglu,
             silu_and_mul, rope and softmax
    liger    Liger-Kernel's, when it is installed (rms_norm, swiglu, silu_and_mul)
"""

from __future__ import annotations

import functools
import importlib.util
from typing import Callable

import torch

from .specs import OpSpec

IMPLS = ("infini", "torch", "compile", "triton", "liger")


class Skip(Exception):
    """An implementation that cannot run here; the message says why."""


def _infini_kernel_for(op: str, device: torch.device) -> bool:
    if device.type == "cuda":
        import infinicore_torch

        if not infinicore_torch.cuda_kernels_available():
            return False
    key = {"cpu": "CPU", "cuda": "CUDA", "infini": "PrivateUse1"}.get(device.type)
    return key is not None and torch._C._dispatch_has_kernel_for_dispatch_key(f"infini::{op}", key)


@functools.lru_cache(maxsize=None)
def _compiled(name: str, fn: Callable) -> Callable:
    # every op and shape is its own graph: dynamo's default limit of 8 recompiles would silently
    # leave the later ones running eagerly
    import torch._dynamo.config as dc

    for key in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(dc, key):
            setattr(dc, key, max(getattr(dc, key), 4096))
    return torch.compile(fn, dynamic=False)


def _triton_module():
    if importlib.util.find_spec("triton") is None:
        raise Skip("triton is not installed")
    from . import triton_kernels

    return triton_kernels


def _liger(name: str):
    if importlib.util.find_spec("liger_kernel") is None:
        raise Skip("liger_kernel is not installed")
    if name == "rms_norm":
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction

        return lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6)
    if name in ("swiglu", "silu_and_mul"):
        from liger_kernel.ops.swiglu import LigerSiLUMulFunction  # silu(a) * b

        if name == "swiglu":
            return lambda a, b: LigerSiLUMulFunction.apply(b, a)
        return lambda x: LigerSiLUMulFunction.apply(*x.chunk(2, dim=-1))
    raise Skip(f"Liger-Kernel has no {name} kernel here")


def resolve(impl: str, spec: OpSpec, device: torch.device) -> Callable:
    """The callable of `impl` for `spec` on `device`, or raises Skip with the reason."""
    if impl == "infini":
        op = spec.name
        if not _infini_kernel_for(op, device):
            if device.type == "cuda":
                raise Skip("torch.ops.infini has no CUDA kernels here (the nvidia backend is not built or not loaded)")
            raise Skip(f"torch.ops.infini.{op} has no kernel for {device.type} tensors")
        return spec.infini
    if impl == "torch":
        return spec.reference
    if impl == "compile":
        if device.type == "infini":
            raise Skip("torch.compile's inductor has no code generation for the infini device")
        return _compiled(spec.name, spec.reference)
    if impl == "triton":
        mod = _triton_module()
        if spec.name not in mod.KERNELS:
            raise Skip(f"no Triton kernel of ours for {spec.name}")
        ok, why = mod.available(device)
        if not ok:
            raise Skip(why)
        return mod.KERNELS[spec.name]
    if impl == "liger":
        if device.type != "cuda":
            raise Skip("Liger-Kernel runs on CUDA tensors")
        return _liger(spec.name)
    raise ValueError(f"unknown implementation {impl!r}; known: {', '.join(IMPLS)}")
