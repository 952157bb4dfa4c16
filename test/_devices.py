"""Devices the op tests run on: CPU tensors, infini tensors, and torch's CUDA tensors where the nvidia
backend is loaded and sees a GPU (a GPU machine; never on the CPU-only CI)."""

import torch

import infinicore_torch

CUDA = torch.cuda.is_available() and infinicore_torch.cuda_kernels_available()
OP_DEVICES = ["cpu", "infini"] + (["cuda"] if CUDA else [])

# Once a PrivateUse1 backend is registered, torch names it the accelerator, and its autograd engine
# then asserts (opt_ready_stream && opt_parent_stream) on every backward over CUDA tensors, whoever's
# ops they come from: pytorch/pytorch#161129. Gradient tests on CUDA tensors skip with that reason.
CUDA_BACKWARD_BROKEN = (
    "torch's autograd engine cannot run a CUDA backward in a process where a PrivateUse1 device is "
    "registered (pytorch/pytorch#161129)"
)


def skip_cuda_backward(device: str) -> None:
    import pytest

    accel = torch.accelerator.current_accelerator() if hasattr(torch, "accelerator") else None
    if device == "cuda" and accel is not None and accel.type != "cuda":
        pytest.skip(CUDA_BACKWARD_BROKEN)


def grad_inputs(device: str) -> bool:
    """Whether opcheck may make float inputs require grad on `device` (not on CUDA: see above)."""
    return device != "cuda"
