"""Storages, resize, set_, and serialization with torch.save / torch.load."""

import io

import pytest
import torch

import infinicore_torch  # noqa: F401


@pytest.mark.two_devices
def test_untyped_storage_on_infini():
    t = torch.arange(4, dtype=torch.int32, device="infini:1")
    s = t.untyped_storage()
    assert s.device == torch.device("infini:1") and s.nbytes() == 16
    assert bytes(s.cpu()) == bytes(torch.arange(4, dtype=torch.int32).untyped_storage())
    s2 = torch.UntypedStorage(10, device="infini")
    s2.resize_(32)
    assert s2.nbytes() == 32


def test_resize_keeps_the_data_and_set_shares_storage():
    t = torch.arange(6.0, device="infini")
    t.resize_(2, 5)
    assert t.shape == (2, 5) and torch.equal(t.cpu().flatten()[:6], torch.arange(6.0))
    u = torch.empty(0, device="infini")
    u.set_(t)
    assert u.data_ptr() == t.data_ptr() and u.shape == t.shape
    v = torch.empty(0, device="infini").set_(t.untyped_storage(), 2, (2,), (1,))
    assert torch.equal(v.cpu(), torch.tensor([2.0, 3.0]))
    w = torch.empty(0, device="infini").set_()
    assert w.numel() == 0


def test_views_share_memory():
    t = torch.zeros(4, 6, device="infini")
    col = t[:, 2]
    col.fill_(5.0)
    t.view(24)[0] = 1.0
    t.T[3, 1] = 2.0
    expected = torch.zeros(4, 6)
    expected[:, 2] = 5.0
    expected.view(24)[0] = 1.0
    expected.T[3, 1] = 2.0
    assert torch.equal(t.cpu(), expected)
    assert torch.equal(t[::2, 1::3].contiguous().cpu(), expected[::2, 1::3])
    assert torch.equal(t.expand(2, 4, 6).cpu(), expected.expand(2, 4, 6))


@pytest.mark.parametrize(
    "location, expect",
    [
        (None, "infini:1"),
        ("cpu", "cpu"),
        ("infini", "infini:0"),
        ("infini:1", "infini:1"),
        ("infini:0", "infini:0"),
    ],
)
@pytest.mark.two_devices
def test_save_and_load_with_map_location(location, expect):
    t = torch.randn(3, 5).to("infini:1")
    buf = io.BytesIO()
    torch.save({"t": t, "view": t[1]}, buf)
    buf.seek(0)
    loaded = torch.load(buf, map_location=location)
    assert str(loaded["t"].device) == expect
    assert torch.equal(loaded["t"].cpu(), t.cpu())
    assert torch.equal(loaded["view"].cpu(), t[1].cpu())


def test_module_state_dict_roundtrip():
    m = torch.nn.Linear(4, 3).to("infini")
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    buf.seek(0)
    m2 = torch.nn.Linear(4, 3)
    m2.load_state_dict(torch.load(buf, map_location="cpu"))
    assert torch.equal(m2.weight, m.weight.cpu())
