"""The infini fusion passes (infinicore_torch.fusion): hand-written RMSNorm, residual add + RMSNorm and SwiGLU in a
compiled model become torch.ops.infini kernels; the counters say so; outputs equal the uncompiled model's; a subgraph
the kernel cannot take is left alone. The rotary embedding rewrite has its own cases in test_fusion_rope.py."""

import copy
import types

import pytest
import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code

import infinicore_torch
from infinicore_torch import fusion

transformers = pytest.importorskip("transformers")
import _hf  # noqa: E402

DEV = "infini"


@pytest.fixture(autouse=True)
def fresh():
    # a graph served from Inductor's cache is not rewritten again (nor counted): compile each graph anew
    torch._dynamo.reset()
    fusion.reset_counters()
    with inductor_config.patch(fx_graph_cache=False):
        yield
    fusion.enable()
    fusion.enable(devices=("infini",))
    torch._dynamo.reset()


def llama(dtype, layers=2):
    torch.manual_seed(0)
    return _hf.llama(layers).to(dtype).eval()


def compiled_logits(model, ids):
    with torch.no_grad():
        out, code = run_and_get_code(torch.compile(model, fullgraph=True), ids)
    return out.logits, "\n".join(code)


# per decoder layer: its input norm (the first layer's alone: rms_norm; the others after the MLP's residual add),
# the post-attention norm after the attention's residual add, one SwiGLU, rotary on q and on k; then the final norm
# after the last add; and each layer's attention
EXPECTED = {"rms_norm": 1, "add_rms_norm": 4, "swiglu": 2, "rope": 4, "sdpa": 2}


@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
def test_llama_on_infini_runs_the_infini_kernels(dtype, tol):
    model = llama(dtype).to(DEV)
    ids = torch.randint(0, 128, (2, 16), generator=torch.Generator().manual_seed(1)).to(DEV)
    with torch.no_grad():
        eager = model(ids).logits
    got, code = compiled_logits(model, ids)
    assert fusion.counters() == EXPECTED
    for op in ("rms_norm", "add_rms_norm", "swiglu", "rope"):
        assert f"torch.ops.infini.{op}" in code
    torch.testing.assert_close(got.float().cpu(), eager.float().cpu(), rtol=tol, atol=tol)
    assert infinicore_torch.fallback_stats() == {}


def test_cpu_tensors_after_enabling_the_device():
    fusion.enable(devices=("infini", "cpu"))
    model = llama(torch.float32)
    ids = torch.randint(0, 128, (2, 16), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        eager = model(ids).logits
    got, code = compiled_logits(model, ids)
    assert fusion.counters() == EXPECTED
    assert "torch.ops.infini.add_rms_norm" in code
    torch.testing.assert_close(got, eager, rtol=1e-5, atol=1e-5)


def test_cpu_tensors_are_left_alone_by_default():
    model = llama(torch.float32, layers=1)
    ids = torch.randint(0, 128, (1, 8), generator=torch.Generator().manual_seed(3))
    _, code = compiled_logits(model, ids)
    assert fusion.counters() == {}
    assert "torch.ops.infini" not in code


def rms(x, w, eps=1e-6):
    h = x.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return w * h.to(x.dtype)


def test_a_norm_the_kernel_cannot_take_is_left_alone():
    # a float32 weight over bfloat16 activations: the result is float32, which the kernel does not produce
    x = torch.randn(4, 64, dtype=torch.bfloat16).to(DEV)
    w = torch.randn(64).to(DEV)
    with torch.no_grad():
        got, code = run_and_get_code(torch.compile(rms, fullgraph=True), x, w)
    assert "torch.ops.infini" not in "\n".join(code)
    assert fusion.counters().get("rms_norm", 0) == 0
    assert fusion.counters().get("rms_norm.left", 0) >= 1
    # (Inductor may keep the bfloat16 round trip in float32)
    torch.testing.assert_close(got.cpu(), rms(x.cpu(), w.cpu()), rtol=1.6e-2, atol=1e-2)


def test_eps_is_taken_from_the_graph_and_passes_switch_off():
    x = torch.randn(4, 64).to(DEV)
    w = torch.randn(64).to(DEV)
    f = lambda x, w: rms(x, w, eps=0.25)  # noqa: E731
    got, code = run_and_get_code(torch.compile(f, fullgraph=True), x, w)
    assert fusion.counters() == {"rms_norm": 1}
    torch.testing.assert_close(got.cpu(), rms(x.cpu(), w.cpu(), eps=0.25), rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()
    fusion.reset_counters()
    fusion.disable("rms_norm")
    _, code = run_and_get_code(torch.compile(f, fullgraph=True), x, w)
    assert fusion.counters() == {}
    assert "torch.ops.infini" not in "\n".join(code)


def test_a_training_graph_keeps_its_saved_intermediates():
    model = llama(torch.float32, layers=1).to(DEV).train()
    ref = copy.deepcopy(model)
    ids = torch.randint(0, 128, (1, 8), generator=torch.Generator().manual_seed(4)).to(DEV)
    loss = torch.compile(model, fullgraph=True)(ids, labels=ids).loss
    loss.backward()
    ref_loss = ref(ids, labels=ids).loss
    ref_loss.backward()
    torch.testing.assert_close(loss.cpu(), ref_loss.cpu(), rtol=1e-5, atol=1e-5)
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad.cpu(), q.grad.cpu(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("arch, k, renorm", [("qwen2_moe", 2, True), ("qwen2_moe", 3, False), ("mixtral", 2, True)])
def test_moe_routing_becomes_topk_softmax(arch, k, renorm):
    torch.manual_seed(0)
    if arch == "mixtral":
        cfg = _hf.config(transformers.MixtralConfig, **_hf.MOE["mixtral"], num_experts_per_tok=k)
        model = transformers.MixtralForCausalLM(cfg)
    else:
        moe = {**_hf.MOE["qwen2_moe"], "num_experts_per_tok": k}
        model = transformers.Qwen2MoeForCausalLM(_hf.config(transformers.Qwen2MoeConfig, **moe, norm_topk_prob=renorm))
    model = model.eval().to(DEV)
    ids = torch.randint(0, 128, (2, 9), generator=torch.Generator().manual_seed(1)).to(DEV)
    with torch.no_grad():
        eager = model(ids).logits
    got, code = compiled_logits(model, ids)
    assert fusion.counters().get("topk_softmax") == 2 and "torch.ops.infini.topk_softmax" in code
    torch.testing.assert_close(got.cpu(), eager.cpu(), rtol=1e-5, atol=1e-5)


def test_a_scalar_the_matcher_left_out_is_read_from_the_matched_nodes():
    # some torch versions match a pattern whose scalar differs from the traced one without putting it in the kwargs
    g = torch.fx.Graph()
    x = g.placeholder("x")
    mean = g.call_function(torch.ops.aten.mean.dim, (x, [-1], True))
    plus = g.call_function(torch.ops.aten.add.Tensor, (mean, 0.25))
    top = g.call_function(torch.ops.aten.topk.default, (x, 3))
    match = types.SimpleNamespace(kwargs={}, nodes=[x, mean, plus, top])
    assert fusion._eps_ok(match) and match.kwargs["eps"] == 0.25
    fusion._scalar(match, "k", fusion._topk_k)
    assert match.kwargs["k"] == 3
    kept = types.SimpleNamespace(kwargs={"eps": 1e-6}, nodes=[mean, plus])
    assert fusion._eps_ok(kept) and kept.kwargs["eps"] == 1e-6
    symbolic = types.SimpleNamespace(kwargs={}, nodes=[x, mean])  # nothing to read: the norm is left
    assert not fusion._eps_ok(symbolic)
