"""Random numbers on infini: seeded tensors reproduce, generators and their state."""

import pytest
import torch

import infinicore_torch  # noqa: F401


def test_torch_manual_seed_reproduces():
    torch.manual_seed(123)
    a = torch.randn(64, device="infini")
    torch.manual_seed(123)
    b = torch.randn(64, device="infini")
    torch.manual_seed(124)
    c = torch.randn(64, device="infini")
    assert torch.equal(a.cpu(), b.cpu()) and not torch.equal(a.cpu(), c.cpu())


def test_infini_manual_seed_alone_controls_infini_randomness():
    torch.infini.manual_seed(7)
    torch.manual_seed(1)  # the CPU generator must not matter for infini...
    torch.infini.manual_seed(7)
    a = torch.rand(32, device="infini")
    torch.randn(5)  # CPU draws do not advance the infini generator
    torch.infini.manual_seed(7)
    b = torch.rand(32, device="infini")
    assert torch.equal(a.cpu(), b.cpu())
    assert torch.infini.initial_seed() == 7


@pytest.mark.two_devices
def test_rng_state_roundtrip_and_per_device_generators():
    torch.infini.manual_seed_all(3)
    state = torch.infini.get_rng_state()
    x = torch.randn(10, device="infini")
    torch.infini.set_rng_state(state)
    y = torch.randn(10, device="infini")
    assert torch.equal(x.cpu(), y.cpu())
    z = torch.randn(10, device="infini:1")  # device 1 has its own generator, also seeded 3
    assert torch.equal(z.cpu(), x.cpu())
    states = torch.infini.get_rng_state_all()
    assert len(states) == torch.infini.device_count()


def test_explicit_generator():
    g = torch.Generator(device="infini")
    assert g.device == torch.device("infini:0")
    g.manual_seed(42)
    a = torch.randn(8, device="infini", generator=g)
    g.manual_seed(42)
    b = torch.randn(8, device="infini", generator=g)
    assert torch.equal(a.cpu(), b.cpu())
    x = torch.empty(1000, device="infini").uniform_(-1, 1, generator=g)
    assert -1 <= x.min().item() and x.max().item() <= 1
    p = torch.multinomial(torch.tensor([0.0, 1.0, 0.0], device="infini"), 4, replacement=True, generator=g)
    assert torch.equal(p.cpu(), torch.ones(4, dtype=torch.long))
