"""``llm.patch(model)``: the infini kernels under a Hugging Face causal LM the user already has.

The module tree, the parameters and the ``state_dict`` keys stay as they are; only forwards change, per module
instance (other instances of the same classes are untouched):

- each RMSNorm: ``torch.ops.infini.rms_norm`` (where x and the weight share a dtype; HF's form otherwise);
- each decoder layer: the residual add after attention and the following RMSNorm as one
  ``torch.ops.infini.add_rms_norm``;
- each gated MLP with SiLU: ``down_proj(torch.ops.infini.swiglu(up, gate))``;
- rotary embedding: ``torch.ops.infini.rope`` ("gpt_neox", halves rotated) on q and k, with the rows of the model's
  own cos / sin (HF builds them as ``cat(freqs, freqs)``, so their halves are equal and half of each row is the
  table row the kernel takes): scaled and extended rotary variants stay exact;
- mixture-of-experts routing (Qwen2-MoE, Mixtral): ``torch.ops.infini.topk_softmax``.

Attention itself stays the model's attention function (on infini tensors ``F.scaled_dot_product_attention`` runs
the project's attention kernels); the paged-KV engine (``llm.LLM``) is where the paged attention kernels take over.
The infini ops run on infini, CUDA (through their CUDA kernels where the package has them) and CPU tensors.
"""

from __future__ import annotations

import inspect
import sys
import threading
from types import MethodType

import torch
import torch.nn.functional as F

# architecture (the model's class name) -> the prefix of its module classes
SUPPORTED = {
    "LlamaForCausalLM": "Llama",
    "LlamaModel": "Llama",
    "MistralForCausalLM": "Mistral",
    "MistralModel": "Mistral",
    "Qwen2ForCausalLM": "Qwen2",
    "Qwen2Model": "Qwen2",
    "Qwen3ForCausalLM": "Qwen3",
    "Qwen3Model": "Qwen3",
    "Qwen2MoeForCausalLM": "Qwen2Moe",
    "Qwen2MoeModel": "Qwen2Moe",
    "MixtralForCausalLM": "Mixtral",
    "MixtralModel": "Mixtral",
}

_rope_scope = threading.local()  # depth of patched attention forwards on this thread


def _rms_forward(self, hidden_states):
    w = self.weight
    if hidden_states.dtype != w.dtype or hidden_states.device != w.device:
        return self._infini_original_forward(hidden_states)  # HF's promotion rules (float32 weights, say)
    return torch.ops.infini.rms_norm(hidden_states, w, float(self.variance_epsilon))


def _mlp_forward(self, x):
    return self.down_proj(torch.ops.infini.swiglu(self.up_proj(x), self.gate_proj(x)))


def _router_forward(self, hidden_states):
    """(router_logits, scores in the logits' dtype, indices), as the HF top-k routers return them."""
    hidden_states = hidden_states.reshape(-1, self.hidden_dim)
    logits = F.linear(hidden_states, self.weight)
    renorm = bool(getattr(self, "norm_topk_prob", True))  # Mixtral always renormalizes
    weights, indices = torch.ops.infini.topk_softmax(logits.float(), int(self.top_k), renorm)
    return logits, weights.to(logits.dtype) if self._infini_scores_in_logits_dtype else weights, indices


def _rope(x, table_rows_cos, table_rows_sin, pos):
    # x [batch, heads, seq, d] (HF's transposed view of a [batch, seq, heads, d] projection)
    return torch.ops.infini.rope(x.transpose(1, 2), pos, table_rows_sin, table_rows_cos, "gpt_neox").transpose(1, 2)


def _make_apply_rotary(original):
    def apply_rotary_pos_emb(q, k, cos, sin, *args, **kwargs):
        unsqueeze_dim = args[0] if args else kwargs.get("unsqueeze_dim", 1)
        if (
            getattr(_rope_scope, "depth", 0) == 0
            or unsqueeze_dim != 1
            or q.dim() != 4
            or cos.dim() != 3
            or q.shape[-1] % 2
            or cos.shape[-1] != q.shape[-1]
            or cos.dtype not in (q.dtype, torch.float32)
            or cos.device != q.device
        ):
            return original(q, k, cos, sin, *args, **kwargs)
        b, _, s, d = q.shape
        half = d // 2
        # the rows of cos / sin for these tokens are the kernel's tables; position ids index them in order
        cos_t = cos[..., :half].reshape(-1, half).contiguous()
        sin_t = sin[..., :half].reshape(-1, half).contiguous()
        if cos_t.shape[0] == s:  # one set of positions for the whole batch
            pos = torch.arange(s, device=q.device).expand(b, s).contiguous()
        else:
            pos = torch.arange(b * s, device=q.device).view(b, s)
        return _rope(q, cos_t, sin_t, pos), _rope(k, cos_t, sin_t, pos)

    apply_rotary_pos_emb._infini_original = original
    return apply_rotary_pos_emb


def _install_rotary(module_name: str) -> bool:
    mod = sys.modules.get(module_name)
    fn = getattr(mod, "apply_rotary_pos_emb", None) if mod is not None else None
    if fn is None:
        return False
    if not hasattr(fn, "_infini_original"):  # once per modeling module; a no-op outside patched attention
        mod.apply_rotary_pos_emb = _make_apply_rotary(fn)
    return True


def _attention_forward(self, *args, **kwargs):
    _rope_scope.depth = getattr(_rope_scope, "depth", 0) + 1
    try:
        return self._infini_original_forward(*args, **kwargs)
    finally:
        _rope_scope.depth -= 1


def _layer_forward(self, hidden_states, *args, **kwargs):
    """The decoder layer with the post-attention residual add and RMSNorm fused; every other argument goes to the
    attention by name, as the layer's own forward passes it (positional ones named from its signature, once)."""
    named = dict(zip(self._infini_arg_names, args))
    named.update(kwargs)
    norm = self.post_attention_layernorm
    residual = hidden_states
    out = self.self_attn(hidden_states=self.input_layernorm(hidden_states), **named)
    attn = out[0] if isinstance(out, tuple) else out
    if attn.dtype == norm.weight.dtype and attn.dtype == residual.dtype:
        normed, hidden_states = torch.ops.infini.add_rms_norm(residual, attn, norm.weight, float(norm.variance_epsilon))
    else:
        hidden_states = residual + attn
        normed = norm(hidden_states)
    mlp = self.mlp(normed)
    mlp = mlp[0] if isinstance(mlp, tuple) else mlp
    return hidden_states + mlp


def _replace(module, forward) -> None:
    if not hasattr(module, "_infini_original_forward"):
        module._infini_original_forward = module.forward
    module.forward = MethodType(forward, module)


def _is_silu(act) -> bool:
    return isinstance(act, torch.nn.SiLU) or type(act).__name__ in ("SiLUActivation", "SiLU")


def patch(model: torch.nn.Module) -> torch.nn.Module:
    """Puts the infini kernels under ``model`` (in place) and returns it. ``model.infini_patched`` counts what was
    replaced. Raises ValueError for an architecture outside ``SUPPORTED``."""
    arch = type(model).__name__
    prefix = SUPPORTED.get(arch)
    if prefix is None:
        raise ValueError(
            f"infinicore_torch.llm.patch: unsupported architecture {arch!r}; supported: {', '.join(sorted(SUPPORTED))}"
        )
    import infinicore_torch  # noqa: F401  (registers torch.ops.infini)

    counts = {"rms_norm": 0, "add_rms_norm": 0, "swiglu": 0, "rope": 0, "topk_softmax": 0}
    for module in model.modules():
        cls = type(module).__name__
        if not cls.startswith(prefix):
            continue
        kind = cls[len(prefix) :]
        if kind == "RMSNorm" and hasattr(module, "variance_epsilon"):
            _replace(module, _rms_forward)
            counts["rms_norm"] += 1
        elif kind == "MLP" and all(hasattr(module, n) for n in ("gate_proj", "up_proj", "down_proj")):
            if _is_silu(getattr(module, "act_fn", None)):
                _replace(module, _mlp_forward)
                counts["swiglu"] += 1
        elif kind == "Attention" and _install_rotary(type(module).__module__):
            _replace(module, _attention_forward)
            counts["rope"] += 1
        elif kind == "TopKRouter" and hasattr(module, "top_k") and hasattr(module, "weight"):
            module._infini_scores_in_logits_dtype = prefix != "Mixtral"  # (Mixtral's router returns float32 scores)
            _replace(module, _router_forward)
            counts["topk_softmax"] += 1
        elif kind == "DecoderLayer" and _fusable_layer(module):
            params = list(inspect.signature(type(module).forward).parameters.values())[2:]  # after self, hidden
            module._infini_arg_names = [p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
            _replace(module, _layer_forward)
            counts["add_rms_norm"] += 1
    model.infini_patched = counts
    return model


def _fusable_layer(layer) -> bool:
    """A layer whose forward returns the hidden states as one tensor (transformers 5's decoder layers) and whose
    norms are RMSNorms (the fused add + norm replaces the second)."""
    needed = ("self_attn", "mlp", "input_layernorm", "post_attention_layernorm")
    if not all(hasattr(layer, n) for n in needed):
        return False
    if not hasattr(layer.post_attention_layernorm, "variance_epsilon"):
        return False
    ret = inspect.signature(type(layer).forward).return_annotation
    return ret is torch.Tensor or ret == "torch.Tensor"
