"""Autograd on infini tensors matches autograd on the CPU."""

import torch

import infinicore_torch  # noqa: F401


def test_gradients_match_cpu():
    torch.manual_seed(0)
    x = torch.randn(5, 7, requires_grad=True)
    w = torch.randn(7, 3, requires_grad=True)
    xi = x.detach().to("infini").requires_grad_()
    wi = w.detach().to("infini").requires_grad_()
    for a, b in ((x, w), (xi, wi)):
        y = torch.tanh(a @ b).pow(2).sum() + (a[:, 1:3] * 2).mean()
        y.backward()
    assert xi.grad.device.type == "infini"
    torch.testing.assert_close(xi.grad.cpu(), x.grad, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(wi.grad.cpu(), w.grad, rtol=1e-5, atol=1e-6)


def test_grad_of_views_and_in_place_ops():
    a = torch.arange(6.0).reshape(2, 3).to("infini").requires_grad_()
    b = a.clone()
    b[:, 1] *= 3
    b.T.sum().backward()
    expected = torch.ones(2, 3)
    expected[:, 1] = 3
    assert torch.equal(a.grad.cpu(), expected)


def test_torch_autograd_grad_and_no_grad():
    x = torch.tensor([1.0, 2.0, 3.0], device="infini", requires_grad=True)
    (g,) = torch.autograd.grad((x**3).sum(), x)
    assert torch.equal(g.cpu(), torch.tensor([3.0, 12.0, 27.0]))
    with torch.no_grad():
        y = x * 2
    assert not y.requires_grad


def test_every_formula_has_the_cpp_autograd_kernel_and_back():
    """The C++ kernel's op list (csrc/ops/Autograd.cpp) and the Python formulas (_autograd._FORMULAS)
    name the same ops: a formula without the kernel would run Python on every call, a kernel without a
    formula would fail when autograd records."""
    from infinicore_torch.ops import _autograd

    ns = torch.ops.infini
    names = {n for n in dir(ns) if isinstance(getattr(ns, n, None), torch._ops.OpOverloadPacket)}
    with_kernel = {n for n in names if torch._C._dispatch_has_kernel_for_dispatch_key(f"infini::{n}", "AutogradCPU")}
    assert with_kernel == set(_autograd._FORMULAS)
    for n in with_kernel:
        assert torch._C._dispatch_has_kernel_for_dispatch_key(f"infini::{n}", "AutogradPrivateUse1")
