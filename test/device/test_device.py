"""The "infini" device in PyTorch: registration, torch.infini, torch.accelerator, device guard."""

import pytest
import torch
from conftest import run_python

import infinicore_torch  # noqa: F401


@pytest.mark.two_devices
def test_registration_and_generated_methods():
    assert torch._C._get_privateuse1_backend_name() == "infini"
    assert torch.device("infini").type == "infini"
    t = torch.arange(4.0).infini()
    assert t.is_infini and t.device == torch.device("infini", 0)
    assert t.infini(1).device == torch.device("infini:1")
    m = torch.nn.Linear(3, 2).infini()
    assert all(p.is_infini for p in m.parameters())
    assert torch.ones(2).untyped_storage().infini().device.type == "infini"


@pytest.mark.two_devices
def test_plain_import_torch_registers_the_device_through_the_entry_point():
    r = run_python("import torch; t = torch.ones(3, device='infini:1'); print(t.device, t.sum().item())")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "infini:1 3.0"


def _expected_device(index: int) -> tuple[str, int]:
    """The name and total memory the backend's own API gives for device index: the CPU backend's emulated
    device, or the CUDA device under the nvidia backend (torch.cuda, independent of our runtime)."""
    name = torch.infini.backend()
    if name == "cpu":
        return f"InfiniCore CPU device {index}", 8 << 30
    if name == "nvidia":
        return torch.cuda.get_device_name(index), torch.cuda.mem_get_info(index)[1]
    pytest.skip(f"no independent reference for the {name} backend's devices")


@pytest.mark.two_devices
def test_torch_infini_device_functions():
    n = torch.infini.device_count()
    assert torch.infini.is_available() and n >= 2
    if torch.infini.backend() == "cpu":
        assert n == 2  # the CPU backend's default
    torch.infini.set_device(1)
    assert torch.infini.current_device() == 1
    assert torch.empty(1, device="infini").device.index == 1
    with torch.infini.device(0):
        assert torch.infini.current_device() == 0
        assert torch.empty(1, device="infini").device.index == 0
    assert torch.infini.current_device() == 1
    torch.infini.set_device("infini:0")
    assert torch.infini.current_device() == 0
    t = torch.ones(1, device="infini:1")
    with torch.infini.device_of(t):
        assert torch.infini.current_device() == 1
    assert torch.infini.is_initialized()
    for i in (0, 1):
        name, total = _expected_device(i)
        assert torch.infini.get_device_name(i).startswith(name)
        props = torch.infini.get_device_properties(i)
        assert props.total_memory == total and props.name.startswith(name) and props.index == i
        assert props.backend == torch.infini.backend()
    torch.infini.synchronize()
    torch.infini.synchronize(1)
    assert torch.infini.get_amp_supported_dtype() == [torch.float16, torch.bfloat16]


@pytest.mark.two_devices
def test_torch_accelerator_api():
    assert torch.accelerator.is_available()
    assert torch.accelerator.current_accelerator() == torch.device("infini")
    assert torch.accelerator.device_count() == torch.infini.device_count() >= 2
    torch.accelerator.set_device_index(1)
    assert torch.accelerator.current_device_index() == 1
    torch.accelerator.set_device_index(0)
    s = torch.accelerator.current_stream()
    assert s.device == torch.device("infini:0")
    torch.accelerator.synchronize()


@pytest.mark.two_devices
def test_device_guard_follows_the_tensor():
    a = torch.ones(3, device="infini:1")
    b = a + 1  # the fallback runs under a guard for a's device
    assert b.device == torch.device("infini:1")
    assert torch.equal(b.cpu(), torch.full((3,), 2.0))
    assert torch.infini.current_device() == 0


def test_bad_device_indices_raise():
    n = torch.infini.device_count()
    bad = max(7, n)
    there = "is 1 infini device" if n == 1 else f"are {n} infini devices"
    with pytest.raises(RuntimeError, match=f"device index {bad} is out of range: there {there}"):
        torch.ones(1, device=f"infini:{bad}")
    with pytest.raises(RuntimeError, match="out of range"):
        torch.infini.set_device(n)
    with pytest.raises(RuntimeError, match="out of range"):
        torch.ones(2).to(f"infini:{n + 3}")
    with pytest.raises(ValueError, match="Expected an infini device"):
        torch.infini.set_device("cpu")


def test_pinned_memory_and_non_pinned_errors():
    p = torch.ones(16).pin_memory()
    assert p.is_pinned()
    assert not torch.ones(16).is_pinned()
    with pytest.raises(RuntimeError, match="only CPU tensors can be pinned"):
        torch.empty(4, device="infini", pin_memory=True)
