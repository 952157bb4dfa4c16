"""Hostile inputs for every torch.ops.infini operator: each input of a small valid call (the comparison tool's
specs, shrunk) is in turn given another dtype, rank or layout, made 0-d or empty, filled with NaN or with out-of-range
indices, or moved to the other device. The op must either give the result (for a layout change: the unchanged
call's result) or raise an exception that names the op, with its inputs left as they were; never a crash."""

import traceback

import pytest
import torch

import infinicore_torch  # noqa: F401
from infinicore_torch.bench import specs as tool_specs

SPECS = tool_specs.specs()
DEVICES = ["cpu", "infini"]
MUTATIONS = [
    "int32",
    "float64",
    "bool",
    "zero_dim",
    "empty",
    "unsqueeze",
    "flatten",
    "strided",
    "nan",
    "huge_index",
    "negative_index",
    "other_device",
]
ERRORS = (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError)


def small(spec):
    p = min(spec.shapes["decode"], key=lambda p: spec.bytes(p, torch.float32))
    return {k: (min(v, 64) if isinstance(v, int) else v) for k, v in p.items()}


def inputs(spec, device):
    return list(spec.make(small(spec), torch.float32, device, torch.Generator().manual_seed(0)))


def mutate(t, how):
    if how == "int32":
        return t.to(torch.int32) if t.is_floating_point() else t.float()
    if how == "float64":
        return t.double()
    if how == "bool":
        return t != 0
    if how == "zero_dim":
        return t.flatten()[0].clone() if t.numel() else torch.zeros((), dtype=t.dtype, device=t.device)
    if how == "empty":
        return t.narrow(0, 0, 0) if t.dim() else t.reshape(1)[:0]
    if how == "unsqueeze":
        return t.unsqueeze(0)
    if how == "flatten":
        return t.flatten()
    if how == "strided":  # same shape and values, every dim strided
        if t.dim() == 0:
            return None
        big = torch.zeros([2 * s for s in t.shape], dtype=t.dtype, device=t.device)
        view = big[tuple(slice(None, None, 2) for _ in t.shape)]
        view.copy_(t)
        return view
    if how == "nan":
        return torch.full_like(t, float("nan")) if t.is_floating_point() else None
    if how == "huge_index":
        return torch.full_like(t, 10**6) if not t.is_floating_point() and t.dtype != torch.bool else None
    if how == "negative_index":
        return torch.full_like(t, -5) if not t.is_floating_point() and t.dtype != torch.bool else None
    if how == "other_device":
        return t.to("cpu" if t.device.type == "infini" else "infini")
    raise AssertionError(how)


def sync():
    torch.infini.synchronize()


def clones(args):
    return [a.detach().cpu().clone() if isinstance(a, torch.Tensor) else a for a in args]


def same_as_before(args, before):
    for a, b in zip(args, before):
        if isinstance(a, torch.Tensor):
            assert a.shape == b.shape and torch.equal(a.detach().cpu().nan_to_num(7.0), b.nan_to_num(7.0))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("how", MUTATIONS)
@pytest.mark.parametrize("name", sorted(SPECS))
def test_hostile_inputs(name, how, device):
    spec = SPECS[name]
    base = inputs(spec, device)
    want = None
    for i, t in enumerate(base):
        if not isinstance(t, torch.Tensor):
            continue
        m = mutate(t, how)
        if m is None:
            continue
        args = inputs(spec, device)  # fresh: the mutated ops write some inputs
        args[i] = m
        before = clones(args)
        try:
            out = spec.infini(*args)
            sync()
        except ERRORS as e:
            try:
                sync()  # the device is still usable; a data error the kernel found surfaces here at the latest
            except ERRORS as late:
                assert name in str(late), f"input {i} ({how}): the late error does not name {name}: {late}"
            if traceback.extract_tb(e.__traceback__)[-1].filename.endswith("specs.py"):
                continue  # the tool's wrapper read a shape off the changed input before calling the op
            msg = str(e)
            assert name in msg, f"input {i} ({how}): the error does not name {name}: {msg[:300]}"
            if i not in spec.mutates:
                same_as_before(args, before)
            continue
        if how == "strided":
            if want is None:
                want = [o.detach().cpu() for o in spec.outputs(spec.infini(*inputs(spec, device)))]
            got = [o.detach().cpu() for o in spec.outputs(out)]
            for g, w in zip(got, want):
                if spec.exact:
                    assert torch.equal(g, w), f"input {i} strided: the result changed"
                else:
                    torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5, equal_nan=True)
