"""llm.LLM: the paged-KV engine against Hugging Face's own generate (greedy, token for token, uneven prompts in one
batch, from a local checkpoint directory), seeded sampling, preemption, stop tokens, bad input and the CLI."""

import subprocess
import sys

import pytest
import torch

import infinicore_torch
from infinicore_torch.llm import LLM, SamplingParams

transformers = pytest.importorskip("transformers")
import _hf  # noqa: E402

SMALL = {**_hf.SMALL, "eos_token_id": None}
PROMPTS = [[5, 6, 7], list(range(10, 31)), [99] * 7, [1]]
GREEDY = SamplingParams(max_tokens=12, temperature=0)


def model(kind="llama", seed=0):
    torch.manual_seed(seed)
    cls = {
        "llama": transformers.LlamaForCausalLM,
        "qwen2": transformers.Qwen2ForCausalLM,
        "qwen3": transformers.Qwen3ForCausalLM,
        "qwen2_moe": transformers.Qwen2MoeForCausalLM,
    }[kind]
    return cls(cls.config_class(**SMALL, **_hf.MOE.get(kind, {}))).eval()


def hf_greedy(m, prompt, n):
    with torch.no_grad():
        out = m.generate(torch.tensor([prompt]), max_new_tokens=n, do_sample=False, pad_token_id=0)
    return out[0, len(prompt) :].tolist()


def tokens(outs):
    return [o.outputs[0].token_ids for o in outs]


def checkpoint(tmp_path, m, with_tokenizer=False):
    m.save_pretrained(tmp_path)
    if with_tokenizer:
        import tokenizers

        vocab = {f"w{i}": i for i in range(m.config.vocab_size)}
        tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="w0"))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
        tok.decoder = tokenizers.decoders.WordPiece(prefix="##")
        fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="w0")
        fast.save_pretrained(tmp_path)
    return str(tmp_path)


@pytest.mark.parametrize("kind", ["llama", "qwen2", "qwen3", "qwen2_moe"])
def test_uneven_prompts_in_one_batch_equal_hf_greedy(kind, tmp_path):
    m = model(kind)
    path = checkpoint(tmp_path, m)
    engine = LLM(path, device="cpu", dtype=torch.float32, block_size=4)
    outs = engine.generate(prompt_token_ids=PROMPTS, sampling_params=GREEDY)
    assert tokens(outs) == [hf_greedy(m, p, 12) for p in PROMPTS]
    assert all(o.outputs[0].finish_reason == "length" and o.prompt_token_ids == p for o, p in zip(outs, PROMPTS))


def test_engine_on_infini_tensors_equals_cpu(monkeypatch):
    m = transformers.LlamaForCausalLM(transformers.LlamaConfig(**SMALL)).eval()
    want = tokens(LLM(m, device="cpu", block_size=4).generate(prompt_token_ids=PROMPTS, sampling_params=GREEDY))
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    got = tokens(LLM(m, device="infini", block_size=4).generate(prompt_token_ids=PROMPTS, sampling_params=GREEDY))
    assert got == want and infinicore_torch.fallback_stats() == {}


def test_a_run_past_the_cache_preempts_and_completes_every_request():
    m = model()
    want = tokens(LLM(m, block_size=4).generate(prompt_token_ids=PROMPTS, sampling_params=GREEDY))
    tight = LLM(m, block_size=4, num_blocks=10)
    got = tight.generate(prompt_token_ids=PROMPTS, sampling_params=GREEDY)
    assert tight.preemptions > 0 and tokens(got) == want


def test_seeded_sampling_is_reproducible_and_follows_the_seed():
    engine = LLM(model(), block_size=8)
    params = [SamplingParams(max_tokens=10, temperature=0.9, top_p=0.9, top_k=50, seed=s) for s in (1, 1, 2, 3)]
    a = tokens(engine.generate(prompt_token_ids=[PROMPTS[0]] * 4, sampling_params=params))
    b = tokens(engine.generate(prompt_token_ids=[PROMPTS[0]] * 4, sampling_params=params))
    assert a == b and a[0] == a[1] and len({tuple(t) for t in a}) > 1
    top_p_alone = SamplingParams(max_tokens=6, temperature=1.0, top_p=0.5, seed=0)
    assert len(tokens(engine.generate(prompt_token_ids=[PROMPTS[1]], sampling_params=top_p_alone))[0]) == 6


def test_stop_tokens_end_a_request():
    engine = LLM(model(), block_size=8)
    first = tokens(engine.generate(prompt_token_ids=[PROMPTS[1]], sampling_params=GREEDY))[0]
    stop = SamplingParams(max_tokens=12, temperature=0, stop_token_ids=[first[2]])
    out = engine.generate(prompt_token_ids=[PROMPTS[1]], sampling_params=stop)[0].outputs[0]
    assert out.finish_reason == "stop" and out.token_ids == first[: first.index(first[2]) + 1]


def test_text_prompts_through_the_checkpoints_tokenizer(tmp_path):
    m = model()
    engine = LLM(checkpoint(tmp_path, m, with_tokenizer=True), device="cpu", block_size=4)
    out = engine.generate(["w5 w6 w7", "w10 w11"], GREEDY)
    assert out[0].prompt_token_ids == [5, 6, 7] and out[0].outputs[0].token_ids == hf_greedy(m, [5, 6, 7], 12)
    assert out[1].outputs[0].text == " ".join(f"w{t}" for t in out[1].outputs[0].token_ids)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(temperature=-1.0), "temperature must be a finite number >= 0"),
        (dict(temperature=float("nan")), "temperature must be a finite number >= 0"),
        (dict(top_p=0.0), r"top_p must be in \(0, 1\]"),
        (dict(top_k=-2), "top_k must be -1 or 0"),
        (dict(max_tokens=0), "max_tokens must be an integer of at least 1"),
    ],
)
def test_invalid_sampling_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SamplingParams(**kwargs)


def test_bad_requests_get_clear_errors():
    engine = LLM(model(), block_size=4, max_model_len=32)
    with pytest.raises(ValueError, match="prompt 1 is empty"):
        engine.generate(prompt_token_ids=[[1, 2], []], sampling_params=GREEDY)
    with pytest.raises(ValueError, match="prompt 0 has 40 tokens; the context holds 32"):
        engine.generate(prompt_token_ids=[[3] * 40], sampling_params=GREEDY)
    with pytest.raises(ValueError, match=r"token ids outside \[0, 128\)"):
        engine.generate(prompt_token_ids=[[500]], sampling_params=GREEDY)
    with pytest.raises(ValueError, match="text prompts need a tokenizer"):
        engine.generate(["hello"], GREEDY)
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=1, n_head=2))
    with pytest.raises(ValueError, match="unsupported architecture 'GPT2LMHeadModel'"):
        LLM(gpt2)
    # the engine still serves after the refusals
    assert tokens(engine.generate(prompt_token_ids=[[5, 6, 7]], sampling_params=GREEDY))[0]


def test_cli_bench_and_prompt_modes():
    cmd = [sys.executable, "-m", "infinicore_torch.llm", "--batch", "2", "--input-len", "8", "--output-len", "4"]
    bench = subprocess.run(cmd + ["--bench"], capture_output=True, text=True, timeout=300)
    assert bench.returncode == 0, bench.stderr[-2000:]
    assert "random weights" in bench.stdout and "tokens/s" in bench.stdout and "fallbacks 0" in bench.stdout
    gen = subprocess.run(
        cmd + ["--prompt", "hi", "--max-tokens", "3", "--device", "cpu"], capture_output=True, text=True
    )
    assert gen.returncode == 0 and "(3 tokens, length)" in gen.stdout, gen.stderr[-2000:]


def test_decode_graphs_give_the_eager_tokens():
    m = model()
    want = tokens(LLM(m, device="infini", block_size=4).generate(prompt_token_ids=PROMPTS, sampling_params=GREEDY))
    engine = LLM(m, device="infini", block_size=4, graphs=True)
    got = tokens(engine.generate(prompt_token_ids=PROMPTS, sampling_params=GREEDY))
    assert got == want
    assert engine.graph_replays >= 10 and all(g is not None for g in engine._graphs.values())
    with pytest.raises(ValueError, match="graphs=True needs the model on an infini or cuda device"):
        LLM(model(), device="cpu", graphs=True)


@pytest.mark.parametrize(
    "device",
    ["infini", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA"))],
)
def test_decode_graphs_pad_a_batch_to_a_captured_size(device):
    # seven requests of different lengths: decode batches of 7 down to 1 run in the graphs of sizes 7 (max_num_seqs),
    # 4, 2 and 1, the padding rows in a block of their own that no request's cache uses (torch.infini.graph on infini,
    # torch.cuda.graph on cuda)
    m = model()
    prompts = [[3 + i] * (2 + i) for i in range(7)]
    params = [SamplingParams(max_tokens=3 + 2 * i, temperature=0) for i in range(7)]
    want = tokens(LLM(m, device=device, block_size=4).generate(prompt_token_ids=prompts, sampling_params=params))
    engine = LLM(m, device=device, block_size=4, max_num_seqs=7, graphs=True)
    assert engine._graph_sizes == [1, 2, 4, 7]
    got = tokens(engine.generate(prompt_token_ids=prompts, sampling_params=params))
    assert got == want
    assert set(engine._graphs) <= {1, 2, 4, 7} and all(g is not None for g in engine._graphs.values())
    assert engine.graph_replays > 0 and engine.k_cache[0].shape[0] == engine.num_blocks + 1
    # a second run replays the graphs it captured and gives the same tokens
    again = tokens(engine.generate(prompt_token_ids=prompts, sampling_params=params))
    assert again == want
