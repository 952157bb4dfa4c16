"""The rows, norm, nll_loss, sdpa and window families (families.h) through the C ABI, on the infini device's backend,
against torch on the CPU (float64 references): the contract every backend implements, independent of the aten glue.
A family the backend does not provide (NOT_IMPLEMENTED) skips. Operands are infini tensors; each call is bracketed by
device synchronizations. Cases that only matter for an accelerator's kernels (rows held in registers or read twice
at full size, grids past 65535 blocks, the tiled attention kernel's shapes) run where the backend is not the cpu
one."""

from __future__ import annotations

import ctypes
import math
import os
import re
from ctypes import byref, c_double, c_int32, c_int64, c_void_p

import pytest
import torch
import torch.nn.functional as F
from conftest import ROOT, L

import infinicore_torch  # noqa: F401  (registers the infini device)
from infinicore_torch import _infini as I

MAX_DIMS = 12


def _enums() -> dict[str, int]:
    text = open(os.path.join(ROOT, "backends", "include", "infini", "families.h")).read()
    values = {}
    for body in re.findall(r"typedef enum \{(.*?)\}", text, re.S):
        nxt = 0
        for name, value in re.findall(
            r"(INFINIOP_\w+)\s*(?:=\s*(\d+))?\s*,", re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        ):
            nxt = int(value) if value else nxt
            values[name] = nxt
            nxt += 1
    return values


E = _enums()


class Tensor(ctypes.Structure):
    _fields_ = [
        ("ndim", c_int32),
        ("dtype", c_int32),
        ("data", c_void_p),
        ("shape", c_int64 * MAX_DIMS),
        ("strides", c_int64 * MAX_DIMS),
    ]


class RowsArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("outer", c_int64),
        ("n", c_int64),
        ("inner", c_int64),
        ("out_dtype", c_int32),
        ("x_dtype", c_int32),
        ("y_dtype", c_int32),
        ("out", c_void_p),
        ("x", c_void_p),
        ("y", c_void_p),
    ]


class NormArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("rows", c_int64),
        ("cols", c_int64),
        ("eps", c_double),
        ("dtype", c_int32),
        ("w_dtype", c_int32),
        ("y", c_void_p),
        ("mean", c_void_p),
        ("rstd", c_void_p),
        ("dw", c_void_p),
        ("db", c_void_p),
        ("x", c_void_p),
        ("w", c_void_p),
        ("b", c_void_p),
        ("dy", c_void_p),
    ]


class NllLossArgs(ctypes.Structure):
    _fields_ = [
        ("backward", c_int32),
        ("reduction", c_int32),
        ("n", c_int64),
        ("c", c_int64),
        ("d", c_int64),
        ("ignore_index", c_int64),
        ("dtype", c_int32),
        ("target_dtype", c_int32),
        ("out", c_void_p),
        ("total_weight", c_void_p),
        ("x", c_void_p),
        ("target", c_void_p),
        ("weight", c_void_p),
        ("total_weight_in", c_void_p),
    ]


class SdpaArgs(ctypes.Structure):
    _fields_ = [
        ("backward", c_int32),
        ("causal", c_int32),
        ("scale", c_double),
        ("dtype", c_int32),
        ("mask_dtype", c_int32),
        ("q", Tensor),
        ("k", Tensor),
        ("v", Tensor),
        ("mask", Tensor),
        ("out", Tensor),
        ("lse", Tensor),
        ("dout", Tensor),
        ("dq", Tensor),
        ("dk", Tensor),
        ("dv", Tensor),
    ]


class WindowArgs(ctypes.Structure):
    _fields_ = [
        ("op", c_int32),
        ("dtype", c_int32),
        ("n", c_int64),
        ("c", c_int64),
        ("h", c_int64),
        ("w", c_int64),
        ("oh", c_int64),
        ("ow", c_int64),
        ("kh", c_int32),
        ("kw", c_int32),
        ("sh", c_int32),
        ("sw", c_int32),
        ("ph", c_int32),
        ("pw", c_int32),
        ("dh", c_int32),
        ("dw", c_int32),
        ("ceil_mode", c_int32),
        ("count_include_pad", c_int32),
        ("align_corners", c_int32),
        ("divisor_override", c_int64),
        ("scale_h", c_double),
        ("scale_w", c_double),
        ("out", c_void_p),
        ("indices", c_void_p),
        ("in_", c_void_p),
    ]


for _name, _struct in {
    "Rows": RowsArgs,
    "Norm": NormArgs,
    "NllLoss": NllLossArgs,
    "Sdpa": SdpaArgs,
    "Window": WindowArgs,
}.items():
    _fn = getattr(L, "infiniop" + _name)
    _fn.restype = ctypes.c_int
    _fn.argtypes = [c_void_p, ctypes.POINTER(_struct), c_void_p]

DT = {
    torch.float32: 13,
    torch.float16: 12,
    torch.bfloat16: 19,
    torch.float64: 14,
    torch.int32: 5,
    torch.int64: 6,
    torch.bool: 2,
}
BACKEND = torch.infini.backend() if hasattr(torch, "infini") else "cpu"
DEVICE_TYPE = {"cpu": I.DEVICE_CPU, "nvidia": I.DEVICE_NVIDIA}.get(BACKEND, I.DEVICE_CPU)
accel_only = pytest.mark.skipif(
    BACKEND == "cpu", reason="sizes that exercise an accelerator's kernels; slow on the cpu backend"
)
NOT_IMPLEMENTED = 2

_handle = None


def handle() -> int:
    global _handle
    I.set_device(DEVICE_TYPE, 0)
    if _handle is None:
        h = c_void_p()
        I.check(L.infiniopCreateHandle(byref(h)))
        _handle = h.value
    return _handle


def sync() -> int:
    I.set_device(DEVICE_TYPE, 0)
    return L.infinirtDeviceSynchronize()


def call(family: str, args, *keep, expect=0) -> str:
    """Queues a family call and waits for it; skips when the backend does not provide the family. expect: the status
    the call returns (its message is returned)."""
    h = handle()
    I.check(sync())
    status = getattr(L, "infiniop" + family)(h, byref(args), None)
    if status == NOT_IMPLEMENTED and expect != NOT_IMPLEMENTED:
        pytest.skip(f"the {BACKEND} backend does not provide the {family} family: {I.last_error()}")
    assert status == expect, f"{I.status_name(status)}: {I.last_error()}"
    message = I.last_error()
    I.check(sync())
    return message


def dev(t: torch.Tensor) -> torch.Tensor:
    return t.to("infini")


def ptr(t: torch.Tensor | None):
    return t.data_ptr() if t is not None and t.numel() else None


def tensor_of(t: torch.Tensor | None) -> Tensor:
    out = Tensor()
    if t is None:
        return out
    out.ndim, out.dtype, out.data = t.dim(), DT[t.dtype], ptr(t)
    for d in range(t.dim()):
        out.shape[d], out.strides[d] = t.size(d), t.stride(d)
    return out


def rand(*shape, dtype=torch.float32, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def tol(dtype, scale=1.0):
    if dtype == torch.float64:
        return dict(rtol=1e-9, atol=1e-9 * scale)
    if dtype == torch.float32:
        return dict(rtol=2e-5, atol=2e-5 * scale)
    return dict(rtol=2e-2, atol=2e-2 * scale)


def close(actual, expected, dtype, scale=1.0):
    torch.testing.assert_close(actual.cpu().double(), expected.double(), equal_nan=True, **tol(dtype, scale))


def unaligned_copy(t: torch.Tensor) -> torch.Tensor:
    """t on the device, its data one element past an allocation's start (not on 16 bytes)."""
    flat = dev(torch.zeros(t.numel() + 1, dtype=t.dtype))
    view = flat[1:].view(t.shape)
    view.copy_(dev(t))
    return view


# ================================================================================================================
# rows


def rows_ref(op: str, x, y, dim):
    x, y = x.double(), None if y is None else y.double()
    if op == "SOFTMAX":
        return torch.softmax(x, dim)
    if op == "LOG_SOFTMAX":
        return torch.log_softmax(x, dim)
    if op == "SOFTMAX_BWD":
        return y * (x - (x * y).sum(dim, keepdim=True))
    return x - torch.exp(y) * x.sum(dim, keepdim=True)


def run_rows(op: str, x, y, out_dtype, outer, n, inner, aligned=True):
    a = RowsArgs()
    a.op, a.outer, a.n, a.inner = E["INFINIOP_ROWS_" + op], outer, n, inner
    dx = dev(x) if aligned else unaligned_copy(x)
    dy = None if y is None else dev(y)
    out = (
        dev(torch.zeros(x.shape, dtype=out_dtype)) if aligned else unaligned_copy(torch.zeros(x.shape, dtype=out_dtype))
    )
    a.out_dtype, a.x_dtype, a.y_dtype = DT[out_dtype], DT[x.dtype], DT[(y if y is not None else x).dtype]
    a.out, a.x, a.y = ptr(out), ptr(dx), ptr(dy)
    call("Rows", a, out, dx, dy)
    return out


ROWS_OPS = ["SOFTMAX", "LOG_SOFTMAX", "SOFTMAX_BWD", "LOG_SOFTMAX_BWD"]


def rows_inputs(op, shape, dtype, dim):
    x = rand(*shape, dtype=dtype, scale=3.0)
    if op.endswith("BWD"):
        logits = rand(*shape, seed=1, scale=2.0)
        y = (torch.softmax(logits, dim) if op == "SOFTMAX_BWD" else torch.log_softmax(logits, dim)).to(dtype)
        return x, y
    return x, None


@pytest.mark.parametrize("op", ROWS_OPS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.parametrize("shape", [(5, 64), (3, 1023), (4, 1), (2, 3000)])
def test_rows_last_dim(op, dtype, shape):
    x, y = rows_inputs(op, shape, dtype, -1)
    out = run_rows(op, x, y, dtype, shape[0], shape[1], 1)
    close(out, rows_ref(op, x, y, -1), dtype, scale=4.0)


@pytest.mark.parametrize("op", ROWS_OPS)
def test_rows_inner_dim_and_mixed_dtypes(op):
    x, y = rows_inputs(op, (3, 50, 7), torch.float32, 1)
    close(run_rows(op, x, y, torch.float32, 3, 50, 7), rows_ref(op, x, y, 1), torch.float32, scale=4.0)
    xh = rand(6, 256, dtype=torch.bfloat16, scale=3.0)  # half-to-float and back
    if op in ("SOFTMAX", "LOG_SOFTMAX"):
        close(run_rows(op, xh, None, torch.float32, 6, 256, 1), rows_ref(op, xh, None, -1), torch.float32)
        close(run_rows(op, xh.float(), None, torch.bfloat16, 6, 256, 1), rows_ref(op, xh, None, -1), torch.bfloat16)


def test_rows_unaligned_and_special_values():
    x = rand(4, 512, scale=3.0)
    x[0] = float("-inf")
    x[1, 5] = float("nan")
    x[2, 9] = float("inf")
    x[3, ::3] = float("-inf")
    for op in ("SOFTMAX", "LOG_SOFTMAX"):
        ref = rows_ref(op, x, None, -1)
        close(run_rows(op, x, None, torch.float32, 4, 512, 1), ref, torch.float32)
        close(run_rows(op, x, None, torch.float32, 4, 512, 1, aligned=False), ref, torch.float32)


@accel_only
@pytest.mark.parametrize("op", ROWS_OPS)
@pytest.mark.parametrize(
    "shape,dtype",
    [
        ((4096, 4096), torch.bfloat16),
        ((4, 128256), torch.float32),
        ((70000, 16), torch.float32),
        ((3, 40000), torch.bfloat16),
    ],
)
def test_rows_accelerator_sizes(op, shape, dtype):
    x, y = rows_inputs(op, shape, dtype, -1)
    close(run_rows(op, x, y, dtype, shape[0], shape[1], 1), rows_ref(op, x, y, -1), dtype, scale=4.0)


# ================================================================================================================
# norm


def norm_ref(layer: bool, x, w, b, dy, eps):
    """(y, mean, rstd, dx, dw, db) in float64 by autograd."""
    xd = x.double().requires_grad_()
    wd = None if w is None else w.double().requires_grad_()
    bd = None if b is None else b.double().requires_grad_()
    cols = x.shape[-1]
    if layer:
        y = F.layer_norm(xd, [cols], wd, bd, eps)
        mean = xd.detach().mean(-1)
        rstd = 1 / torch.sqrt(xd.detach().var(-1, unbiased=False) + eps)
    else:
        rstd = 1 / torch.sqrt(xd.pow(2).mean(-1, keepdim=True) + eps)
        y = xd * rstd * (wd if wd is not None else 1)
        mean, rstd = None, rstd.detach().squeeze(-1)
    ins = [t for t in (xd, wd, bd) if t is not None]
    grads = torch.autograd.grad(y, ins, dy.double())
    dx, dw = grads[0], (grads[1] if w is not None else None)
    db = grads[2] if b is not None else None
    return y.detach(), mean, rstd, dx, dw, db


def run_norm(layer, x, w, b, dy, eps=1e-5, want=(True, True, True), aligned=True):
    rows, cols = x.shape
    wdt = (w if w is not None else x).dtype
    mk = dev if aligned else unaligned_copy
    dx_, dw_, db_ = mk(x), None if w is None else dev(w), None if b is None else dev(b)
    y = mk(torch.zeros_like(x))
    stat = torch.float64 if x.dtype == torch.float64 else torch.float32  # (the statistics' dtype)
    mean, rstd = dev(torch.zeros(rows, dtype=stat)), dev(torch.zeros(rows, dtype=stat))
    a = NormArgs()
    a.op = E["INFINIOP_NORM_" + ("LAYER_NORM" if layer else "RMS_NORM")]
    a.rows, a.cols, a.eps, a.dtype, a.w_dtype = rows, cols, eps, DT[x.dtype], DT[wdt]
    a.y, a.mean, a.rstd, a.x, a.w, a.b = ptr(y), ptr(mean) if layer else None, ptr(rstd), ptr(dx_), ptr(dw_), ptr(db_)
    call("Norm", a, y, mean, rstd, dx_, dw_, db_)
    fwd = (y, mean if layer else None, rstd)
    # the backward from the forward's statistics
    g = mk(dy)
    gx = mk(torch.zeros_like(x)) if want[0] else None
    gw = dev(torch.zeros(cols, dtype=wdt)) if want[1] and w is not None else None
    gb = dev(torch.zeros(cols, dtype=wdt)) if want[2] and b is not None and layer else None
    a = NormArgs()
    a.op = E["INFINIOP_NORM_" + ("LAYER_NORM_BWD" if layer else "RMS_NORM_BWD")]
    a.rows, a.cols, a.eps, a.dtype, a.w_dtype = rows, cols, eps, DT[x.dtype], DT[wdt]
    a.y, a.dw, a.db = ptr(gx), ptr(gw), ptr(gb)
    a.x, a.dy, a.mean, a.rstd, a.w = ptr(dx_), ptr(g), ptr(mean) if layer else None, ptr(rstd), ptr(dw_)
    call("Norm", a, gx, gw, gb, g, dx_, mean, rstd, dw_)
    return fwd + (gx, gw, gb)


def check_norm(layer, x, w, b, dy, **kw):
    got = run_norm(layer, x, w, b, dy, **kw)
    ref = norm_ref(layer, x, w, b, dy, kw.get("eps", 1e-5))
    wdt = (w if w is not None else x).dtype
    rows = x.shape[0]
    for k, (a, e) in enumerate(zip(got, ref)):
        if a is None or e is None:
            continue
        dtype = (
            (torch.float64 if x.dtype == torch.float64 else torch.float32)
            if k in (1, 2)
            else (wdt if k >= 4 else x.dtype)
        )
        close(a, e, dtype, scale=max(1.0, math.sqrt(rows)) if k >= 4 else 2.0)


NORM_CASES = [
    ((6, 64), torch.float32, torch.float32),
    ((5, 1000), torch.bfloat16, torch.bfloat16),
    ((5, 256), torch.bfloat16, torch.float32),
    ((3, 1023), torch.float16, torch.float16),
    ((4, 96), torch.float64, torch.float64),
    ((2, 9000), torch.float32, torch.float32),
]


@pytest.mark.parametrize("shape,dtype,wdtype", NORM_CASES)
@pytest.mark.parametrize("layer", [True, False])
def test_norm_forward_backward(shape, dtype, wdtype, layer):
    x, dy = rand(*shape, dtype=dtype, scale=2.0), rand(*shape, dtype=dtype, seed=1)
    w, b = rand(shape[1], dtype=wdtype, seed=2), rand(shape[1], dtype=wdtype, seed=3)
    check_norm(layer, x, w, b if layer else None, dy)


def test_norm_no_affine_partial_outputs_and_unaligned():
    x, dy = rand(7, 320, scale=2.0), rand(7, 320, seed=1)
    check_norm(True, x, None, None, dy)
    w, b = rand(320, seed=2), rand(320, seed=3)
    check_norm(True, x, w, b, dy, want=(False, True, False))
    check_norm(True, x, w, b, dy, aligned=False)
    check_norm(False, x, w, None, dy, aligned=False)


@accel_only
@pytest.mark.parametrize(
    "shape,dtype,wdtype",
    [
        ((4096, 4096), torch.bfloat16, torch.bfloat16),
        ((512, 4096), torch.bfloat16, torch.float32),
        ((70000, 64), torch.float32, torch.float32),
        ((64, 20000), torch.float32, torch.float32),
    ],
)
@pytest.mark.parametrize("layer", [True, False])
def test_norm_accelerator_sizes(shape, dtype, wdtype, layer):
    x, dy = rand(*shape, dtype=dtype, scale=2.0), rand(*shape, dtype=dtype, seed=1)
    w, b = rand(shape[1], dtype=wdtype, seed=2), rand(shape[1], dtype=wdtype, seed=3)
    check_norm(layer, x, w, b if layer else None, dy)


# ================================================================================================================
# nll_loss


def run_nll(x, target, weight, reduction, ignore_index, gout):
    n, c = x.shape[0], x.shape[1]
    d = x[0, 0].numel()
    dxs, dt, dw = dev(x), dev(target), None if weight is None else dev(weight)
    out = dev(torch.zeros((n,) + tuple(x.shape[2:]) if reduction == 0 else (), dtype=x.dtype))
    tw = dev(torch.zeros((), dtype=x.dtype))
    a = NllLossArgs()
    a.backward, a.reduction, a.n, a.c, a.d, a.ignore_index = 0, reduction, n, c, d, ignore_index
    a.dtype, a.target_dtype = DT[x.dtype], DT[target.dtype]
    a.out, a.total_weight, a.x, a.target, a.weight = ptr(out), ptr(tw), ptr(dxs), ptr(dt), ptr(dw)
    call("NllLoss", a, out, tw, dxs, dt, dw)
    gin = dev(torch.full(x.shape, 7.0, dtype=x.dtype))  # (written whole: zeros but at the targets)
    dg = dev(gout)
    a = NllLossArgs()
    a.backward, a.reduction, a.n, a.c, a.d, a.ignore_index = 1, reduction, n, c, d, ignore_index
    a.dtype, a.target_dtype = DT[x.dtype], DT[target.dtype]
    a.out, a.x, a.target, a.weight, a.total_weight_in = ptr(gin), ptr(dg), ptr(dt), ptr(dw), ptr(tw)
    call("NllLoss", a, gin, dg, dt, dw, tw)
    return out, tw, gin


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("spatial", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, dtype, spatial, weighted):
    shape = (6, 5, 3, 4) if spatial else (9, 11)
    x = torch.log_softmax(rand(*shape, scale=2.0), 1).to(dtype)
    g = torch.Generator().manual_seed(3)
    tshape = (shape[0],) + shape[2:]
    target = torch.randint(0, shape[1], tshape, generator=g)
    target.view(-1)[::4] = -3  # ignore_index
    weight = (torch.rand(shape[1], generator=g) + 0.5).to(dtype) if weighted else None
    gout = rand(*tshape, dtype=dtype, seed=4) if reduction == 0 else torch.tensor(1.5, dtype=dtype)
    out, tw, gin = run_nll(x, target.to(torch.int32) if spatial else target, weight, reduction, -3, gout)
    xd = x.double().requires_grad_()
    red = ["none", "mean", "sum"][reduction]
    ref = F.nll_loss(xd, target, None if weight is None else weight.double(), ignore_index=-3, reduction=red)
    (gref,) = torch.autograd.grad(ref, xd, gout.double())
    close(out, ref.detach(), dtype)
    close(gin, gref, dtype)
    if reduction != 0:
        kept = target != -3
        want = weight.double()[target[kept]].sum() if weighted else kept.sum().double()
        close(tw, want, dtype)


def test_nll_loss_bad_target_is_reported_at_sync():
    x, target = dev(torch.zeros(3, 4)), dev(torch.tensor([0, 9, 1]))
    out, tw = dev(torch.zeros(())), dev(torch.zeros(()))
    a = NllLossArgs()
    a.backward, a.reduction, a.n, a.c, a.d, a.ignore_index = 0, 2, 3, 4, 1, -100
    a.dtype, a.target_dtype = DT[torch.float32], DT[torch.int64]
    a.out, a.total_weight, a.x, a.target = ptr(out), ptr(tw), ptr(x), ptr(target)
    h = handle()
    I.check(sync())
    status = L.infiniopNllLoss(h, byref(a), None)
    if status == NOT_IMPLEMENTED:
        pytest.skip("no nll_loss family")
    if status == 0:  # queued: the error surfaces at the synchronization
        status = sync()
    assert status == 3, I.status_name(status)
    assert re.search(r"out of range|out of bounds", I.last_error()), I.last_error()
    I.check(sync())  # (taken: the device is clean again)


@accel_only
def test_nll_loss_accelerator_sizes():
    n, c = 512, 128256
    x = torch.log_softmax(rand(n, c), 1)
    target = torch.randint(0, c, (n,), generator=torch.Generator().manual_seed(5))
    out, tw, gin = run_nll(x, target, None, 1, -100, torch.tensor(1.0))
    xd = x.double().requires_grad_()
    ref = F.nll_loss(xd, target)
    close(out, ref.detach(), torch.float32)
    close(gin, torch.autograd.grad(ref, xd)[0], torch.float32)


# ================================================================================================================
# sdpa


def sdpa_ref(q, k, v, mask, causal, scale):
    """(out, lse) in float64, the family's causal form (key j <= i + lk - lq); a row with no key: 0 and -inf."""
    qd, kd, vd = q.double(), k.double(), v.double()
    group = q.shape[1] // k.shape[1]
    kd, vd = kd.repeat_interleave(group, 1), vd.repeat_interleave(group, 1)
    s = qd @ kd.transpose(-1, -2) * scale
    lq, lk = q.shape[2], k.shape[2]
    if causal:
        s = s.masked_fill(~torch.ones(lq, lk, dtype=torch.bool).tril(lk - lq), float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask.double()
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
    return p @ vd, lse


def run_sdpa(q, k, v, mask=None, causal=False, scale=None, dout=None):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    a = SdpaArgs()
    a.causal, a.scale, a.dtype = int(causal), scale, DT[q.dtype]
    a.mask_dtype = DT[mask.dtype] if mask is not None else 0
    dq_, dk_, dv_ = dev(q), dev(k), dev(v)
    dm = None if mask is None else dev(mask)
    out = dev(torch.zeros(q.shape, dtype=q.dtype))
    lse = dev(torch.zeros(q.shape[:3]))
    a.q, a.k, a.v, a.mask, a.out, a.lse = (tensor_of(t) for t in (dq_, dk_, dv_, dm, out, lse))
    call("Sdpa", a, dq_, dk_, dv_, dm, out, lse)
    if dout is None:
        return out, lse
    g = dev(dout)
    gq, gk, gv = (dev(torch.zeros(t.shape, dtype=t.dtype)) for t in (q, k, v))
    b = SdpaArgs()
    b.backward, b.causal, b.scale, b.dtype, b.mask_dtype = 1, int(causal), scale, DT[q.dtype], a.mask_dtype
    b.q, b.k, b.v, b.mask, b.out, b.lse = a.q, a.k, a.v, a.mask, a.out, a.lse
    b.dout, b.dq, b.dk, b.dv = (tensor_of(t) for t in (g, gq, gk, gv))
    call("Sdpa", b, dq_, dk_, dv_, dm, out, lse, g, gq, gk, gv)
    return out, lse, gq, gk, gv


def check_sdpa(b, hq, hk, lq, lk, d, dtype, mask_kind=None, causal=False, backward=True, view=None):
    q, k, v = (
        rand(b, hq, lq, d, dtype=dtype),
        rand(b, hk, lk, d, dtype=dtype, seed=1),
        rand(b, hk, lk, d, dtype=dtype, seed=2),
    )
    if view is not None:
        q, k, v = (view(t) for t in (q, k, v))
    mask = None
    if mask_kind == "bool":
        mask = torch.rand(b, 1, lq, lk, generator=torch.Generator().manual_seed(4)) > 0.3
    elif mask_kind == "additive":
        mask = rand(1, hq, lq, lk, dtype=dtype, seed=5)
    dout = rand(b, hq, lq, d, dtype=dtype, seed=3) if backward else None
    got = run_sdpa(q, k, v, mask, causal, dout=dout)
    scale = 1 / math.sqrt(d)
    qd, kd, vd = (t.double().requires_grad_() for t in (q, k, v))
    out, lse = sdpa_ref(qd, kd, vd, mask, causal, scale)
    close(got[0], out.detach(), dtype)
    finite = torch.isfinite(lse)
    assert torch.equal(torch.isfinite(got[1].cpu()), finite)
    close(got[1].cpu()[finite], lse.detach()[finite], torch.float32 if dtype == torch.float32 else dtype)
    if backward:
        grads = torch.autograd.grad(out, (qd, kd, vd), dout.double())
        for a, e in zip(got[2:], grads):
            close(a, e, dtype, scale=max(1.0, e.abs().max().item()))


SDPA_CASES = [
    # b, hq, hk, lq, lk, d, dtype, mask, causal
    (1, 2, 2, 8, 8, 16, torch.float32, None, False),
    (2, 4, 2, 17, 33, 64, torch.float32, "bool", False),
    (1, 2, 1, 20, 20, 80, torch.bfloat16, "additive", True),
    (2, 2, 2, 24, 40, 128, torch.float16, None, True),  # causal with lq < lk
    (1, 2, 2, 40, 24, 32, torch.float32, None, True),  # lq > lk: the first rows see no key
]


@pytest.mark.parametrize("case", SDPA_CASES)
def test_sdpa(case):
    check_sdpa(*case)


def test_sdpa_strided_batch_seq_heads_layout():
    check_sdpa(
        2, 4, 4, 20, 20, 64, torch.float32, causal=True, view=lambda t: t.transpose(1, 2).contiguous().transpose(1, 2)
    )


@accel_only
@pytest.mark.parametrize("b,hq,hk,s,d", [(2, 8, 8, 256, 128), (1, 32, 8, 512, 128), (2, 4, 4, 100, 64)])
@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
def test_sdpa_tiled_kernel_forward(b, hq, hk, s, d, layout):
    view = (lambda t: t.transpose(1, 2).contiguous().transpose(1, 2)) if layout == "bshd" else None
    check_sdpa(b, hq, hk, s, s, d, torch.bfloat16, causal=True, backward=b * hq * s <= 2048, view=view)


# the tensor-core backward's calls (fp16 / bf16, head_dim 64 or 128, no mask): grouped heads, lq != lk, odd lengths,
# [b, s, h, d] storage
MMA_BACKWARD = [
    (1, 8, 2, 64, 96, 128, torch.bfloat16, None, False),
    (2, 4, 4, 130, 130, 64, torch.float16, None, True),
    (1, 4, 2, 33, 77, 128, torch.bfloat16, None, True),
    (2, 2, 2, 70, 50, 64, torch.bfloat16, None, True),  # lq > lk: rows that see no key
]


@pytest.mark.parametrize("case", MMA_BACKWARD)
def test_sdpa_half_backward(case):
    check_sdpa(*case)


def test_sdpa_half_backward_bshd_layout():
    check_sdpa(
        2, 4, 2, 40, 40, 128, torch.bfloat16, causal=True, view=lambda t: t.transpose(1, 2).contiguous().transpose(1, 2)
    )


@accel_only
def test_sdpa_blocked_head_dim_256():
    check_sdpa(1, 2, 1, 70, 90, 256, torch.float32, mask_kind="bool")


# ================================================================================================================
# window


def run_window(
    op: str,
    x,
    n,
    c,
    h,
    w,
    oh,
    ow,
    out_shape,
    k=(1, 1),
    s=(1, 1),
    p=(0, 0),
    d=(1, 1),
    indices=None,
    with_indices=False,
    count_include_pad=1,
    divisor=0,
    align=0,
    scale=(0.0, 0.0),
):
    a = WindowArgs()
    a.op, a.dtype = E["INFINIOP_WINDOW_" + op], DT[x.dtype]
    a.n, a.c, a.h, a.w, a.oh, a.ow = n, c, h, w, oh, ow
    (a.kh, a.kw), (a.sh, a.sw), (a.ph, a.pw), (a.dh, a.dw) = k, s, p, d
    a.count_include_pad, a.divisor_override, a.align_corners = count_include_pad, divisor, align
    a.scale_h, a.scale_w = scale
    dx = dev(x)
    out = dev(torch.full(out_shape, 7.0, dtype=x.dtype))
    idx = (
        dev(torch.zeros(out_shape, dtype=torch.int64)) if with_indices else (None if indices is None else dev(indices))
    )
    a.out, a.indices, a.in_ = ptr(out), ptr(idx), ptr(dx)
    call("Window", a, out, idx, dx)
    return out, idx


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("k,s,p,d", [((3, 3), (1, 1), (1, 1), (1, 1)), ((2, 3), (2, 1), (0, 1), (2, 1))])
def test_im2col_col2im(dtype, k, s, p, d):
    n, c, h, w = 2, 3, 9, 8
    x = rand(n, c, h, w, dtype=dtype)
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols, _ = run_window("IM2COL", x, n, c, h, w, oh, ow, (n, c * k[0] * k[1], oh * ow), k, s, p, d)
    close(cols, F.unfold(x.double(), k, d, p, s), dtype)
    y = rand(n, c * k[0] * k[1], oh * ow, dtype=dtype, seed=1)
    img, _ = run_window("COL2IM", y, n, c, h, w, oh, ow, (n, c, h, w), k, s, p, d)
    close(img, F.fold(y.double(), (h, w), k, d, p, s), dtype, scale=4.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize(
    "k,s,p,d,ceil", [((3, 3), (2, 2), (1, 1), (1, 1), False), ((3, 2), (1, 2), (1, 0), (2, 1), True)]
)
def test_max_pool(dtype, k, s, p, d, ceil):
    n, c, h, w = 2, 3, 11, 10
    x = rand(n, c, h, w, dtype=dtype)
    x[0, 0, 2, 3] = float("nan")
    ref, ref_idx = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    oh, ow = ref.shape[2:]
    out, idx = run_window("MAX_POOL", x, n, c, h, w, oh, ow, ref.shape, k, s, p, d, with_indices=True)
    close(out, ref, dtype)
    assert torch.equal(idx.cpu(), ref_idx)
    xd = x.double().requires_grad_()
    refd = F.max_pool2d(xd, k, s, p, d, ceil_mode=ceil)
    g = rand(*ref.shape, dtype=dtype, seed=2)
    (gref,) = torch.autograd.grad(refd, xd, g.double())
    gin, _ = run_window("MAX_POOL_BWD", g, n, c, h, w, oh, ow, x.shape, k, s, p, d, indices=ref_idx)
    close(gin, gref, dtype, scale=2.0)


@pytest.mark.parametrize("include_pad,divisor,ceil", [(1, 0, False), (0, 0, True), (1, 4, True)])
def test_avg_pool(include_pad, divisor, ceil):
    n, c, h, w = 2, 3, 11, 9
    k, s, p = (3, 3), (2, 2), (1, 1)
    x = rand(n, c, h, w, dtype=torch.float64)
    xd = x.clone().requires_grad_()
    ref = F.avg_pool2d(
        xd, k, s, p, ceil_mode=ceil, count_include_pad=bool(include_pad), divisor_override=divisor or None
    )
    oh, ow = ref.shape[2:]
    out, _ = run_window(
        "AVG_POOL", x, n, c, h, w, oh, ow, ref.shape, k, s, p, count_include_pad=include_pad, divisor=divisor
    )
    close(out, ref.detach(), torch.float64)
    g = rand(*ref.shape, dtype=torch.float64, seed=2)
    (gref,) = torch.autograd.grad(ref, xd, g)
    gin, _ = run_window(
        "AVG_POOL_BWD", g, n, c, h, w, oh, ow, x.shape, k, s, p, count_include_pad=include_pad, divisor=divisor
    )
    close(gin, gref, torch.float64)


@pytest.mark.parametrize("mode", ["NEAREST", "BILINEAR"])
@pytest.mark.parametrize(
    "size,factor,align", [((17, 13), None, 0), ((5, 4), None, 0), (None, 2.0, 0), (None, 1.5, 0), ((12, 7), None, 1)]
)
def test_upsample(mode, size, factor, align):
    if mode == "NEAREST" and align:
        pytest.skip("align_corners is bilinear's")
    n, c, h, w = 2, 3, 6, 5
    x = rand(n, c, h, w)
    xd = x.double().requires_grad_()
    kw = {"align_corners": bool(align)} if mode == "BILINEAR" else {}
    ref = F.interpolate(xd, size=size, scale_factor=factor, mode=mode.lower(), **kw)
    oh, ow = ref.shape[2:]
    scale = (1.0 / factor, 1.0 / factor) if factor else (0.0, 0.0)
    out, _ = run_window("UPSAMPLE_" + mode, x, n, c, h, w, oh, ow, ref.shape, align=align, scale=scale)
    close(out, ref.detach(), torch.float32)
    g = rand(*ref.shape, seed=2)
    (gref,) = torch.autograd.grad(ref, xd, g.double())
    gin, _ = run_window("UPSAMPLE_" + mode + "_BWD", g, n, c, h, w, oh, ow, x.shape, align=align, scale=scale)
    close(gin, gref, torch.float32, scale=4.0)


@pytest.mark.skipif("INFINIOP_WINDOW_ADAPTIVE_AVG_POOL" not in E, reason="families.h has no adaptive pooling op here")
@pytest.mark.parametrize("out_size", [(4, 3), (5, 7), (11, 9), (1, 1)])
def test_adaptive_avg_pool(out_size):
    n, c, h, w = 2, 3, 11, 9
    x = rand(n, c, h, w)
    xd = x.double().requires_grad_()
    ref = F.adaptive_avg_pool2d(xd, out_size)
    out, _ = run_window("ADAPTIVE_AVG_POOL", x, n, c, h, w, *out_size, ref.shape)
    close(out, ref.detach(), torch.float32)
    g = rand(*ref.shape, seed=2)
    (gref,) = torch.autograd.grad(ref, xd, g.double())
    gin, _ = run_window("ADAPTIVE_AVG_POOL_BWD", g, n, c, h, w, *out_size, x.shape)
    close(gin, gref, torch.float32)


@accel_only
def test_window_accelerator_sizes():
    n, c, h, w = 4, 32, 128, 128
    x = rand(n, c, h, w)
    ref, ref_idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    out, idx = run_window(
        "MAX_POOL", x, n, c, h, w, *ref.shape[2:], ref.shape, (3, 3), (2, 2), (1, 1), with_indices=True
    )
    close(out, ref, torch.float32)
    assert torch.equal(idx.cpu(), ref_idx)
    up = F.interpolate(x.double(), scale_factor=2.0, mode="bilinear")
    out, _ = run_window("UPSAMPLE_BILINEAR", x, n, c, h, w, 2 * h, 2 * w, up.shape, scale=(0.5, 0.5))
    close(out, up, torch.float32)
