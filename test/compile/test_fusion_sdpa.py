"""The attention rewrite (infinicore_torch.fusion, pass "sdpa"): the fused SDPA op of a compiled HF Llama / Qwen2 /
Mistral becomes ``torch.ops.infini.sdpa`` over the kv heads (repeat_kv read through), for a plain prefill (causal, no
mask), a padded batch and a sliding window (a 4-d mask), and a decode step over a DynamicCache (one query over past
and new keys); outputs equal the uncompiled model's; the profiler shows ``infini::sdpa``; a training graph, whose
backward needs the logsumexp, is left; the pass switched off leaves the graph alone."""

import pytest
import torch
from torch._inductor.utils import run_and_get_code

import infinicore_torch
from infinicore_torch import fusion

transformers = pytest.importorskip("transformers")
import _hf  # noqa: E402

TOL = {torch.float32: 1e-5, torch.bfloat16: 3e-2}


pytestmark = pytest.mark.usefixtures("fusion_on_infini_and_cpu")


def model_of(arch, device, dtype=torch.float32, layers=1):
    torch.manual_seed(0)
    if arch == "mistral":  # a window shorter than the sequences below
        m = transformers.MistralForCausalLM(
            _hf.config(transformers.MistralConfig, num_hidden_layers=layers, sliding_window=4)
        )
    else:
        m = getattr(_hf, arch)(layers)
    return m.to(dtype).eval().to(device)


def ids_of(device, b=2, s=9, seed=1):
    return torch.randint(0, _hf.VOCAB, (b, s), generator=torch.Generator().manual_seed(seed)).to(device)


def compiled(f, *args, **kwargs):
    with torch.no_grad():
        out, code = run_and_get_code(torch.compile(f, fullgraph=True), *args, **kwargs)
    return out, "\n".join(code)


def profiled_ops(f, *args, **kwargs):
    with torch.no_grad(), torch.profiler.profile() as prof:
        f(*args, **kwargs)
    return {e.name for e in prof.events()}


def sdpa_shapes(f, *args, **kwargs):
    """The input shapes of each infini::sdpa call the profiler records."""
    with torch.no_grad(), torch.profiler.profile(record_shapes=True) as prof:
        f(*args, **kwargs)
    # (an event may be recorded with q's shape alone: those are skipped)
    return [e.input_shapes for e in prof.events() if e.name == "infini::sdpa" and e.input_shapes[1]]


def close(got, want, dtype):
    torch.testing.assert_close(got.float().cpu(), want.float().cpu(), rtol=TOL[dtype], atol=TOL[dtype])


def check_rewritten(code, layers=1):
    assert fusion.counters().get("sdpa") == layers
    assert "sdpa.left" not in fusion.counters()
    assert "torch.ops.infini.sdpa" in code
    # repeat_kv's copies are gone with the fused op: no expand of k / v to the query heads is left
    assert "_scaled_dot_product" not in code


@pytest.mark.parametrize("arch", ["llama", "qwen2", "mistral"])
@pytest.mark.parametrize("device", ["infini", "cpu"])
def test_prefill(arch, device):
    model, ids = model_of(arch, device), ids_of(device)
    with torch.no_grad():
        eager = model(ids).logits
    out, code = compiled(model, ids)
    check_rewritten(code)
    close(out.logits, eager, torch.float32)
    if device == "infini":
        assert infinicore_torch.fallback_stats() == {}


@pytest.mark.parametrize("arch, device", [("llama", "cpu"), ("qwen2", "infini"), ("mistral", "infini")])
def test_padded_batch(arch, device):
    model, ids = model_of(arch, device), ids_of(device)
    mask = torch.ones(ids.shape, dtype=torch.long)
    mask[0, :3] = 0  # left padding
    mask = mask.to(device)
    with torch.no_grad():
        eager = model(ids, attention_mask=mask).logits
    f = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        out, code = run_and_get_code(f, ids, attention_mask=mask)
    check_rewritten("\n".join(code))
    # repeat_kv read through: the kernel gets the two kv heads of the four query heads, and the mask
    q, k, v, m = sdpa_shapes(f, ids, attention_mask=mask)[0][:4]
    assert q == [2, 4, 9, 16] and k == v == [2, 2, 9, 16] and m == [2, 1, 9, 9]
    # the padded positions' logits are whatever each path makes of a query with no key; compare the others
    close(out.logits[:, 3:], eager[:, 3:], torch.float32)
    close(out.logits[1], eager[1], torch.float32)


def prefill_then_decode(model, ids, step):
    """Logits of a prefill of ids and of one decode step of `step` over its DynamicCache."""
    cache = transformers.DynamicCache(config=model.config)
    first = model(ids, past_key_values=cache, use_cache=True).logits
    return first, model(step, past_key_values=cache, use_cache=True).logits


@pytest.mark.parametrize("arch, device", [("llama", "infini"), ("qwen2", "cpu"), ("mistral", "cpu")])
def test_decode_over_a_dynamic_cache(arch, device):
    model, ids = model_of(arch, device), ids_of(device)
    step = ids_of(device, s=1, seed=2)
    with torch.no_grad():
        eager = prefill_then_decode(model, ids, step)
    f = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        got, code = run_and_get_code(prefill_then_decode, f, ids, step)
    code = "\n".join(code)
    # two graphs (the prefill, the step: one query over the past and the new keys), each one attention
    assert fusion.counters().get("sdpa") == 2 and "sdpa.left" not in fusion.counters()
    assert "torch.ops.infini.sdpa" in code
    close(got[0], eager[0], torch.float32)
    close(got[1], eager[1], torch.float32)
    assert "infini::sdpa" in profiled_ops(prefill_then_decode, f, ids, step)


@pytest.mark.parametrize("arch, device", [("llama", "cpu"), ("mistral", "infini")])
def test_decode_steps_under_dynamic_shapes(arch, device):
    if device == "cpu" and torch.__version__ < "2.13":
        pytest.skip(
            "torch 2.11's Inductor C++ kernels for CPU tensors declare no variable for a vectorized index check in "
            "this graph ('tmp2' was not declared); torch 2.13 compiles it"
        )
    # symbolic lengths: the mask's and each cache's (k and v: two symbols) are proven equal only at run time
    model, ids = model_of(arch, device), ids_of(device, s=6)
    keep = torch.ones(2, 9, dtype=torch.long)
    keep[0, :2] = 0
    keep = keep.to(device)
    f = torch.compile(model, fullgraph=True, dynamic=True)
    caches = [transformers.DynamicCache(config=model.config) for _ in range(2)]
    with torch.no_grad():
        for cache in caches:  # the prefill, eager
            model(ids, past_key_values=cache, attention_mask=keep[:, :6])
        for n in range(7, 9):  # two steps of one compiled graph
            step = ids_of(device, s=1, seed=n)
            want = model(step, past_key_values=caches[0], attention_mask=keep[:, :n]).logits
            got = f(step, past_key_values=caches[1], attention_mask=keep[:, :n]).logits
            close(got, want, torch.float32)
    assert fusion.counters().get("sdpa", 0) >= 1 and "sdpa.left" not in fusion.counters()
    step = ids_of(device, s=1, seed=11)
    q, k, v = sdpa_shapes(f, step, past_key_values=caches[1], attention_mask=keep)[0][:3]
    assert q == [2, 4, 1, 16] and k == v == [2, 2, 4 if arch == "mistral" else 9, 16]


@pytest.mark.parametrize("device", ["infini", "cpu"])
def test_the_profiler_shows_the_kernel(device):
    model, ids = model_of("llama", device, layers=2), ids_of(device)
    f = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        f(ids)
    assert fusion.counters() == {"rms_norm": 1, "add_rms_norm": 4, "swiglu": 2, "rope": 4, "sdpa": 2}
    names = profiled_ops(f, ids)
    assert "infini::sdpa" in names
    assert not any("scaled_dot_product" in n for n in names)


def test_bfloat16_on_infini():
    model, ids = model_of("mistral", "infini", torch.bfloat16), ids_of("infini")
    with torch.no_grad():
        eager = model(ids).logits
    out, code = compiled(model, ids)
    check_rewritten(code)
    close(out.logits, eager, torch.bfloat16)


def test_switched_off_leaves_the_graph_alone():
    fusion.disable("sdpa")
    model, ids = model_of("llama", "cpu"), ids_of("cpu")
    with torch.no_grad():
        eager = model(ids).logits
    out, code = compiled(model, ids)
    assert "sdpa" not in fusion.counters() and "sdpa.left" not in fusion.counters()
    assert "torch.ops.infini.sdpa" not in code and "_scaled_dot_product_flash_attention_for_cpu" in code
    close(out.logits, eager, torch.float32)


def test_cpu_tensors_are_left_alone_by_default():
    fusion.enable(devices=("infini",))
    model, ids = model_of("llama", "cpu"), ids_of("cpu")
    _, code = compiled(model, ids)
    assert fusion.counters() == {}
    assert "torch.ops.infini" not in code


def test_a_training_graph_is_left():
    # the forward saves the logsumexp for the backward: the fused op stays
    model = model_of("llama", "infini").train()
    ids = ids_of("infini", b=1, s=8)
    loss = torch.compile(model, fullgraph=True)(ids, labels=ids).loss
    loss.backward()
    assert fusion.counters().get("sdpa", 0) == 0 and fusion.counters().get("sdpa.left", 0) >= 1


def attend(q, k, v, mask=None, causal=False):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)


@pytest.mark.parametrize("device", ["infini", "cpu"])
def test_causal_over_unequal_lengths_is_left(device):
    # torch's is_causal is aligned to the top left; the kernel's to the bottom right
    q = torch.randn(1, 2, 3, 8).to(device)
    k, v = torch.randn(1, 2, 5, 8).to(device), torch.randn(1, 2, 5, 8).to(device)
    out, code = compiled(attend, q, k, v, None, True)
    assert fusion.counters().get("sdpa.left") == 1 and "torch.ops.infini.sdpa" not in code
    close(out, attend(q.cpu(), k.cpu(), v.cpu(), None, True), torch.float32)


@pytest.mark.parametrize("device", ["infini", "cpu"])
def test_a_bool_mask_of_any_broadcast(device):
    q = torch.randn(2, 4, 3, 8).to(device)
    k, v = torch.randn(2, 4, 5, 8).to(device), torch.randn(2, 4, 5, 8).to(device)
    keep = torch.rand(3, 5) > 0.3
    keep[:, 0] = True
    out, code = compiled(attend, q, k, v, keep.to(device))
    assert fusion.counters().get("sdpa") == 1 and "torch.ops.infini.sdpa" in code
    close(out, attend(q.cpu(), k.cpu(), v.cpu(), keep), torch.float32)
