"""infinicore_torch.llm: existing Hugging Face causal LMs on the infini kernels.

- ``patch(model)``: swaps the infini kernels (RMSNorm, residual add + RMSNorm, the gated MLP, rotary embedding, MoE
  routing) into a Llama, Mistral, Qwen2, Qwen3, Qwen2-MoE or Mixtral model in place, keeping its weights and
  ``state_dict`` keys; see ``patch.py``.
- ``LLM`` / ``SamplingParams``: offline generation over a paged KV cache with continuous batching and sampling on
  the device, vLLM's offline API in shape; see ``engine.py``.
"""

from .engine import LLM, CompletionOutput, RequestOutput, SamplingParams
from .patch import SUPPORTED, patch

__all__ = ["LLM", "CompletionOutput", "RequestOutput", "SUPPORTED", "SamplingParams", "patch"]
