"""The rotary embedding rewrite (infinicore_torch.fusion, pass "rope"): HF's ``x * cos + rotate_half(x) * sin``
becomes ``torch.ops.infini.rope`` "gpt_neox", GPT-J's interleaved pairs become "gpt_j"; outputs equal the uncompiled
model's (or eager PyTorch's); cos / sin the graph cannot prove pair-wise equal, and dtypes the kernel does not take,
are counted as left and computed as written."""

import re

import pytest
import torch
from torch._inductor.utils import run_and_get_code

import infinicore_torch
from infinicore_torch import fusion

transformers = pytest.importorskip("transformers")
import _hf  # noqa: E402

DEVICES = ["infini", "cpu"]


pytestmark = pytest.mark.usefixtures("fusion_on_infini_and_cpu")


def compiled(f, *args, **kwargs):
    with torch.no_grad():
        out, code = run_and_get_code(torch.compile(f, fullgraph=True), *args, **kwargs)
    return getattr(out, "logits", out), "\n".join(code)


def rope_algos(code):
    """The algos of the torch.ops.infini.rope calls in Inductor's output code."""
    calls = [line for line in code.splitlines() if "torch.ops.infini.rope" in line]
    return {a for line in calls for a in ("gpt_neox", "gpt_j") if a in line}


def ids_and_positions(device, b=2, s=9):
    ids = torch.randint(0, _hf.VOCAB, (b, s), generator=torch.Generator().manual_seed(1))
    # each sequence its own spacing (rotary is blind to one shift of all positions): cos / sin differ per batch row
    pos = torch.arange(s) * (torch.arange(b)[:, None] + 1)
    return ids.to(device), pos.to(device)


@pytest.mark.parametrize(
    "arch, device, own_positions",
    [("llama", "infini", False), ("llama", "cpu", True), ("qwen2", "infini", True), ("qwen2", "cpu", False)],
)
def test_hf_rotary_becomes_rope(arch, device, own_positions):
    # own positions: a row of cos / sin per (sequence, token), else one per token shared by the batch
    torch.manual_seed(0)
    model = getattr(_hf, arch)(2).eval().to(device)
    ids, pos = ids_and_positions(device)
    kwargs = {"position_ids": pos} if own_positions else {}
    with torch.no_grad():
        eager = model(ids, **kwargs).logits
    got, code = compiled(model, ids, **kwargs)
    assert fusion.counters()["rope"] == 4  # q and k in each of two layers
    assert "rope.left" not in fusion.counters()
    assert rope_algos(code) == {"gpt_neox"}
    torch.testing.assert_close(got.cpu(), eager.cpu(), rtol=1e-5, atol=1e-5)
    if device == "infini":
        assert infinicore_torch.fallback_stats() == {}


def test_hf_rotary_in_bfloat16():
    torch.manual_seed(0)
    model = _hf.llama(1).to(torch.bfloat16).eval().to("infini")
    ids, pos = ids_and_positions("infini")
    with torch.no_grad():
        eager = model(ids, position_ids=pos).logits
    got, code = compiled(model, ids, position_ids=pos)
    assert fusion.counters()["rope"] == 2
    assert rope_algos(code) == {"gpt_neox"}
    torch.testing.assert_close(got.float().cpu(), eager.float().cpu(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rotary_dim", [8, 16])  # of head_dim 16: the first 8 dims rotated, the rest passed through
def test_gptj_interleaved_rotary_becomes_rope_gpt_j(device, rotary_dim):
    torch.manual_seed(0)
    cfg = transformers.GPTJConfig(
        vocab_size=_hf.VOCAB, n_embd=64, n_layer=1, n_head=4, rotary_dim=rotary_dim, n_positions=64
    )
    model = transformers.GPTJForCausalLM(cfg).eval().to(device)
    ids, _ = ids_and_positions(device)
    with torch.no_grad():
        eager = model(ids).logits
    got, code = compiled(model, ids)
    assert fusion.counters().get("rope") == 2 and "rope.left" not in fusion.counters()  # (and its attention: sdpa)
    assert rope_algos(code) == {"gpt_j"}
    torch.testing.assert_close(got.cpu(), eager.cpu(), rtol=1e-5, atol=1e-5)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def angles(pos, d, first=None, second=None):
    """cos and sin of HF's cat((f, f), -1) (or cat((first(f), second(f)), -1)) for positions pos [..., seq]."""
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2, device=pos.device).float() / d))
    f = pos[..., None].float() * inv
    emb = torch.cat(((first or (lambda t: t))(f), (second or (lambda t: t))(f)), dim=-1)
    return emb.cos(), emb.sin()


def rope_bshd(x, pos):
    # x [batch, seq, heads, d] (unsqueeze_dim=2 in HF's terms), cos / sin written first in each product
    cos, sin = angles(pos, x.shape[-1])
    cos, sin = cos.unsqueeze(2), sin.unsqueeze(2)
    return cos * x + sin * rotate_half(x)


def rope_seq_heads(x, pos):
    # x [seq, heads, d], no batch; one row of angles per position, in x's dtype
    cos, sin = (t.to(x.dtype) for t in angles(pos, x.shape[-1]))
    return x * cos[:, None] + rotate_half(x) * sin[:, None]


def rope_shared_rows(x, pos):
    # x [batch, heads, seq, d]; cos / sin [seq, d], broadcast over batch and heads
    cos, sin = angles(pos, x.shape[-1])
    return rotate_half(x) * sin + x * cos


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "f, x_shape, pos_shape",
    [(rope_bshd, (2, 5, 3, 32), (2, 5)), (rope_seq_heads, (6, 4, 64), (6,)), (rope_shared_rows, (2, 3, 7, 16), (7,))],
)
def test_layouts_and_operand_orders(device, f, x_shape, pos_shape):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(x_shape, generator=g).to(device)
    pos = torch.randint(0, 100, pos_shape, generator=g).to(device)
    got, code = compiled(f, x, pos)
    assert fusion.counters() == {"rope": 1}
    assert rope_algos(code) == {"gpt_neox"}
    torch.testing.assert_close(got.cpu(), f(x.cpu(), pos.cpu()), rtol=1e-5, atol=1e-5)


def rope_unequal_halves(x, pos):
    # cat((f, 2f), -1): the halves differ, which the kernel's one angle per pair cannot express
    cos, sin = angles(pos, x.shape[-1], second=lambda t: 2 * t)
    return x * cos[:, None] + rotate_half(x) * sin[:, None]


def rope_given_tables(x, cos, sin):
    # cos / sin of unknown origin: graph inputs
    return x * cos[:, None] + rotate_half(x) * sin[:, None]


@pytest.mark.parametrize("device", DEVICES)
def test_rotary_the_kernel_cannot_take_is_left_alone(device):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(6, 4, 16, generator=g).to(device)
    pos = torch.arange(6).to(device)
    cos, sin = (torch.randn(6, 16, generator=g).to(device) for _ in range(2))
    x64 = x.double()
    cases = [
        (rope_unequal_halves, (x, pos), rope_unequal_halves(x.cpu(), pos.cpu())),
        (rope_given_tables, (x, cos, sin), rope_given_tables(x.cpu(), cos.cpu(), sin.cpu())),
        (rope_seq_heads, (x64, pos), rope_seq_heads(x64.cpu(), pos.cpu())),  # float64: the kernel lacks it
    ]
    for f, args, want in cases:
        torch._dynamo.reset()
        fusion.reset_counters()
        got, code = compiled(f, *args)
        assert fusion.counters() == {"rope.left": 1}, f.__name__
        assert "torch.ops.infini.rope" not in code
        torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)


def test_the_pass_switches_off_by_name():
    torch.manual_seed(0)
    model = _hf.llama(1).eval().to("infini")
    ids, _ = ids_and_positions("infini")
    with torch.no_grad():
        eager = model(ids).logits
    fusion.disable("rope")
    got, code = compiled(model, ids)
    assert "rope" not in fusion.counters() and "rope.left" not in fusion.counters()
    assert fusion.counters()["swiglu"] == 1  # the other passes still run
    assert "torch.ops.infini.rope" not in code
    torch.testing.assert_close(got.cpu(), eager.cpu(), rtol=1e-5, atol=1e-5)


def test_symbolic_batch_and_seq():
    # batch and seq as symbols, the head dim static (a symbolic head dim is left: its evenness is unknown)
    f = torch.compile(rope_bshd, fullgraph=True)
    g = torch.Generator().manual_seed(4)
    for shape in ((2, 5, 3, 32), (3, 7, 3, 32)):
        x = torch.randn(shape, generator=g).to("infini")
        pos = torch.randint(0, 100, shape[:2], generator=g).to("infini")
        for dim in (0, 1):
            torch._dynamo.mark_dynamic(x, dim)
            torch._dynamo.mark_dynamic(pos, dim)
        fusion.reset_counters()
        got, code = run_and_get_code(f, x, pos)
        torch.testing.assert_close(got.cpu(), rope_bshd(x.cpu(), pos.cpu()), rtol=1e-5, atol=1e-5)
        if code:
            code = "\n".join(code)
            assert re.search(r"\bs\d+\b", code)  # sizes as symbols (s0, s1, ...)
            assert fusion.counters() == {"rope": 1} and rope_algos(code) == {"gpt_neox"}


def test_llama_with_dynamic_true():
    # dynamic=True makes the model's floats (the norms' eps) graph inputs: the norm kernels take eps as a number, so
    # those norms stay unfused; the rotary is still rewritten and the model's output unchanged
    torch.manual_seed(0)
    model = _hf.llama(1).eval().to("infini")
    ids, pos = ids_and_positions("infini")
    with torch.no_grad():
        eager = model(ids, position_ids=pos).logits
        got = torch.compile(model, fullgraph=True, dynamic=True)(ids, position_ids=pos).logits
    torch.testing.assert_close(got.cpu(), eager.cpu(), rtol=1e-5, atol=1e-5)
    assert fusion.counters()["rope"] == 2
