"""The CPU fallback for aten ops without an infini kernel: counted, warned once, can be forbidden."""

import pytest
import torch
from conftest import run_python

import infinicore_torch


def test_fallback_counts_calls_per_op():
    infinicore_torch.reset_fallback_stats()
    x = torch.tensor([0.5, 1.5], device="infini")
    y = torch.special.bessel_j0(x)  # an op the infini kernels do not cover
    torch.special.bessel_j0(x)
    stats = infinicore_torch.fallback_stats()
    assert stats.get("aten::special_bessel_j0.out") == 2 or stats.get("aten::special_bessel_j0") == 2, stats
    torch.testing.assert_close(y.cpu(), torch.special.bessel_j0(torch.tensor([0.5, 1.5])))
    infinicore_torch.reset_fallback_stats()
    assert infinicore_torch.fallback_stats() == {}


def test_native_ops_do_not_fall_back(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    x = torch.empty(4, 5, device="infini")
    x.zero_()
    x.fill_(2.0)
    y = x.t().contiguous()  # views and copies are native
    z = y.view(20)[3:7].cpu()
    w = torch.empty(0, device="infini").resize_(3).copy_(torch.ones(3))
    assert x[1, 2].item() == 2.0
    assert torch.equal(z, torch.full((4,), 2.0)) and torch.equal(w.cpu(), torch.ones(3))
    assert infinicore_torch.fallback_stats() == {}


def test_fallback_error_mode_raises_and_leaves_inputs_untouched(monkeypatch):
    x = torch.tensor([1.0, 4.0], device="infini")
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    with pytest.raises(RuntimeError, match="aten::i0.* has no infini kernel, and INFINI_FALLBACK=error"):
        x.i0_()
    monkeypatch.delenv("INFINI_FALLBACK")
    assert torch.equal(x.cpu(), torch.tensor([1.0, 4.0]))
    x.i0_()  # in-place ops write back through the fallback
    torch.testing.assert_close(x.cpu(), torch.i0(torch.tensor([1.0, 4.0])))


def test_warns_once_per_op():
    code = (
        "import warnings, torch, infinicore_torch\n"
        "x = torch.ones(3, device='infini')\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    torch.special.bessel_j0(x); torch.special.bessel_j0(x); torch.special.bessel_j1(x)\n"
        "msgs = [str(m.message) for m in w if 'has no infini kernel' in str(m.message)]\n"
        "print(sum('bessel_j0' in m for m in msgs), sum('bessel_j1' in m for m in msgs))\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "1 1"
