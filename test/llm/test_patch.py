"""llm.patch: a patched Hugging Face causal LM gives the unpatched model's logits, tokens and gradients, on CPU and
infini tensors, and runs the infini kernels (the profiler's infini:: ops); unknown architectures are refused."""

import pytest
import torch

import infinicore_torch
from infinicore_torch import llm

transformers = pytest.importorskip("transformers")
import _hf  # noqa: E402

ARCHS = {
    "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM, {}),
    "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM, {}),
    "qwen3": (transformers.Qwen3Config, transformers.Qwen3ForCausalLM, {"head_dim": 16}),
    "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM, {"sliding_window": 4}),
    "qwen2_moe": (transformers.Qwen2MoeConfig, transformers.Qwen2MoeForCausalLM, _hf.MOE["qwen2_moe"]),
    "mixtral": (transformers.MixtralConfig, transformers.MixtralForCausalLM, _hf.MOE["mixtral"]),
}
MOE = ("qwen2_moe", "mixtral")


def build(arch, dtype=torch.float32, device="cpu", seed=0):
    cfg_cls, model_cls, extra = ARCHS[arch]
    cfg = _hf.config(cfg_cls, **extra)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(seed)
    return model_cls(cfg).to(dtype=dtype).to(device).eval()


def pair(arch, dtype=torch.float32, device="cpu"):
    ref, got = build(arch, dtype, device), build(arch, dtype, device)
    return ref, llm.patch(got)


def ids_and_mask(device):
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(3, 128, (2, 11), generator=g)
    mask = torch.ones(2, 11, dtype=torch.long)
    mask[1, :4] = 0  # the second prompt is left-padded
    return ids.to(device), mask.to(device)


@pytest.mark.parametrize("arch", list(ARCHS))
def test_patched_logits_tokens_and_state_dict_equal_the_model(arch):
    ref, got = pair(arch)
    assert list(ref.state_dict()) == list(got.state_dict())
    counts = got.infini_patched
    assert counts["rms_norm"] >= 5 and counts["add_rms_norm"] == 2 and counts["rope"] == 2
    assert counts["topk_softmax"] == (2 if arch in MOE else 0)
    assert counts["swiglu"] >= (0 if arch == "mixtral" else 2)  # (Mixtral's experts are fused 3-d weights)
    ids, mask = ids_and_mask("cpu")
    with torch.no_grad():
        torch.testing.assert_close(got(ids, attention_mask=mask).logits, ref(ids, attention_mask=mask).logits)
        a = got.generate(ids, attention_mask=mask, max_new_tokens=6, do_sample=False, pad_token_id=0)
        b = ref.generate(ids, attention_mask=mask, max_new_tokens=6, do_sample=False, pad_token_id=0)
    assert torch.equal(a, b)


@pytest.mark.parametrize("arch", ["llama", "qwen2_moe"])
def test_patched_model_runs_the_infini_kernels(arch):
    _, got = pair(arch)
    ids, _ = ids_and_mask("cpu")
    with torch.no_grad(), torch.profiler.profile() as prof:
        got(ids)
    names = {e.key for e in prof.key_averages()}
    want = {"infini::rms_norm", "infini::add_rms_norm", "infini::rope"}
    want |= {"infini::topk_softmax"} if arch in MOE else {"infini::swiglu"}
    assert want <= names, sorted(n for n in names if n.startswith("infini::"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("arch", ["llama", "qwen3", "mixtral"])
def test_patched_model_on_infini_tensors(arch, dtype, monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    ref, got = pair(arch, dtype, "infini")
    ids, mask = ids_and_mask("infini")
    with torch.no_grad():
        a, b = got(ids, attention_mask=mask).logits, ref(ids, attention_mask=mask).logits
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=5e-2, atol=5e-2)
    torch.testing.assert_close(a.float().cpu(), b.float().cpu(), **tol)
    assert infinicore_torch.fallback_stats() == {}


def test_patched_model_trains_as_the_model():
    ref, got = pair("llama")
    ids, mask = ids_and_mask("cpu")
    for m in (ref, got):
        m.train()
        m(ids, attention_mask=mask, labels=ids).loss.backward()
    for (name, p), q in zip(ref.named_parameters(), got.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-5, msg=name)


def test_unknown_architecture_is_refused():
    cfg = transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=1, n_head=2)
    with pytest.raises(ValueError, match="unsupported architecture 'GPT2LMHeadModel'"):
        llm.patch(transformers.GPT2LMHeadModel(cfg))


def test_unpatched_instances_of_the_same_class_are_untouched():
    ref, got = pair("llama")
    ids, _ = ids_and_mask("cpu")
    with torch.no_grad(), torch.profiler.profile() as prof:
        ref(ids)
    assert not any(e.key.startswith("infini::") for e in prof.key_averages())


def test_a_compiled_patched_model_keeps_the_infini_kernels(monkeypatch):
    """torch.compile(fullgraph=True) of a patched model on infini tensors: no graph break, the infini kernels in the
    generated code (rotary included), the eager logits."""
    import torch._inductor.config as inductor_config
    from torch._inductor.utils import run_and_get_code

    monkeypatch.setenv("INFINI_FALLBACK", "error")
    ref, got = pair("llama", torch.float32, "infini")
    ids, _ = ids_and_mask("infini")
    torch._dynamo.reset()
    with inductor_config.patch(fx_graph_cache=False), torch.no_grad():
        out, code = run_and_get_code(torch.compile(got, fullgraph=True), ids)
        want = ref(ids).logits
    code = "\n".join(code)
    for op in ("rope", "rms_norm", "add_rms_norm", "swiglu"):
        assert f"torch.ops.infini.{op}" in code, op
    torch.testing.assert_close(out.logits.cpu(), want.cpu(), rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()
