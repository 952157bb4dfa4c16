"""Small Hugging Face causal LMs shared by the aten, compile, llm and reliability tests (test/ is on the import path
through the root conftest): two layers, hidden 64, GQA 4/2, vocab 128; callers seed before building."""

import transformers

VOCAB = 128
SMALL = dict(
    vocab_size=VOCAB,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=128,
)
# the mixture-of-experts configs' own fields (four experts)
MOE = {
    "qwen2_moe": dict(
        num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=64
    ),
    "mixtral": dict(num_local_experts=4),
}


def config(cls, **changes):
    """cls (a transformers config class) with SMALL's fields, then `changes`."""
    return cls(**{**SMALL, **changes})


def _config(cls, layers):
    return config(cls, num_hidden_layers=layers)


def llama(layers=2):
    return transformers.LlamaForCausalLM(_config(transformers.LlamaConfig, layers))


def qwen2(layers=2):
    return transformers.Qwen2ForCausalLM(_config(transformers.Qwen2Config, layers))
