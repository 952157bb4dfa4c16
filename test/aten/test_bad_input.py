"""Bad input to aten ops on infini raises torch's error (the same exception type and message as on the CPU), and a
failed op leaves its inputs untouched. Torch's own OpInfo error inputs are run by the conformance runner too."""

import pytest
import torch
import torch.nn.functional as F
from aten_utils import DEV


def test_gelu_rejects_an_unknown_approximation():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(torch.ones(3, device=DEV), approximate="asdf")


def test_logcumsumexp_rejects_a_dim_out_of_range_even_when_empty():
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.logcumsumexp(torch.empty(0, 2, device=DEV), 3)


def test_masked_scatter_needs_a_bool_mask():
    x = torch.zeros(1, 3, device=DEV)
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        x.masked_scatter_(torch.ones(1, 3, dtype=torch.uint8, device=DEV), torch.ones(3, 4, device=DEV))
    assert torch.equal(x.cpu(), torch.zeros(1, 3))


def test_cat_into_one_of_its_inputs_is_refused():
    a = torch.arange(10.0, device=DEV).reshape(2, 5)
    b = torch.arange(10.0, 20.0, device=DEV).reshape(2, 5)
    out = torch.empty(4, 5, device=DEV)
    with pytest.raises(RuntimeError, match="unsupported operation"):
        torch.cat([out[:2], b], out=out)
    torch.cat([a, b], out=out)  # (no overlap: fine)
    assert torch.equal(out.cpu(), torch.arange(20.0).reshape(4, 5))


def test_gather_into_its_input_is_refused():
    x = torch.arange(6.0, device=DEV)
    idx = torch.tensor([2, 1, 0], device=DEV)
    with pytest.raises(RuntimeError, match="unsupported operation"):
        torch.gather(x, 0, idx, out=x[:3])
    assert torch.equal(x.cpu(), torch.arange(6.0))
