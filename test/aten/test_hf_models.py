"""Hugging Face models on infini, with the CPU fallback forbidden: forward, generate (greedy and sampling) and a
training step (loss, backward, clip_grad_norm_, AdamW foreach and fused) against the same model on the CPU. The
models are built from small configs with fixed seeds; every op they reach must run on the device's own kernels."""

import copy

import pytest
import torch
from aten_utils import DEV

transformers = pytest.importorskip("transformers")
from _hf import MOE, VOCAB, config, llama, qwen2  # noqa: E402


def mistral():
    return transformers.MistralForCausalLM(config(transformers.MistralConfig, sliding_window=6))


def gpt2():
    cfg = transformers.GPT2Config(
        vocab_size=VOCAB,
        n_embd=64,
        n_layer=2,
        n_head=4,
        n_positions=128,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,  # dropout draws differ between devices
    )
    return transformers.GPT2LMHeadModel(cfg)


def moe():
    return transformers.Qwen2MoeForCausalLM(config(transformers.Qwen2MoeConfig, **MOE["qwen2_moe"]))


def t5():
    cfg = transformers.T5Config(
        vocab_size=VOCAB,
        d_model=64,
        d_kv=16,
        d_ff=128,
        num_layers=2,
        num_heads=4,
        decoder_start_token_id=0,
        dropout_rate=0.0,
    )
    return transformers.T5ForConditionalGeneration(cfg)


CAUSAL = {"llama": llama, "qwen2": qwen2, "mistral": mistral, "gpt2": gpt2, "moe": moe}
TOL = dict(rtol=1e-4, atol=1e-4)


def build(make, attn="sdpa"):
    torch.manual_seed(0)
    model = make()
    model.config._attn_implementation = attn
    model.eval()
    return model, copy.deepcopy(model).to(DEV)


def batch(seed=1, b=2, s=12, pad=True):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(3, VOCAB, (b, s), generator=g)
    mask = torch.ones(b, s, dtype=torch.long)
    if pad:
        mask[0, :3] = 0  # left padding, as generate uses
    return ids, mask


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
@pytest.mark.parametrize("name", sorted(CAUSAL))
def test_causal_lm_forward_and_generate(name, attn):
    cpu, dev = build(CAUSAL[name], attn)
    ids, mask = batch()
    with torch.no_grad():
        ref = cpu(input_ids=ids, attention_mask=mask).logits
        got = dev(input_ids=ids.to(DEV), attention_mask=mask.to(DEV)).logits
        torch.testing.assert_close(got.cpu(), ref, **TOL)
        kw = dict(max_new_tokens=6, pad_token_id=0)
        g_ref = cpu.generate(ids, attention_mask=mask, do_sample=False, **kw)
        g_got = dev.generate(ids.to(DEV), attention_mask=mask.to(DEV), do_sample=False, **kw)
        assert torch.equal(g_got.cpu(), g_ref)
        torch.manual_seed(0)
        s = dev.generate(
            ids.to(DEV), attention_mask=mask.to(DEV), do_sample=True, top_k=5, top_p=0.9, temperature=0.7, **kw
        )
        assert s.shape == g_ref.shape and int(s.max()) < VOCAB and int(s.min()) >= 0
        one = dev.generate(ids.to(DEV), attention_mask=mask.to(DEV), do_sample=True, top_k=1, **kw)
        assert torch.equal(one.cpu(), g_ref)  # top-k 1 sampling is greedy
        nucleus = dev.generate(ids.to(DEV), attention_mask=mask.to(DEV), do_sample=True, top_k=0, top_p=1e-9, **kw)
        assert torch.equal(nucleus.cpu(), g_ref)  # top-p alone, so small that only the top token stays


def train_step(model, device, fused):
    model.train()
    ids, mask = batch(seed=2, pad=False)
    ids, mask = ids.to(device), mask.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01, fused=fused, foreach=not fused)
    out = model(input_ids=ids, attention_mask=mask, labels=ids)
    out.loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    grads = [p.grad.detach().cpu().clone() for p in model.parameters()]
    opt.step()
    opt.zero_grad()
    return out.loss.detach().cpu(), norm.detach().cpu(), grads


LR = 1e-3


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("name", sorted(CAUSAL))
def test_causal_lm_training_step(name, fused):
    cpu, dev = build(CAUSAL[name])
    loss_c, norm_c, grads_c = train_step(cpu, "cpu", fused)
    loss_d, norm_d, grads_d = train_step(dev, DEV, fused)
    torch.testing.assert_close(loss_d, loss_c, **TOL)
    torch.testing.assert_close(norm_d, norm_c, rtol=1e-3, atol=1e-4)
    for (n, pc), gc, gd in zip(cpu.named_parameters(), grads_c, grads_d):
        # float32 sums in another order: errors relative to the tensor's largest gradient
        torch.testing.assert_close(gd, gc, rtol=1e-3, atol=1e-5 * gc.abs().max().item() + 1e-9, msg=n)
    for (n, pc), pd in zip(cpu.named_parameters(), dev.parameters()):
        # AdamW's first step moves each weight by about lr * sign(grad): a gradient as small as those rounding errors
        # (|g| ~ eps) may move by any amount up to lr, so a few elements may differ by up to lr
        diff = (pd.detach().cpu() - pc.detach()).abs()
        close = diff <= 1e-5 + 1e-3 * pc.detach().abs()
        assert diff.max().item() <= 2 * LR, n
        assert close.float().mean().item() >= 0.999, n


def test_bert_with_padding_mask():
    torch.manual_seed(0)
    cfg = transformers.BertConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=64,
    )
    cpu = transformers.BertModel(cfg).eval()
    dev = copy.deepcopy(cpu).to(DEV)
    ids, mask = batch(seed=3)
    mask = mask.flip(1)  # right padding
    with torch.no_grad():
        ref = cpu(input_ids=ids, attention_mask=mask)
        got = dev(input_ids=ids.to(DEV), attention_mask=mask.to(DEV))
    torch.testing.assert_close(got.last_hidden_state.cpu(), ref.last_hidden_state, **TOL)
    torch.testing.assert_close(got.pooler_output.cpu(), ref.pooler_output, **TOL)


def test_minilm_sentence_embedding():
    # all-MiniLM-L6-v2's architecture (BERT, 6 layers, hidden 384, 12 heads) with random weights, pooled as
    # sentence-transformers does: the mean over the unmasked tokens, L2-normalized; the real weights need a download
    torch.manual_seed(0)
    cfg = transformers.BertConfig(
        vocab_size=VOCAB,
        hidden_size=384,
        num_hidden_layers=6,
        num_attention_heads=12,
        intermediate_size=1536,
        max_position_embeddings=512,
    )
    cpu = transformers.BertModel(cfg, add_pooling_layer=False).eval()
    dev = copy.deepcopy(cpu).to(DEV)

    def embed(model, ids, mask):
        hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1)

    ids, mask = batch(seed=6)
    mask = mask.flip(1)
    with torch.no_grad():
        ref = embed(cpu, ids, mask)
        got = embed(dev, ids.to(DEV), mask.to(DEV))
    torch.testing.assert_close(got.cpu(), ref, **TOL)
    torch.testing.assert_close((got @ got.T).cpu(), ref @ ref.T, **TOL)


def test_t5_forward_generate_and_train():
    cpu, dev = build(t5)
    ids, mask = batch(seed=4, pad=False)
    labels = batch(seed=5, s=7, pad=False)[0]
    with torch.no_grad():
        ref = cpu(input_ids=ids, attention_mask=mask, labels=labels)
        got = dev(input_ids=ids.to(DEV), attention_mask=mask.to(DEV), labels=labels.to(DEV))
        torch.testing.assert_close(got.logits.cpu(), ref.logits, **TOL)
        g_ref = cpu.generate(ids, attention_mask=mask, max_new_tokens=5, do_sample=False)
        g_got = dev.generate(ids.to(DEV), attention_mask=mask.to(DEV), max_new_tokens=5, do_sample=False)
        assert torch.equal(g_got.cpu(), g_ref)
    for model, d in ((cpu, "cpu"), (dev, DEV)):
        model.train()
        loss = model(input_ids=ids.to(d), attention_mask=mask.to(d), labels=labels.to(d)).loss
        loss.backward()
    for (n, pc), pd in zip(cpu.named_parameters(), dev.parameters()):
        if pc.grad is not None:
            torch.testing.assert_close(pd.grad.cpu(), pc.grad, rtol=1e-3, atol=1e-5, msg=n)


def test_small_cnn_forward_backward():
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.BatchNorm2d(8),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2),
        torch.nn.BatchNorm2d(16),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 10),
    )
    dev = copy.deepcopy(net).to(DEV)
    x = torch.randn(4, 3, 16, 16, generator=torch.Generator().manual_seed(1))
    y = torch.randint(0, 10, (4,), generator=torch.Generator().manual_seed(2))
    for model, d in ((net, "cpu"), (dev, DEV)):
        loss = torch.nn.functional.cross_entropy(model(x.to(d)), y.to(d))
        loss.backward()
        torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9).step()
    for (n, pc), pd in zip(net.named_parameters(), dev.parameters()):
        torch.testing.assert_close(pd.detach().cpu(), pc.detach(), rtol=1e-4, atol=1e-5, msg=n)
    for bc, bd in zip(net.buffers(), dev.buffers()):
        torch.testing.assert_close(bd.cpu(), bc, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "dtype",
    [
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.float64,
        torch.int64,
        torch.int32,
        torch.int8,
        torch.uint8,
        torch.bool,
    ],
)
def test_print_every_dtype(dtype):
    x = (torch.arange(-6, 6).reshape(3, 4) * 1.5).to(dtype)
    # the device suffix may move the dtype to its own line, as on CUDA: compare with whitespace collapsed
    got = " ".join(str(x.to(DEV)).split()).replace(", device='infini:0'", "")
    assert got == " ".join(str(x).split())
