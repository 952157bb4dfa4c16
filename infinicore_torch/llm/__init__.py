"""infinicore_torch.llm: existing Hugging Face causal LMs on the infini kernels.

- ``patch(model)``: swaps the infini kernels (RMSNorm, residual add + RMSNorm, the gated MLP, rotary embedding, MoE
  routing) into a Llama, Mistral, Qwen2, Qwen3, Qwen2-MoE or Mixtral model in place, keeping its weights and
  ``state_dict`` keys; see ``patch.py``.
"""

from .patch import SUPPORTED, patch

__all__ = ["SUPPORTED", "patch"]
