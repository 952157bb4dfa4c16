"""torch.autocast("infini"): lower-precision matmuls, float32 for precision-sensitive ops."""

import pytest
import torch

import infinicore_torch  # noqa: F401


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_autocast_policies(dtype):
    a = torch.randn(8, 8, device="infini")
    b = torch.randn(8, 8, device="infini")
    lin = torch.nn.Linear(8, 4).to("infini")
    with torch.autocast("infini", dtype=dtype):
        assert torch.is_autocast_enabled("infini")
        mm = a @ b
        out = lin(a)
        sm = torch.softmax(mm, dim=-1)
        ln = torch.nn.functional.layer_norm(mm, (8,))
        added = a + b
    assert mm.dtype == dtype and out.dtype == dtype
    assert sm.dtype == torch.float32 and ln.dtype == torch.float32
    assert added.dtype == torch.float32  # no policy: unchanged
    ref = a.cpu().to(dtype) @ b.cpu().to(dtype)
    torch.testing.assert_close(mm.cpu(), ref, rtol=2e-2, atol=2e-2)


def test_autocast_backward_in_float32_params():
    lin = torch.nn.Linear(4, 4).to("infini")
    x = torch.randn(2, 4, device="infini")
    with torch.autocast("infini", dtype=torch.bfloat16):
        y = lin(x).float().sum()
    y.backward()
    assert lin.weight.grad.dtype == torch.float32
