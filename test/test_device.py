"""The "infini" device in PyTorch: registration, torch.infini, torch.accelerator, device guard."""

import pytest
import torch
from conftest import run_python

import infinicore_torch  # noqa: F401


@pytest.mark.cpu_backend
def test_registration_and_generated_methods():
    assert torch._C._get_privateuse1_backend_name() == "infini"
    assert torch.device("infini").type == "infini"
    t = torch.arange(4.0).infini()
    assert t.is_infini and t.device == torch.device("infini", 0)
    assert t.infini(1).device == torch.device("infini:1")
    m = torch.nn.Linear(3, 2).infini()
    assert all(p.is_infini for p in m.parameters())
    assert torch.ones(2).untyped_storage().infini().device.type == "infini"


@pytest.mark.cpu_backend
def test_plain_import_torch_registers_the_device_through_the_entry_point():
    r = run_python("import torch; t = torch.ones(3, device='infini:1'); print(t.device, t.sum().item())")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "infini:1 3.0"


@pytest.mark.cpu_backend
def test_torch_infini_device_functions():
    assert torch.infini.is_available() and torch.infini.device_count() == 2
    assert torch.infini.backend() == "cpu"
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
    assert torch.infini.get_device_name(1).startswith("InfiniCore CPU device 1")
    props = torch.infini.get_device_properties(0)
    assert props.total_memory == 8 << 30 and props.name.startswith("InfiniCore CPU device 0")
    torch.infini.synchronize()
    torch.infini.synchronize(1)
    assert torch.infini.get_amp_supported_dtype() == [torch.float16, torch.bfloat16]


@pytest.mark.cpu_backend
def test_torch_accelerator_api():
    assert torch.accelerator.is_available()
    assert torch.accelerator.current_accelerator() == torch.device("infini")
    assert torch.accelerator.device_count() == 2
    torch.accelerator.set_device_index(1)
    assert torch.accelerator.current_device_index() == 1
    torch.accelerator.set_device_index(0)
    s = torch.accelerator.current_stream()
    assert s.device == torch.device("infini:0")
    torch.accelerator.synchronize()


@pytest.mark.cpu_backend
def test_device_guard_follows_the_tensor():
    a = torch.ones(3, device="infini:1")
    b = a + 1  # the fallback runs under a guard for a's device
    assert b.device == torch.device("infini:1")
    assert torch.infini.current_device() == 0


@pytest.mark.cpu_backend
def test_bad_device_indices_raise():
    with pytest.raises(RuntimeError, match="device index 7 is out of range: there are 2 infini devices"):
        torch.ones(1, device="infini:7")
    with pytest.raises(RuntimeError, match="out of range"):
        torch.infini.set_device(2)
    with pytest.raises(RuntimeError, match="out of range"):
        torch.ones(2).to("infini:5")
    with pytest.raises(ValueError, match="Expected an infini device"):
        torch.infini.set_device("cpu")


def test_pinned_memory_and_non_pinned_errors():
    p = torch.ones(16).pin_memory()
    assert p.is_pinned()
    assert not torch.ones(16).is_pinned()
    with pytest.raises(RuntimeError, match="only CPU tensors can be pinned"):
        torch.empty(4, device="infini", pin_memory=True)
