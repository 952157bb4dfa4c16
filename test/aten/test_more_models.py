"""Breadth: ordinary Hugging Face architectures beyond the issue's list run natively on infini (every aten test runs
with INFINI_FALLBACK=error): decoders with other norms, activations and position schemes, encoders, encoder-decoders,
a state-space model, convolutional and windowed vision models, and speech front ends. Each is built from a tiny config
with a fixed seed; its forward equals the CPU model's and a backward gives the CPU model's gradients."""

import copy

import pytest
import torch

transformers = pytest.importorskip("transformers")
T = transformers

DEV = "infini"


def _ids():
    return {"input_ids": torch.randint(1, 128, (2, 9), generator=torch.Generator().manual_seed(1))}


def _image():
    return {"pixel_values": torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(1))}


def _speech():
    return {"input_values": torch.randn(2, 400, generator=torch.Generator().manual_seed(1))}


def _whisper():
    g = torch.Generator().manual_seed(1)
    return {"input_features": torch.randn(2, 16, 64, generator=g), "decoder_input_ids": torch.randint(0, 128, (2, 5))}


SMALL = dict(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4)
SEQ2SEQ = dict(vocab_size=128, d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
               decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128)  # fmt: skip
MODELS = {
    "gemma": (lambda: T.GemmaForCausalLM(T.GemmaConfig(**SMALL, num_key_value_heads=2, head_dim=16)), _ids),
    "phi3": (lambda: T.Phi3ForCausalLM(T.Phi3Config(**SMALL, num_key_value_heads=2, pad_token_id=0)), _ids),
    "gpt_neox": (lambda: T.GPTNeoXForCausalLM(T.GPTNeoXConfig(**SMALL)), _ids),
    "opt": (
        lambda: T.OPTForCausalLM(
            T.OPTConfig(
                vocab_size=128,
                hidden_size=64,
                ffn_dim=128,
                num_hidden_layers=2,
                num_attention_heads=4,
                word_embed_proj_dim=64,
            )
        ),  # fmt: skip
        _ids,
    ),
    "falcon": (
        lambda: T.FalconForCausalLM(
            T.FalconConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=4)
        ),
        _ids,
    ),  # fmt: skip
    "bloom": (lambda: T.BloomForCausalLM(T.BloomConfig(vocab_size=128, hidden_size=64, n_layer=2, n_head=4)), _ids),
    "mamba": (
        lambda: T.MambaForCausalLM(
            T.MambaConfig(
                vocab_size=128,
                hidden_size=64,
                state_size=8,
                num_hidden_layers=2,
                expand=2,
                conv_kernel=4,
                use_mambapy=False,
            )
        ),  # fmt: skip
        _ids,
    ),
    "roberta": (lambda: T.RobertaForMaskedLM(T.RobertaConfig(**SMALL, max_position_embeddings=64)), _ids),
    "deberta_v2": (lambda: T.DebertaV2ForMaskedLM(T.DebertaV2Config(**SMALL, max_position_embeddings=64)), _ids),
    "xlnet": (
        lambda: T.XLNetLMHeadModel(T.XLNetConfig(vocab_size=128, d_model=64, n_layer=2, n_head=4, d_inner=128)),
        _ids,
    ),  # fmt: skip
    "clip_text": (lambda: T.CLIPTextModel(T.CLIPTextConfig(**SMALL, max_position_embeddings=32)), _ids),
    "bart": (lambda: T.BartForConditionalGeneration(T.BartConfig(**SEQ2SEQ, max_position_embeddings=64)), _ids),
    "whisper": (
        lambda: T.WhisperForConditionalGeneration(
            T.WhisperConfig(
                **SEQ2SEQ,
                num_mel_bins=16,
                max_source_positions=32,
                max_target_positions=32,
                pad_token_id=0,
                decoder_start_token_id=1,
            )
        ),  # fmt: skip
        _whisper,
    ),
    "vit": (
        lambda: T.ViTForImageClassification(
            T.ViTConfig(
                image_size=32,
                patch_size=8,
                hidden_size=64,
                intermediate_size=128,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_labels=3,
            )
        ),
        _image,
    ),  # fmt: skip
    "swin": (
        lambda: T.SwinForImageClassification(
            T.SwinConfig(
                image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4, num_labels=3
            )
        ),
        _image,
    ),  # fmt: skip
    "convnext": (
        lambda: T.ConvNextForImageClassification(
            T.ConvNextConfig(hidden_sizes=[8, 16, 16, 16], depths=[1, 1, 1, 1], num_labels=3)
        ),
        _image,
    ),  # fmt: skip
    "resnet": (
        lambda: T.ResNetForImageClassification(
            T.ResNetConfig(embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], num_labels=3)
        ),
        _image,
    ),  # fmt: skip
    "wav2vec2": (
        lambda: T.Wav2Vec2ForCTC(
            T.Wav2Vec2Config(
                vocab_size=32,
                hidden_size=32,
                num_hidden_layers=1,
                num_attention_heads=2,
                intermediate_size=64,
                conv_dim=(16, 16),
                conv_stride=(5, 2),
                conv_kernel=(10, 3),
                num_conv_pos_embeddings=16,
                num_conv_pos_embedding_groups=4,
            )
        ),  # fmt: skip
        _speech,
    ),
}


def _main(out):
    return out.logits if hasattr(out, "logits") else out.last_hidden_state


@pytest.mark.parametrize("arch", sorted(MODELS))
def test_forward_and_backward_equal_cpu(arch):
    make, inputs = MODELS[arch]
    torch.manual_seed(0)
    cpu = make().eval()  # (eval: no dropout, batch norm from its running statistics on both sides)
    dev = copy.deepcopy(cpu).to(DEV)
    kw = inputs()
    want = _main(cpu(**kw))
    got = _main(dev(**{k: v.to(DEV) for k, v in kw.items()}))
    torch.testing.assert_close(got.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-4)
    want.square().mean().backward()
    got.square().mean().backward()
    for (name, a), (_, b) in zip(dev.named_parameters(), cpu.named_parameters()):
        if b.grad is None:
            assert a.grad is None, name
            continue
        torch.testing.assert_close(a.grad.cpu(), b.grad, rtol=1e-3, atol=1e-4, msg=name)
