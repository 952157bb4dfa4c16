"""python -m infinicore_torch.llm: generate with the paged-KV engine (llm.LLM), or measure it.

    python -m infinicore_torch.llm                               # the built-in model, a short bench
    python -m infinicore_torch.llm --model PATH --prompt "Hello"  # streams the continuation
    python -m infinicore_torch.llm --bench --batch 64 --input-len 512 --output-len 128 --preset 1b --device infini --graphs

Without --model the model is a Llama built from a built-in config with random weights (said so in the output):
--preset small (hidden 512, 4 layers; seconds on a CPU) or 1b (hidden 2048, 16 layers, 32 heads, 8 kv heads,
intermediate 5632, vocab 32000: the GPU benchmark's). Its tokens are meaningless; a --prompt is then taken as
bytes (one token a byte).
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

PRESETS = {
    "small": dict(hidden_size=512, intermediate_size=1408, num_hidden_layers=4, num_attention_heads=8,
                  num_key_value_heads=4),
    "1b": dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=16, num_attention_heads=32,
               num_key_value_heads=8),
}  # fmt: skip


def builtin_model(preset: str, dtype, device):
    import transformers

    cfg = transformers.LlamaConfig(vocab_size=32000, max_position_embeddings=4096, **PRESETS[preset])
    torch.manual_seed(0)
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(cfg)
    model = model.to_empty(device=device).to(dtype)
    with torch.no_grad():
        for p in model.parameters():
            torch.nn.init.normal_(p, std=0.02) if p.dim() > 1 else torch.nn.init.ones_(p)
    model.model.rotary_emb = type(model.model.rotary_emb)(config=cfg).to(device)  # (its buffers: not on meta)
    return model


def parse(argv):
    ap = argparse.ArgumentParser(prog="python -m infinicore_torch.llm", description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="a local Hugging Face checkpoint directory (default: the built-in model)")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="small", help="the built-in model's size")
    ap.add_argument("--device", default="infini", help="infini, cuda or cpu (default: infini)")
    ap.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default=None)
    ap.add_argument("--prompt", help="generate from this text and stream the tokens")
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--top-p", type=float, default=1.0)
    ap.add_argument("--top-k", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--bench", action="store_true", help="measure: time to first token, tokens/s, fallbacks")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--input-len", type=int, default=64)
    ap.add_argument("--output-len", type=int, default=32)
    ap.add_argument("--block-size", type=int, default=16)
    ap.add_argument("--graphs", action="store_true", help="replay decode steps from graphs (infini devices)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    args.bench = args.bench or args.prompt is None  # (no prompt: the bench, on the defaults)
    import infinicore_torch
    from infinicore_torch.llm import LLM, SamplingParams

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("no CUDA device here", file=sys.stderr)
        return 2
    on_cpu = args.device == "cpu" or (args.device.startswith("infini") and torch.infini.backend() == "cpu")
    default_dtype = "float32" if on_cpu else "bfloat16"
    dtype = getattr(torch, args.dtype or default_dtype)
    if args.model:
        model = args.model
        print(f"model: {args.model} on {args.device}, {dtype}")
    else:
        model = builtin_model(args.preset, dtype, args.device)
        print(
            f"model: the built-in Llama ({args.preset}: hidden {model.config.hidden_size}, "
            f"{model.config.num_hidden_layers} layers) with random weights, on {args.device}, {dtype}: "
            "its tokens are meaningless"
        )
    want = args.input_len + args.output_len if args.bench else 4096
    engine = LLM(model, device=args.device, dtype=dtype, block_size=args.block_size, graphs=args.graphs,
                 max_num_seqs=max(args.batch, 1), max_model_len=min(want + 1, 4096))  # fmt: skip
    params = SamplingParams(
        max_tokens=args.output_len if args.bench else args.max_tokens,
        temperature=args.temperature,
        top_p=args.top_p,
        top_k=args.top_k,
        seed=args.seed,
        ignore_eos=args.bench,
    )
    infinicore_torch.reset_fallback_stats()
    if args.bench:
        g = torch.Generator().manual_seed(0)
        vocab = engine.embed.num_embeddings
        prompts = torch.randint(0, vocab, (args.batch, args.input_len), generator=g).tolist()
        engine.generate(prompt_token_ids=[p[:8] for p in prompts[:1]], sampling_params=SamplingParams(max_tokens=2))
        t0 = time.perf_counter()
        outs = engine.generate(prompt_token_ids=prompts, sampling_params=params, use_tqdm=True)
        wall = time.perf_counter() - t0
        tokens = sum(len(o.outputs[0].token_ids) for o in outs)
        fell = infinicore_torch.fallback_stats()
        print(
            f"batch {args.batch}, input {args.input_len}, output {args.output_len}: "
            f"time to first token {engine.stats['ttft_s'] * 1e3:.1f} ms, {tokens / wall:.1f} tokens/s "
            f"({tokens} tokens in {wall:.2f} s), preemptions {engine.stats['preemptions']}, "
            f"fallbacks {sum(fell.values())}" + (f" {fell}" if fell else "")
        )
        return 0
    text = args.prompt
    if engine.tokenizer is not None:
        out = engine.generate(
            [text], params, on_token=lambda i, t: print(engine.tokenizer.decode([t]), end="", flush=True)
        )
    else:
        ids = [b % engine.embed.num_embeddings for b in text.encode()]
        out = engine.generate(prompt_token_ids=[ids], sampling_params=params,
                              on_token=lambda i, t: print(t, end=" ", flush=True))  # fmt: skip
    print()
    print(f"({len(out[0].outputs[0].token_ids)} tokens, {out[0].outputs[0].finish_reason})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
