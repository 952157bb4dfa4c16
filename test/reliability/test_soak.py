"""Soak: long loops keep the caching allocator flat. Allocations of many sizes on two streams (with cross-stream use
through record_stream) and a decode-style loop of the paged-KV engine: after a warm-up, neither the bytes in use nor
the bytes reserved grow, and the segment count stays put."""

import torch

import infinicore_torch  # noqa: F401

DEV = "infini"


def stats():
    torch.infini.synchronize()
    s = torch.infini.memory_stats()
    return torch.infini.memory_allocated(), torch.infini.memory_reserved(), s.get("segment.all.current", 0)


def churn(steps, side, g):
    main = torch.infini.current_stream()
    for i in range(steps):
        n = int(torch.randint(1, 1 << 16, (), generator=g))
        stream = side if i % 2 else main
        with torch.infini.stream(stream):
            a = torch.randn(n, device=DEV)
            b = (a * 2 + 1).sum()
        if i % 3 == 0:  # used on the other stream too: freed only after that stream's work
            other = main if stream is side else side
            a.record_stream(other)
            with torch.infini.stream(other):
                (a + 1).max()
        del a, b
        if i % 20 == 19:  # a step's end (as a training loop's loss.item()): bounds how far the host runs ahead
            torch.infini.synchronize()


def test_allocations_across_streams_stay_flat():
    side = torch.infini.Stream()
    g = torch.Generator().manual_seed(0)
    churn(600, side, g)  # warm-up: the cache takes the segments it needs
    alloc0, reserved0, segments0 = stats()
    churn(1500, side, g)
    alloc1, reserved1, segments1 = stats()
    assert alloc1 == alloc0, (alloc0, alloc1)
    assert reserved1 <= reserved0 and segments1 <= segments0, (reserved0, reserved1, segments0, segments1)


def test_a_long_decode_loop_stays_flat():
    transformers = __import__("pytest").importorskip("transformers")
    from infinicore_torch.llm import LLM, SamplingParams

    torch.manual_seed(0)
    import _hf

    cfg = _hf.config(transformers.LlamaConfig, max_position_embeddings=256)
    engine = LLM(transformers.LlamaForCausalLM(cfg), device=DEV, block_size=8, max_num_seqs=4)
    prompts = [[3, 4, 5], list(range(10, 30)), [7] * 9, [1, 2]]
    params = SamplingParams(max_tokens=120, temperature=0.7, top_p=0.9, seed=0, ignore_eos=True)
    engine.generate(prompt_token_ids=prompts, sampling_params=params)
    first = stats()
    for _ in range(3):
        engine.generate(prompt_token_ids=prompts, sampling_params=params)
    assert stats() == first
