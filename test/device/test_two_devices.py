"""Two infini devices: placement, copies between them, and per-device memory."""

import sys
from pathlib import Path

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


def _second_devices() -> list[str]:
    """Device 1 as infini tensors, and as plain CUDA tensors where the nvidia backend serves torch.ops.infini."""
    devs = ["infini:1"]
    if torch.infini.backend() == "nvidia" and torch.cuda.is_available() and torch.cuda.device_count() >= 2:
        devs.append("cuda:1")
    return devs


@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-4), (torch.bfloat16, 2e-2)])
def test_ops_on_the_second_device(dtype, tol):
    """torch.ops.infini on device 1 while device 0 is current: each op runs on its tensors' device (a GPU
    backend: that device's stream, cuBLAS handle and kernels) and matches float32 torch on the CPU."""
    import torch.nn.functional as F

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))  # (also when test/ops is not collected)
    from test_ops_attention import check_decode

    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 256, generator=g).to(dtype)
    w = (torch.rand(256, generator=g) + 0.5).to(dtype)
    lw = (torch.randn(128, 256, generator=g) / 16).to(dtype)
    gate = torch.randn(3, 512, generator=g).to(dtype)
    logits = torch.randn(8, 1000, generator=g)

    def close(got, want, dev):
        assert got.device == torch.device(dev)
        torch.testing.assert_close(got.cpu().float(), want.to(dtype).float(), rtol=tol, atol=tol)

    for dev in _second_devices():
        close(
            torch.ops.infini.rms_norm(x.to(dev), w.to(dev), 1e-6), F.rms_norm(x.float(), (256,), w.float(), 1e-6), dev
        )
        for rows in (1, 2, 4):  # on the GPU: our gemv at 1 row, cuBLASLt or gemv at 2-4
            close(torch.ops.infini.linear(x[:rows].to(dev), lw.to(dev)), x[:rows].float() @ lw.float().T, dev)
        close(torch.ops.infini.silu_and_mul(gate.to(dev)), F.silu(gate[:, :256].float()) * gate[:, 256:].float(), dev)
        close(torch.ops.infini.softmax(logits.to(dtype).to(dev), -1), torch.softmax(logits.to(dtype).float(), -1), dev)
        got = torch.ops.infini.random_sample(logits.to(dev), 0.5, 0.9, 1, 1.0)  # topk 1: the argmax
        assert got.device == torch.device(dev) and torch.equal(got.cpu(), logits.argmax(-1))
        check_decode(dev, dtype, [1, 20, 300], 8, 2, 64, 16, None)  # paged_attention, split contexts, GQA
        assert torch.infini.current_device() == 0
        if dev.startswith("cuda"):
            assert torch.cuda.current_device() == 0
