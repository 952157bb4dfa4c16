"""Ops composed of device ops (csrc/aten/Composite.cpp) against torch on CPU: isin, histc and bincount (or a float64
formula where torch's CPU kernel has no integer histc), equal, rsub, weight normalization with its backward; and
module.to("infini") keeping tied parameters tied."""

import copy

import pytest
import torch
import torch.nn.functional as F
from aten_utils import DEV, make, same

import infinicore_torch  # noqa: F401

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32, torch.int8]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("invert", [False, True])
def test_isin_tensor(dtype, invert):
    x = make((5, 7), dtype, low=-4, high=4).round()
    test = make((9,), dtype, low=-4, high=4, seed=1).round()
    ref = torch.isin(x, test, invert=invert)
    same(torch.isin(x.to(DEV), test.to(DEV), invert=invert), ref)
    out = torch.empty(0, dtype=torch.bool, device=DEV)
    torch.isin(x.to(DEV), test.to(DEV), invert=invert, out=out)
    same(out, ref)


def test_isin_scalars_mixed_dtypes_and_empty():
    x = torch.tensor([[1, 2, 3], [4, 5, 6]])
    same(torch.isin(x.to(DEV), 5), torch.isin(x, 5))
    same(torch.isin(3, x.to(DEV)), torch.isin(3, x))
    same(torch.isin(x.to(DEV), torch.tensor([2.0, 5.5]).to(DEV)), torch.isin(x, torch.tensor([2.0, 5.5])))
    same(
        torch.isin(x.to(DEV), torch.tensor([], dtype=torch.long).to(DEV)),
        torch.isin(x, torch.tensor([], dtype=torch.long)),
    )
    same(torch.isin(torch.empty(0, 3).to(DEV), x.float().to(DEV)), torch.isin(torch.empty(0, 3), x.float()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("bins,lo,hi", [(10, 0, 0), (7, -1.0, 1.5), (1, -2, 2), (33, 0.25, 0.5)])
def test_histc_float_matches_cpu(dtype, bins, lo, hi):
    # (torch's CPU kernel counts in the input dtype: keep 16-bit float counts below 256, where they are exact)
    x = make((1000 if dtype in (torch.float32, torch.float64) else 200,), dtype, low=-3, high=3)
    x[:5] = torch.tensor([lo, hi, -10.0, 10.0, (lo + hi) / 2], dtype=dtype)
    same(torch.histc(x.to(DEV), bins, lo, hi), torch.histc(x, bins, lo, hi))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8])
def test_histc_formula(dtype):
    # torch's CPU histc has no integer kernel: the counts of the formula in float64 (bins of equal width over
    # [min, max], max in the last bin, the rest ignored)
    x = make((500,), dtype)
    bins, lo, hi = 8, -20, 30
    v = x.double()
    b = ((v - lo) * bins / (hi - lo)).long().clamp(max=bins - 1)
    inside = (v >= lo) & (v <= hi)
    ref = torch.bincount(b[inside], minlength=bins).to(dtype)
    same(torch.histc(x.to(DEV), bins, lo, hi), ref)
    # min == max == 0: the data's own range
    r = torch.histc(x.to(DEV), 5)
    assert r.sum().item() == x.numel()


def test_histc_bad_input():
    x = torch.ones(4, device=DEV)
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        torch.histc(x, 0)
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        torch.histc(x, 4, 2, 1)


@pytest.mark.parametrize("weights", [None, torch.float32, torch.float64, torch.int32])
def test_bincount(weights):
    x = torch.randint(0, 20, (300,), generator=torch.Generator().manual_seed(0))
    w = None if weights is None else make((300,), weights)
    for minlength in (0, 5, 40):
        same(torch.bincount(x.to(DEV), None if w is None else w.to(DEV), minlength), torch.bincount(x, w, minlength))
    same(torch.bincount(torch.empty(0, dtype=torch.long, device=DEV)), torch.bincount(torch.empty(0, dtype=torch.long)))


def test_bincount_bad_input():
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.bincount(torch.tensor([1, -1], device=DEV))
    with pytest.raises(RuntimeError, match="1-d"):
        torch.bincount(torch.zeros(2, 2, dtype=torch.long, device=DEV))


def test_module_to_keeps_tied_parameters():
    # as on CUDA, .to() moves a parameter in place (param.data = ...): a weight shared by two modules stays shared
    torch.manual_seed(0)
    emb = torch.nn.Embedding(10, 4)
    head = torch.nn.Linear(4, 10, bias=False)
    head.weight = emb.weight
    model = torch.nn.Sequential(emb, head)
    dev = copy.deepcopy(model).to(DEV)
    assert dev[0].weight is dev[1].weight
    assert len(list(dev.parameters())) == 1
    ids = torch.tensor([[1, 2, 3]])
    model(ids).sum().backward()
    dev(ids.to(DEV)).sum().backward()
    same(dev[0].weight.grad, model[0].weight.grad, rtol=1e-5, atol=1e-6)
    back = dev.to("cpu")
    assert back[0].weight is back[1].weight and back[0].weight.device.type == "cpu"


def test_equal():
    a = torch.tensor([[1.0, 2.0], [3.0, float("nan")]])
    cases = [
        (a[:, :1], a[:, :1]),
        (a[0], torch.tensor([1, 2])),  # values after promotion
        (a[0], a[:1]),  # sizes differ
        (a, a),  # NaN equals nothing
        (torch.empty(0, 3), torch.empty(0, 3)),
        (torch.tensor([True, False]), torch.tensor([True, True])),
    ]
    for x, y in cases:
        assert torch.equal(x.to(DEV), y.to(DEV)) == torch.equal(x, y), (x, y)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_rsub_tensor(dtype):
    x, y = make((3, 4), dtype), make((4,), dtype, seed=1)
    same(torch.rsub(x.to(DEV), y.to(DEV), alpha=2), torch.rsub(x, y, alpha=2))
    same(torch.rsub(x.to(DEV), y.to(DEV)), torch.rsub(x, y))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_logsigmoid_and_its_backward(dtype):
    x = make((5, 7), dtype, low=-40, high=40)
    xd = x.to(DEV).requires_grad_()
    xc = x.clone().requires_grad_()
    yd, yc = torch.nn.functional.logsigmoid(xd), torch.nn.functional.logsigmoid(xc)
    same(yd.detach(), yc.detach())
    g = make((5, 7), dtype, seed=2)
    yd.backward(g.to(DEV))
    yc.backward(g)
    same(xd.grad, xc.grad)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_reflection_and_replication_padding(mode, dtype):
    for shape, pad in (
        ((2, 5), (2, 3)),
        ((3, 2, 7), (0, 4)),
        ((1, 5), (-1, 2)),
        ((2, 3, 4, 5), (1, 2, 3, 0)),
        ((3, 6, 4), (2, 2, 1, 3)),
        ((2, 3, 4, 5), (-1, 1, 2, -2)),
        ((1, 2, 3, 4, 5), (1, 2, 2, 1, 0, 2)),
    ):
        x = make(shape, dtype)
        same(F.pad(x.to(DEV), pad, mode=mode), F.pad(x, pad, mode=mode))


def test_padding_errors_are_torchs():
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(torch.randn(2, 3, device=DEV), (3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="Expected 2D or 3D"):
        F.pad(torch.randn(2, 0, device=DEV), (1, 1), mode="replicate")


@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
@pytest.mark.parametrize("dim", [0, 2])
def test_weight_norm_interface_and_its_backward(dtype, tol, dim):
    # nn.utils.parametrizations.weight_norm (wav2vec2's positional convolution uses dim 2) takes the fused interface
    v = make((6, 5, 4), dtype)
    g = make((6, 1, 1) if dim == 0 else (1, 1, 4), dtype, seed=1)
    w, norms = torch._weight_norm_interface(v.to(DEV), g.to(DEV), dim)
    w_ref, norms_ref = torch._weight_norm_interface(v, g, dim)
    assert norms.dtype == norms_ref.dtype and norms.shape == norms_ref.shape
    torch.testing.assert_close(w.cpu(), w_ref, rtol=tol, atol=tol)
    torch.testing.assert_close(norms.cpu(), norms_ref, rtol=tol, atol=tol)
    grad = make((6, 5, 4), dtype, seed=2)
    got = torch.ops.aten._weight_norm_interface_backward(grad.to(DEV), v.to(DEV), g.to(DEV), norms, dim)
    want = torch.ops.aten._weight_norm_interface_backward(grad, v, g, norms_ref, dim)
    for a, b in zip(got, want):
        torch.testing.assert_close(a.cpu(), b, rtol=tol, atol=tol)


def test_weight_normed_conv_trains_like_cpu():
    torch.manual_seed(0)
    conv = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 8, 3, padding=1), name="weight", dim=2)
    ref = copy.deepcopy(conv)
    x = make((2, 4, 10), torch.float32)
    dev = conv.to(DEV)
    dev(x.to(DEV)).square().sum().backward()
    ref(x).square().sum().backward()
    for (name, a), (_, b) in zip(dev.named_parameters(), ref.named_parameters()):
        torch.testing.assert_close(a.grad.cpu(), b.grad, rtol=1e-5, atol=1e-5, msg=name)
    with pytest.raises(RuntimeError, match="_weight_norm_interface: dim must be the first or the last"):
        torch._weight_norm_interface(make((6, 5, 4), torch.float32).to(DEV), make((1, 5, 1), torch.float32).to(DEV), 1)
