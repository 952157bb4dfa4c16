"""Two infini devices: placement, copies between them, and per-device memory."""

import pytest
import torch

import infinicore_torch  # noqa: F401

pytestmark = pytest.mark.two_devices  # the CPU backend's two, or two GPUs


def test_copies_between_devices_and_the_cpu():
    x = torch.randn(64, 33)
    a = x.to("infini:0")
    b = a.to("infini:1")
    assert b.device == torch.device("infini:1")
    assert torch.equal(b.cpu(), x)
    c = b[:, ::2].to("infini:0")  # strided source
    assert torch.equal(c.cpu(), x[:, ::2])
    d = torch.empty(33, 64, device="infini:1")
    d.copy_(a.T)  # transposed, cross-device
    assert torch.equal(d.cpu(), x.T)
    e = b.to(torch.float64).to("infini:0")  # dtype change
    assert e.dtype == torch.float64 and torch.equal(e.cpu(), x.double())


def test_compute_stays_on_the_tensors_device():
    a = torch.ones(4, 4, device="infini:1")
    b = a @ a
    assert b.device == torch.device("infini:1") and b[0, 0].item() == 4.0
    assert torch.infini.current_device() == 0


def test_memory_is_accounted_per_device():
    torch.infini.empty_cache()
    base0, base1 = torch.infini.memory_allocated(0), torch.infini.memory_allocated(1)
    t = torch.empty(1 << 20, dtype=torch.uint8, device="infini:1")
    assert torch.infini.memory_allocated(1) == base1 + (1 << 20)
    assert torch.infini.memory_allocated(0) == base0
    del t
    assert torch.infini.memory_allocated(1) == base1


def test_mixing_devices_in_one_op_is_an_error():
    a = torch.ones(2, device="infini:0")
    b = torch.ones(2, device="infini:1")
    try:
        a + b
    except RuntimeError as e:
        assert "device" in str(e)
    else:  # the CPU fallback must not silently compute across devices
        raise AssertionError("adding tensors of two devices did not raise")
