"""The ``sdpa`` pass of infinicore_torch.fusion: scaled dot-product attention -> ``torch.ops.infini.sdpa``.

Matched: the fused SDPA ops that ``F.scaled_dot_product_attention`` leaves in a post-grad graph, on CPU tensors
``aten._scaled_dot_product_flash_attention_for_cpu``, on CUDA tensors ``_scaled_dot_product_flash_attention``,
``_scaled_dot_product_efficient_attention`` and ``_scaled_dot_product_cudnn_attention``, on infini tensors
``_scaled_dot_product_fused_attention_overrideable``. The node is replaced where only its output is used (inference:
no logsumexp saved for a backward), with no dropout, 4-d q / k / v of one float dtype and device, kv heads dividing
the query heads, a number (or no) scale, a mask that is bool or q's dtype and broadcasts to ``[b, hq, lq, lk]``, and a
causal flag only where q and k have the same length (torch's causal mask is aligned to the top left, the kernel's to
the bottom right: the two agree then). A causal flag together with a mask is left. Under dynamic shapes, lengths that
are equal only at run time (a mask's, k's and v's: a cache's past plus the new tokens, each its own symbol) are taken
where no guard says they differ: the kernel checks them when it runs, as the fused op it replaces does; the causal
flag's equal lengths must be proven.

Hugging Face's ``repeat_kv`` (``k[:, :, None].expand(b, hk, n, l, d).reshape(b, hk * n, l, d)``, and the clone
Inductor puts between) is read through: the kernel takes the kv heads and groups the query heads itself (query head h
reads kv head h // n, as repeat_kv lays them out), and the copy goes away.

Not matched: the math composition (matmul, softmax, matmul) that SDPA becomes where no fused kernel takes the
arguments (dropout, a mask that needs a gradient); it is computed as written.
"""

from __future__ import annotations

import math
import operator

import torch

_aten = torch.ops.aten
_FLOATS = (torch.float32, torch.float16, torch.bfloat16)
_VIEWS = (_aten.view.default, _aten.reshape.default, _aten._unsafe_view.default)


def _sdpa_ops():
    names = (
        "_scaled_dot_product_flash_attention_for_cpu",
        "_scaled_dot_product_fused_attention_overrideable",
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention",
    )
    return tuple(getattr(_aten, n).default for n in names if hasattr(_aten, n))


def _known(cond) -> bool:
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return bool(statically_known_true(cond))


def _tensor(node):
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _bind(node) -> dict:
    """The node's arguments by the names of its op's schema, defaults filled in."""
    out = {}
    for i, a in enumerate(node.target._schema.arguments):
        if not a.kwarg_only and i < len(node.args):
            out[a.name] = node.args[i]
        elif a.name in node.kwargs:
            out[a.name] = node.kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
    return out


def _same_shape(a, b) -> bool:
    return len(a) == len(b) and all(_known(x == y) for x, y in zip(a, b))


def _may_equal(a, b) -> bool:
    """No dim of a is known to differ from b's. Under dynamic shapes k's and v's lengths (each a cache's past plus the
    new tokens) can be two symbols equal only at run time; the kernel checks them then, as the fused op it replaces
    does."""
    return len(a) == len(b) and not any(_known(x != y) for x, y in zip(a, b))


def _kv_heads(node):
    """The [b, hk, l, d] tensor that node repeats to [b, hk * n, l, d] as repeat_kv does, or None."""
    if not isinstance(node, torch.fx.Node) or node.target not in _VIEWS:
        return None
    src = node.args[0]
    if isinstance(src, torch.fx.Node) and src.target is _aten.clone.default:
        src = src.args[0]
    if not isinstance(src, torch.fx.Node) or src.target is not _aten.expand.default:
        return None
    unsq = src.args[0]
    if not isinstance(unsq, torch.fx.Node) or unsq.target is not _aten.unsqueeze.default or unsq.args[1] not in (2, -3):
        return None
    kv, rep, out = _tensor(unsq.args[0]), _tensor(src), _tensor(node)
    if kv is None or rep is None or out is None or kv.dim() != 4 or rep.dim() != 5 or out.dim() != 4:
        return None
    b, hk, l, d = kv.shape
    n = rep.shape[2]
    if not _same_shape(rep.shape, (b, hk, n, l, d)) or not _same_shape(out.shape, (b, hk * n, l, d)):
        return None
    return unsq.args[0]


def _broadcasts(shape, to) -> bool:
    """Whether shape may broadcast to `to`: no dim is known to be neither 1 nor `to`'s. Under dynamic shapes a mask's
    length can be a symbol equal to the keys' only at run time (past + new tokens); the kernel checks it then, as the
    fused op it replaces does."""
    if len(shape) > len(to):
        return False
    return not any(_known(s != 1) and _known(s != t) for s, t in zip(reversed(shape), reversed(to)))


def _plan(node):
    """(q, k, v, mask, causal, scale, output getitem) for infini.sdpa, or None where the kernel cannot take node."""
    getitems = list(node.users)
    if not all(u.target is operator.getitem for u in getitems):
        return None
    outs = [u for u in getitems if u.args[1] == 0]
    if any(u.users for u in getitems if u.args[1] != 0) or len(outs) != 1:
        return None  # an auxiliary output (logsumexp, for a backward) is used, or the output is not
    a = _bind(node)
    qn, kn, vn = a["query"], a["key"], a["value"]
    mn = a.get("attn_mask", a.get("attn_bias"))
    q, k, v, out = _tensor(qn), _tensor(kn), _tensor(vn), _tensor(outs[0])
    if q is None or k is None or v is None or out is None:
        return None
    if not all(t.dim() == 4 and t.dtype == q.dtype and t.device == q.device for t in (k, v, out)):
        return None
    if q.dtype not in _FLOATS or q.layout != torch.strided:
        return None
    dropout, causal, scale = a.get("dropout_p", 0.0), a.get("is_causal", False), a.get("scale")
    if not isinstance(dropout, (int, float)) or dropout != 0 or not isinstance(causal, bool):
        return None
    b, hq, lq, d = q.shape
    if not _may_equal(k.shape, v.shape) or not _may_equal((k.shape[0], k.shape[3]), (b, d)):
        return None
    # repeat_kv read through for both k and v, or for neither
    kr, vr = _kv_heads(kn), _kv_heads(vn)
    if kr is not None and vr is not None and _may_equal(_tensor(kr).shape, _tensor(vr).shape):
        kn, vn, k = kr, vr, _tensor(kr)
    hk, lk = k.shape[1], k.shape[2]
    if not (_known(hk > 0) and _known(hq % hk == 0)):
        return None
    if causal and not _known(lq == lk):
        return None  # torch's top-left causal mask for unequal lengths is not the kernel's
    mask = None
    if mn is not None:
        m = _tensor(mn)
        if causal or m is None or m.device != q.device or m.dtype not in (torch.bool, q.dtype):
            return None
        if not _broadcasts(m.shape, (b, hq, lq, lk)):
            return None
        mask = mn
    if scale is None:
        if not isinstance(d, int) or d <= 0:
            return None
        scale = 1.0 / math.sqrt(d)
    if not isinstance(scale, (int, float)) or isinstance(scale, bool):
        return None
    return qn, kn, vn, mask, causal, float(scale), outs[0]


def _erase_unused(node) -> None:
    """Erases node and the ops above it that it alone used (the repeat_kv chain)."""
    while (
        isinstance(node, torch.fx.Node)
        and node.op == "call_function"
        and not node.users
        and not getattr(node, "_erased", False)
    ):
        above = node.args[0] if node.args else None
        node.graph.erase_node(node)
        node = above


def rewrite(graph, check) -> None:
    """Replaces the SDPA nodes of graph that the kernel takes; check(ok) counts each node and says whether to."""
    targets = _sdpa_ops()
    for node in [n for n in graph.nodes if n.op == "call_function" and n.target in targets]:
        plan = _plan(node)
        vals = [_tensor(n) if n is not None else None for n in plan[:4]] if plan else []
        fake_mode = torch._guards.detect_fake_mode([t for t in vals if t is not None]) if plan else None
        if not check(fake_mode is not None):  # (the graph's values are fake tensors wherever Inductor runs passes)
            continue
        qn, kn, vn, mask, causal, scale, out = plan
        with graph.inserting_before(node):
            new = graph.call_function(torch.ops.infini.sdpa.default, (qn, kn, vn, mask, causal, scale))
        with fake_mode:
            new.meta["val"] = torch.ops.infini.sdpa.default(*vals, causal, scale)
        new.meta["stack_trace"] = node.meta.get("stack_trace")
        out.replace_all_uses_with(new)
        bound = _bind(node)
        for u in list(node.users):
            graph.erase_node(u)
        graph.erase_node(node)
        for n in (bound["key"], bound["value"]):
            if n is not kn and n is not vn:
                _erase_unused(n)
