"""The infini fusion passes: Inductor graph passes that rewrite what models write by hand into torch.ops.infini
kernels, for infini, CUDA and CPU tensors.

- ``rms_norm``: RMSNorm in Hugging Face's form (``x.to(float32)``, ``pow(2).mean(-1, keepdim=True)``, ``rsqrt``,
  back to the input dtype, times the weight) -> ``torch.ops.infini.rms_norm``;
- ``add_rms_norm``: a residual add whose sum is also normalized -> ``torch.ops.infini.add_rms_norm`` (both results);
- ``swiglu``: ``silu(gate) * up`` -> ``torch.ops.infini.swiglu(up, gate)``;
- ``topk_softmax``: mixture-of-experts routing, ``topk(softmax(logits, float32), k)`` with or without the top-k
  weights renormalized to sum 1 (Qwen2-MoE, Mixtral) -> ``torch.ops.infini.topk_softmax``.

Each rewrite checks dtype (float32, float16, bfloat16, the weight's equal to the input's), shape (a 1-d weight of the
last dim's size) and device, and leaves the subgraph as it is where the kernel cannot take it. Counters
(``counters()``) say what was rewritten and what was left. The passes run on graphs of infini tensors by default and
on CUDA / CPU tensors after ``enable(devices=...)``; ``disable()`` (or ``INFINI_FUSION=0``) switches them off. They run
after Inductor's own post-grad passes on inference graphs (a training graph keeps the intermediates for backward and
is left as it is).

Importing this module loads Inductor; ``import infinicore_torch`` does not (the Inductor registration of "infini"
installs the passes when it first compiles for the device).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import os

import torch

PASSES = ("add_rms_norm", "rms_norm", "swiglu", "topk_softmax")
_FLOATS = (torch.float32, torch.float16, torch.bfloat16)

_state = {
    "passes": set(PASSES) if os.environ.get("INFINI_FUSION", "1") != "0" else set(),
    "devices": {"infini"},
}
_counters: collections.Counter = collections.Counter()


def enable(*names: str, devices=None) -> None:
    """Turns the named passes (all when none is named) on, for graphs on `devices` (e.g. ("infini", "cuda"))."""
    for n in names:
        if n not in PASSES:
            raise ValueError(f"infinicore_torch.fusion.enable: no pass {n!r} (passes: {', '.join(PASSES)})")
    _state["passes"] |= set(names or PASSES)
    if devices is not None:
        _state["devices"] = {torch.device(d).type for d in ([devices] if isinstance(devices, str) else devices)}
    install()


def disable(*names: str) -> None:
    """Turns the named passes (all when none is named) off."""
    _state["passes"] -= set(names or PASSES)


def counters() -> dict[str, int]:
    """{"<pass>": rewrites, "<pass>.left": matches left alone (the kernel could not take them)}."""
    return dict(_counters)


def reset_counters() -> None:
    _counters.clear()


# The patterns. Each search function is traced by Inductor's pattern matcher (post-grad aten ops), once per dtype
# that changes its graph (the casts of a float32 input vanish).


def _rms_search(x, weight, eps):
    h = x.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return weight * h.to(x.dtype)


def _rms_replace(x, weight, eps):
    return torch.ops.infini.rms_norm(x, weight, eps)


def _add_rms_search(a, b, weight, eps):
    s = a + b
    h = s.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return weight * h.to(s.dtype), s


def _add_rms_replace(a, b, weight, eps):
    y, s = torch.ops.infini.add_rms_norm(a, b, weight, eps)
    return y, s


def _swiglu_search(gate, up):
    return torch.nn.functional.silu(gate) * up


def _swiglu_replace(gate, up):
    return torch.ops.infini.swiglu(up, gate)


def _route_norm_search(logits, k):
    v, i = torch.topk(torch.softmax(logits, dim=-1, dtype=torch.float32), k, dim=-1)
    return v / v.sum(dim=-1, keepdim=True), i


def _route_norm_replace(logits, k):
    v, i = torch.ops.infini.topk_softmax(logits.to(torch.float32), k, True)
    return v, i


def _route_search(logits, k):
    v, i = torch.topk(torch.softmax(logits, dim=-1, dtype=torch.float32), k, dim=-1)
    return v, i


def _route_replace(logits, k):
    v, i = torch.ops.infini.topk_softmax(logits.to(torch.float32), k, False)
    return v, i


def _val(match, name):
    node = match.kwargs.get(name)
    return getattr(node, "meta", {}).get("val") if node is not None else None


def _same_float(*ts) -> bool:
    return all(isinstance(t, torch.Tensor) for t in ts) and all(
        t.dtype == ts[0].dtype and t.dtype in _FLOATS and t.device == ts[0].device for t in ts
    )


def _check(name, ok: bool) -> bool:
    if name not in _state["passes"]:
        return False
    if not ok:
        _counters[name + ".left"] += 1
        return False
    _counters[name] += 1
    return True


def _norm_ok(x, w) -> bool:
    return _same_float(x, w) and w.dim() == 1 and x.dim() >= 1 and x.shape[-1] == w.shape[0] and x.numel() > 0


def _rms_check(match) -> bool:
    return _check("rms_norm", _norm_ok(_val(match, "x"), _val(match, "weight")))


def _add_rms_check(match) -> bool:
    a, b, w = _val(match, "a"), _val(match, "b"), _val(match, "weight")
    return _check("add_rms_norm", _norm_ok(a, w) and _same_float(a, b) and a.shape == b.shape)


def _swiglu_check(match) -> bool:
    g, u = _val(match, "gate"), _val(match, "up")
    return _check("swiglu", _same_float(g, u) and g.shape == u.shape and g.numel() > 0)


def _route_check(match) -> bool:
    x, k = _val(match, "logits"), match.kwargs.get("k")
    ok = _same_float(x) and x.dim() == 2 and isinstance(k, int) and 1 <= k <= x.shape[-1] and x.numel() > 0
    return _check("topk_softmax", ok)


@functools.cache
def _pattern_pass():
    from torch._inductor.pattern_matcher import PatternMatcherPass, fwd_only, register_replacement

    patterns = PatternMatcherPass(pass_name="infini_fusion")
    eps = {"eps": 1e-6}
    for dtype in _FLOATS:
        x, y = (
            torch.empty(2, 8, dtype=dtype),
            torch.empty(2, 8, dtype=dtype),
        )  # distinct: one tensor traces as one input
        w = torch.empty(8, dtype=dtype)
        # the larger pattern first: a sum that is also normalized becomes one kernel
        register_replacement(
            _add_rms_search, _add_rms_replace, [x, y, w], fwd_only, patterns, _add_rms_check, scalar_workaround=eps
        )
        register_replacement(_rms_search, _rms_replace, [x, w], fwd_only, patterns, _rms_check, scalar_workaround=eps)
        register_replacement(_swiglu_search, _swiglu_replace, [x, y], fwd_only, patterns, _swiglu_check)
    # routing, traced once with float32 logits and once with a cast to float32 (the same pattern for any 16-bit
    # dtype); the renormalized form first (it contains the plain one)
    k = {"k": 2}
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.empty(6, 8, dtype=dtype)
        register_replacement(
            _route_norm_search, _route_norm_replace, [x], fwd_only, patterns, _route_check, scalar_workaround=k
        )
        register_replacement(_route_search, _route_replace, [x], fwd_only, patterns, _route_check, scalar_workaround=k)
    return patterns


def _graph_devices(graph) -> set[str]:
    devices = set()
    for node in graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            devices.add(val.device.type)
    return devices


def _run(graph) -> None:
    if not _state["passes"]:
        return
    devices = _graph_devices(graph)
    if not devices or not devices <= _state["devices"]:
        return
    _pattern_pass().apply(graph)
    graph.lint()


@functools.cache
def _pass_class():
    from torch._inductor.custom_graph_pass import CustomGraphPass

    class InfiniFusion(CustomGraphPass):
        def __call__(self, graph):
            _run(graph)

        def uuid(self):
            # the cache key: what the passes would do (the source of this module, the passes and devices on)
            key = (open(__file__, "rb").read(), sorted(_state["passes"]), sorted(_state["devices"]))
            return hashlib.sha256(repr(key).encode()).hexdigest()

    return InfiniFusion


def install() -> None:
    """Runs the passes after Inductor's post-grad passes (idempotent; keeps a pass the user set, running it first)."""
    import torch._inductor.config as config

    cls = _pass_class()
    current = config.post_grad_custom_post_pass
    if isinstance(current, cls) or getattr(current, "_infini_chain", False):
        return
    if current is None:
        config.post_grad_custom_post_pass = cls()
        return

    class Chained(cls):
        _infini_chain = True

        def __call__(self, graph):
            current(graph)
            _run(graph)

        def uuid(self):
            inner = current.uuid() if hasattr(current, "uuid") else repr(current)
            return hashlib.sha256((super().uuid() + str(inner)).encode()).hexdigest()

    config.post_grad_custom_post_pass = Chained()
