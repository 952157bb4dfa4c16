"""The infini fusion passes: Inductor graph passes that rewrite what models write by hand into torch.ops.infini
kernels, for infini, CUDA and CPU tensors.

- ``rms_norm``: RMSNorm in Hugging Face's form (``x.to(float32)``, ``pow(2).mean(-1, keepdim=True)``, ``rsqrt``,
  back to the input dtype, times the weight) -> ``torch.ops.infini.rms_norm``;
- ``add_rms_norm``: a residual add whose sum is also normalized -> ``torch.ops.infini.add_rms_norm`` (both results);
- ``swiglu``: ``silu(gate) * up`` -> ``torch.ops.infini.swiglu(up, gate)``;
- ``rope``: rotary embedding as Hugging Face writes it, ``x * cos + rotate_half(x) * sin`` with
  ``rotate_half(x) = cat(-x[..., d/2:], x[..., :d/2])`` (Llama, Qwen2, Mistral) -> ``torch.ops.infini.rope`` "gpt_neox",
  and the interleaved-pairs form, ``x * cos + stack((-x[..., 1::2], x[..., 0::2]), -1).flatten(-2) * sin`` (GPT-J)
  -> "gpt_j";
- ``topk_softmax``: mixture-of-experts routing, ``topk(softmax(logits, float32), k)`` with or without the top-k
  weights renormalized to sum 1 (Qwen2-MoE, Mixtral) -> ``torch.ops.infini.topk_softmax``;
- ``sdpa``: the fused scaled dot-product attention ops of an inference graph, with Hugging Face's ``repeat_kv`` of
  k and v read through (grouped-query heads go to the kernel as they are) -> ``torch.ops.infini.sdpa``
  (``_fusion_sdpa.py`` says what it takes and leaves).

The rope kernel rotates each pair by one angle: the rewrite takes it only where the graph itself proves that cos and
sin repeat their values across the pair (built from ``cat((f, f), -1)`` or ``repeat_interleave(f, 2, -1)``, then
elementwise ops and views), takes the first of each pair as the kernel's table row, and leaves cos / sin of unknown origin (a
graph input, say) as they are.

Each rewrite checks dtype (float32, float16, bfloat16, the weight's equal to the input's), shape (a 1-d weight of the
last dim's size) and device, and leaves the subgraph as it is where the kernel cannot take it. Counters
(``counters()``) say what was rewritten and what was left. The passes run on graphs of infini tensors by default and
on CUDA / CPU tensors after ``enable(devices=...)``; ``disable()`` (or ``INFINI_FUSION=0``) switches them off. They run
after Inductor's own post-grad passes; in a training graph, a subgraph whose intermediates backward saves does not
match (the others are rewritten in the forward, whose values they keep; backward is derived from the unfused graph).

Importing this module loads Inductor; ``import infinicore_torch`` does not (the Inductor registration of "infini"
installs the passes when it first compiles for the device).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import os

import torch

PASSES = ("add_rms_norm", "rms_norm", "swiglu", "rope", "topk_softmax", "sdpa")
_FLOATS = (torch.float32, torch.float16, torch.bfloat16)
_SOURCES = ("fusion.py", "_fusion_sdpa.py")  # the files whose code the passes run

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


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _scalar(match, name, ok) -> None:
    """Puts the pattern's scalar `name` into match.kwargs where the matcher left it out (some torch versions match a
    scalar that differs from the traced one without capturing it), taken from the first matched node `ok` accepts
    as (node) -> value or None."""
    if name in match.kwargs:
        return
    for node in match.nodes:
        v = ok(node)
        if v is not None:
            match.kwargs[name] = v
            return


def _mean_plus(node):
    # (mean of squares) + eps
    if node.target not in (_aten.add.Tensor, _aten.add.Scalar) or len(node.args) != 2:
        return None
    base, v = node.args
    return v if getattr(base, "target", None) is _aten.mean.dim and _number(v) else None


def _topk_k(node):
    return node.args[1] if node.target is _aten.topk.default and len(node.args) > 1 else None


def _eps_ok(match) -> bool:
    # the kernels take eps as a number; under dynamic shapes a model's float can be a graph input (a 0-d tensor)
    _scalar(match, "eps", _mean_plus)
    return _number(match.kwargs.get("eps"))


def _rms_check(match) -> bool:
    return _check("rms_norm", _norm_ok(_val(match, "x"), _val(match, "weight")) and _eps_ok(match))


def _add_rms_check(match) -> bool:
    a, b, w = _val(match, "a"), _val(match, "b"), _val(match, "weight")
    return _check("add_rms_norm", _norm_ok(a, w) and _same_float(a, b) and a.shape == b.shape and _eps_ok(match))


def _swiglu_check(match) -> bool:
    g, u = _val(match, "gate"), _val(match, "up")
    return _check("swiglu", _same_float(g, u) and g.shape == u.shape and g.numel() > 0)


def _route_check(match) -> bool:
    _scalar(match, "k", _topk_k)
    x, k = _val(match, "logits"), match.kwargs.get("k")
    ok = _same_float(x) and x.dim() == 2 and isinstance(k, int) and 1 <= k <= x.shape[-1] and x.numel() > 0
    return _check("topk_softmax", ok)


# ---- rotary embedding ------------------------------------------------------------------------------------------------
#
# Matched: add(mul(x, cos), mul(rot(x), sin)) in any operand order, where rot(x) is rotate_half's
# cat([-x[..., h:], x[..., :h]], -1) ("gpt_neox") or GPT-J's reshape(cat([-x[..., 1::2, None], x[..., 0::2, None]], -1))
# ("gpt_j"). The kernel takes x as [batch, seq, heads, d] (or without batch) and one table row of d/2 angles per token.

_aten, _prims = torch.ops.aten, torch.ops.prims
# elementwise ops of one tensor (or of a tensor and numbers): equal inputs give equal outputs
_UNARY = (_aten.cos.default, _aten.sin.default, _aten.neg.default, _aten.clone.default, _aten._to_copy.default)
_UNARY += (_prims.convert_element_type.default,)
_BINARY = (_aten.add.Tensor, _aten.sub.Tensor, _aten.mul.Tensor, _aten.div.Tensor)
_VIEWS = (_aten.view.default, _aten.reshape.default, _aten._unsafe_view.default)


def _known(cond) -> bool:
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return bool(statically_known_true(cond))


def _tensor(node):
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _is_last(dim, ndim) -> bool:
    return isinstance(dim, int) and -ndim <= dim < ndim and dim % ndim == ndim - 1


def _uniform(node, dim: int, depth: int = 0) -> bool:
    """Whether the graph proves node's values equal across dim (negative: counted from the last)."""
    v = _tensor(node)
    if v is None or v.dim() < -dim or depth > 16:
        return False
    if _known(v.shape[dim] == 1):
        return True
    if node.op != "call_function":
        return False
    if node.target in _UNARY:
        return _uniform(node.args[0], dim, depth + 1)
    if node.target is _aten.expand.default:
        src = _tensor(node.args[0])
        k = src.dim() + dim if src is not None else -1
        return src is not None and (k < 0 or _known(src.shape[k] == 1) or _uniform(node.args[0], dim, depth + 1))
    return False


def _repeats(node, kind: str, depth: int = 0) -> bool:
    """Whether the graph proves node's last dim repeats its values across each rotated pair: "gpt_neox":
    v[..., j] == v[..., j + d/2]; "gpt_j": v[..., 2j] == v[..., 2j + 1]. Sound, not complete: False where unsure."""
    v = _tensor(node)
    if v is None or v.dim() == 0 or depth > 32 or node.op != "call_function":
        return False
    n, t, a = v.dim(), node.target, node.args
    src = _tensor(a[0]) if a else None
    if t in _UNARY:
        return _repeats(a[0], kind, depth + 1)
    if t in _BINARY:
        # a number, a 0-d tensor or a last dim of 1 broadcasts one value over the pair
        return all(
            isinstance(o, (int, float, bool))
            or (_tensor(o) is not None and (_tensor(o).dim() == 0 or _known(_tensor(o).shape[-1] == 1)))
            or _repeats(o, kind, depth + 1)
            for o in a[:2]
        )
    if src is None:
        return False
    if t is _aten.unsqueeze.default:
        return not _is_last(a[1], n) and _repeats(a[0], kind, depth + 1)
    if t is _aten.expand.default:
        return (
            src.dim() == 0
            or _known(src.shape[-1] == 1)
            or (_known(src.shape[-1] == v.shape[-1]) and _repeats(a[0], kind, depth + 1))
        )
    if t in (_aten.slice.Tensor, _aten.select.int):
        return not _is_last(a[1] if len(a) > 1 else 0, src.dim()) and _repeats(a[0], kind, depth + 1)
    if t is _aten.index.Tensor:  # advanced indexing of leading dims keeps the last dim last, whole
        return len(a[1]) < src.dim() and _repeats(a[0], kind, depth + 1)
    if t is _aten.permute.default:
        return _is_last(a[1][-1], src.dim()) and _repeats(a[0], kind, depth + 1)
    if t in _VIEWS:
        if _known(src.shape[-1] == v.shape[-1]):  # rows of the same length: each row is a row of the source
            return _repeats(a[0], kind, depth + 1)
        # [..., p, q] -> [..., p * q]: halves when p == 2 and both halves are one tensor; pairs when q == 2, likewise
        if src.dim() != n + 1 or not all(_known(x == y) for x, y in zip(src.shape[:-2], v.shape[:-1])):
            return False
        p, q = src.shape[-2], src.shape[-1]
        if kind == "gpt_neox":
            return _known(p == 2) and _uniform(a[0], -2)
        return _known(q == 2) and _uniform(a[0], -1)
    if t is _aten.cat.default:  # cat((f, f), -1)
        parts, dim = a[0], a[1] if len(a) > 1 else 0
        return kind == "gpt_neox" and _is_last(dim, n) and len(parts) == 2 and parts[0] is parts[1]
    if t is _aten.repeat.default:
        reps = a[1]
        if _known(reps[-1] == 1):
            return _repeats(a[0], kind, depth + 1)
        return kind == "gpt_neox" and len(reps) == n and _known(reps[-1] == 2)
    return False


def _slice_args(node):
    a = node.args
    dim = a[1] if len(a) > 1 else 0
    start = a[2] if len(a) > 2 and a[2] is not None else 0
    end = a[3] if len(a) > 3 and a[3] is not None else 2**63 - 1
    step = a[4] if len(a) > 4 else 1
    return a[0], dim, start, end, step


def _slices_last(node, x, start, step, end=None) -> bool:
    """node is x[..., start:end:step] (end None: to the last element)."""
    v = _tensor(x)
    src, dim, s, e, st = _slice_args(node)
    ends = _known(e >= v.shape[-1]) if end is None else _known(e == end)
    return src is x and _is_last(dim, v.dim()) and _known(s == start) and ends and st == step


def _rope_layout(x, cos, sin):
    """How x's dims map to the kernel's [batch, seq, heads, d]: "bhsd" (HF's q / k after transpose(1, 2)), "bshd", or
    None; cos / sin give one row per (batch, seq) (or per seq, shared by the batch) and broadcast over the heads."""
    if x.dim() not in (3, 4) or cos.dim() > x.dim() or cos.shape != sin.shape:
        return None
    xs = [1] * (4 - x.dim()) + list(x.shape)
    cs = [1] * (4 - cos.dim()) + list(cos.shape)
    if not _known(cs[3] == xs[3]) or not (_known(cs[0] == 1) or _known(cs[0] == xs[0])):
        return None
    if _known(cs[1] == 1) and _known(cs[2] == xs[2]):
        return "bhsd"
    if _known(cs[2] == 1) and _known(cs[1] == xs[1]):
        return "bshd"
    return None


def _rope_check(algo, match) -> bool:
    xn, cn, sn = (match.kwargs.get(k) for k in ("x", "cos", "sin"))
    x, cos, sin = _tensor(xn), _tensor(cn), _tensor(sn)
    out = _tensor(match.output_node())
    if x is None or cos is None or sin is None or out is None or x.dim() == 0:
        return False  # cos / sin are numbers: not a rotary embedding, not counted
    nodes = {n.target: n for n in match.nodes}
    d = x.shape[-1]
    ok = _same_float(x, cos, sin) and _known(d % 2 == 0) and _known(d > 0)
    if ok and algo == "gpt_neox":
        cat = nodes[_aten.cat.default]
        hi, lo = cat.args[0][0].args[0], cat.args[0][1]
        ok = _is_last(cat.args[1], x.dim()) and _slices_last(lo, xn, 0, 1, d // 2) and _slices_last(hi, xn, d // 2, 1)
    elif ok:
        cat = nodes[_aten.cat.default]
        u_odd, u_even = cat.args[0]
        odd, even = u_odd.args[0].args[0], u_even.args[0]
        ok = all(_is_last(n.args[1], x.dim() + 1) for n in (u_odd, u_even, cat))
        ok = ok and _slices_last(odd, xn, 1, 2) and _slices_last(even, xn, 0, 2)
        flat = next(_tensor(n) for n in match.nodes if n.target in _VIEWS)  # [..., d/2, 2] -> x's shape
        ok = ok and flat is not None and flat.shape == x.shape
    layout = _rope_layout(x, cos, sin) if ok else None
    ok = (
        layout is not None
        and x.layout == torch.strided
        and x.numel() > 0
        and out.dtype == x.dtype
        and out.shape == x.shape
        and _repeats(cn, algo)
        and _repeats(sn, algo)
    )
    match.infini_rope = (algo, layout)
    return _check("rope", ok)


def _rope_replace(x, cos, sin, *, algo, layout):
    x4 = x.unsqueeze(0) if x.dim() == 3 else x
    c4 = cos.reshape((1,) * (4 - cos.dim()) + tuple(cos.shape)) if cos.dim() < 4 else cos
    s4 = sin.reshape((1,) * (4 - sin.dim()) + tuple(sin.shape)) if sin.dim() < 4 else sin
    if layout == "bhsd":
        x4, c4, s4 = x4.transpose(1, 2), c4.transpose(1, 2), s4.transpose(1, 2)
    b, s, d = x4.shape[0], x4.shape[1], x4.shape[3]
    half = d // 2
    # the first angle of each pair (_rope_check proved the pair's two equal): one table row per cos / sin row
    pick = (..., slice(0, half)) if algo == "gpt_neox" else (..., slice(0, None, 2))
    ct, st = c4[pick].reshape(-1, half), s4[pick].reshape(-1, half)
    if _known(c4.shape[0] == 1):  # one row per position, shared by the batch
        pos = torch.arange(s, device=x.device).expand(b, s).contiguous()
    else:
        pos = torch.arange(b * s, device=x.device).view(b, s)
    y = torch.ops.infini.rope(x4, pos, st, ct, algo)
    if layout == "bhsd":
        y = y.transpose(1, 2)
    return y.squeeze(0) if x.dim() == 3 else y


def _rope_apply(match, x, cos, sin):
    algo, layout = match.infini_rope
    match.replace_by_example(functools.partial(_rope_replace, algo=algo, layout=layout), [x, cos, sin])


def _rope_patterns():
    """(algo, pattern) for each operand order of the add and the two muls."""
    import itertools

    from torch._inductor.pattern_matcher import CallFunction, Ignored, KeywordArg

    x, cos, sin = KeywordArg("x"), KeywordArg("cos"), KeywordArg("sin")

    def sl(step):
        if step is None:  # x[..., a:b], step 1 left out
            return CallFunction(_aten.slice.Tensor, x, Ignored(), Ignored(), Ignored())
        return CallFunction(_aten.slice.Tensor, x, Ignored(), Ignored(), Ignored(), step)

    rots = [
        ("gpt_neox", CallFunction(_aten.cat.default, [CallFunction(_aten.neg.default, sl(st)), sl(st)], Ignored()))
        for st in (None, 1)
    ]
    pair = [
        CallFunction(_aten.unsqueeze.default, CallFunction(_aten.neg.default, sl(2)), Ignored()),
        CallFunction(_aten.unsqueeze.default, sl(2), Ignored()),
    ]
    rots.append(("gpt_j", CallFunction(list(_VIEWS), CallFunction(_aten.cat.default, pair, Ignored()), Ignored())))
    for (algo, rot), swap_c, swap_s, swap_add in itertools.product(rots, (0, 1), (0, 1), (0, 1)):
        m1 = CallFunction(_aten.mul.Tensor, *((cos, x) if swap_c else (x, cos)))
        m2 = CallFunction(_aten.mul.Tensor, *((sin, rot) if swap_s else (rot, sin)))
        yield algo, CallFunction(_aten.add.Tensor, *((m2, m1) if swap_add else (m1, m2)))


@functools.cache
def _pattern_pass():
    from torch._inductor.pattern_matcher import (
        PatternMatcherPass,
        fwd_only,
        register_graph_pattern,
        register_replacement,
    )

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
    for algo, pattern in _rope_patterns():
        register_graph_pattern(pattern, functools.partial(_rope_check, algo), pass_dict=patterns)(_rope_apply)
    return patterns


def _graph_devices(graph) -> set[str]:
    """The devices of the graph's tensors; a 0-d CPU tensor is a scalar operand (dynamic shapes make a model's floats
    such inputs), which any device's ops take, and names none."""
    devices = set()
    for node in graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and not (val.dim() == 0 and val.device.type == "cpu"):
            devices.add(val.device.type)
    return devices


def _run(graph) -> None:
    if not _state["passes"]:
        return
    devices = _graph_devices(graph)
    if not devices or not devices <= _state["devices"]:
        return
    _pattern_pass().apply(graph)
    if "sdpa" in _state["passes"]:
        from . import _fusion_sdpa

        _fusion_sdpa.rewrite(graph, functools.partial(_check, "sdpa"))
    graph.lint()


@functools.cache
def _pass_class():
    from torch._inductor.custom_graph_pass import CustomGraphPass

    class InfiniFusion(CustomGraphPass):
        def __call__(self, graph):
            _run(graph)

        def uuid(self):
            # the cache key: what the passes would do (the source of the passes, the passes and devices on)
            sources = [open(os.path.join(os.path.dirname(__file__), f), "rb").read() for f in _SOURCES]
            key = (sources, sorted(_state["passes"]), sorted(_state["devices"]))
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
