"""Small Hugging Face causal LMs shared by the aten and compile tests (test/ is on the import path through the root
conftest): two layers, hidden 64, GQA 4/2, vocab 128; callers seed before building."""

import transformers

VOCAB = 128


def _config(cls, layers):
    return cls(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
    )


def llama(layers=2):
    return transformers.LlamaForCausalLM(_config(transformers.LlamaConfig, layers))


def qwen2(layers=2):
    return transformers.Qwen2ForCausalLM(_config(transformers.Qwen2Config, layers))
