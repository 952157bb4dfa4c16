"""The paged-KV engine (infinicore_torch.llm.LLM) against Hugging Face `generate`, same GPU, same process.

    python3 benchmarks/llm_gpu.py [--batches 1,64] [--input-len 512] [--output-len 128] [--csv benchmarks/results/h200.csv]

The model is the CLI's `--preset 1b` Llama (hidden 2048, 16 layers, 32 heads, 8 kv heads, intermediate 5632, vocab
32000, random weights, bf16). For each batch size: HF `generate` on cuda tensors (greedy, exactly output-len new
tokens), and the engine with decode graphs on infini tensors and on cuda tensors; tokens/s is new
tokens over the wall time of the whole request (prefill included), after one warm-up request. A decode step's time is
(wall - time to first token) / (output-len - 1); its bound is the bytes the step reads (every weight but the
embedding table, and the KV cache at the step's mean context) at the GPU's device-to-device copy bandwidth, measured
here as 2 x bytes / time of a 1 GiB copy (a copy reads and writes). Prints a table and merges rows into the CSV.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time

import torch

import infinicore_torch  # noqa: F401
from infinicore_torch.llm import LLM, SamplingParams
from infinicore_torch.llm.__main__ import builtin_model


def sync(dev):
    (torch.infini if dev.startswith("infini") else torch.cuda).synchronize()


def copy_bandwidth(dev) -> float:
    """Bytes a second a device-to-device copy moves (read + write), median of 10."""
    a = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    times = []
    for _ in range(12):
        sync(dev)
        t0 = time.perf_counter()
        b.copy_(a)
        sync(dev)
        times.append(time.perf_counter() - t0)
    return 2 * a.numel() / statistics.median(times[2:])


def step_bytes(model, batch, context) -> int:
    cfg = model.config
    weights = sum(p.numel() * p.element_size() for n, p in model.named_parameters() if "embed_tokens" not in n)
    head_dim = cfg.hidden_size // cfg.num_attention_heads
    kv = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * head_dim * 2 * context * batch
    return weights + kv


def hf_generate(model, prompts, out_len) -> float:
    ids = torch.tensor(prompts, device="cuda")
    kw = dict(max_new_tokens=out_len, min_new_tokens=out_len, do_sample=False, pad_token_id=0)
    with torch.no_grad():
        model.generate(ids[:, :8], **{**kw, "max_new_tokens": 2, "min_new_tokens": 2})
        sync("cuda")
        t0 = time.perf_counter()
        out = model.generate(ids, **kw)
        sync("cuda")
    assert out.shape[1] == ids.shape[1] + out_len
    return time.perf_counter() - t0


def engine_generate(engine, dev, prompts, out_len) -> tuple[float, float]:
    params = SamplingParams(max_tokens=out_len, temperature=0.0, ignore_eos=True)
    engine.generate(prompt_token_ids=[p[:8] for p in prompts], sampling_params=SamplingParams(max_tokens=3))
    engine.generate(prompt_token_ids=prompts, sampling_params=params)  # (captures the batch size's graph)
    sync(dev)
    t0 = time.perf_counter()
    outs = engine.generate(prompt_token_ids=prompts, sampling_params=params)
    sync(dev)
    wall = time.perf_counter() - t0
    assert all(len(o.outputs[0].token_ids) == out_len for o in outs)
    return wall, engine.stats["ttft_s"]


def write_csv(path, rows):
    """Replaces the file's llm: rows by these (the schema of benchmarks/results/*.csv), keeps the rest. op
    llm:generate: median_us the request's wall time, ratio its time over HF's; llm:decode_step: median_us a step,
    ratio its time over the bound."""
    old = []
    if os.path.exists(path):
        with open(path) as f:
            old = [r for r in csv.DictReader(f) if not r.get("op", "").startswith("llm:")]
    fields = list(old[0].keys()) if old else ["op", "set", "shape", "dtype", "impl", "median_us", "best_peer",
                                              "ratio_to_best_peer", "device_name", "torch"]  # fmt: skip
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in old + rows:
            w.writerow(r)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="1,64")
    ap.add_argument("--input-len", type=int, default=512)
    ap.add_argument("--output-len", type=int, default=128)
    ap.add_argument("--csv", help="merge the rows into this CSV")
    args = ap.parse_args()
    dtype, n_in, n_out = torch.bfloat16, args.input_len, args.output_len
    batches = [int(b) for b in args.batches.split(",")]
    bw = copy_bandwidth("cuda")
    print(f"{torch.cuda.get_device_name()}: device-to-device copy {bw / 1e12:.2f} TB/s (read + write)")
    hf = builtin_model("1b", dtype, "cuda").eval()
    engines = {
        "infini (graphs)": ("infini", dict(graphs=True)),
        "cuda (graphs)": ("cuda", dict(graphs=True)),
    }
    rows, table = [], []
    g = torch.Generator().manual_seed(0)
    for batch in batches:
        prompts = torch.randint(0, 32000, (batch, n_in), generator=g).tolist()
        hf_wall = hf_generate(hf, prompts, n_out)
        hf_tps = batch * n_out / hf_wall
        bound = step_bytes(hf, batch, n_in + n_out // 2) / bw
        shape = f"batch {batch}, {n_in}+{n_out}"
        common = dict(set="llm", shape=shape, dtype="bfloat16", device_name=torch.cuda.get_device_name(),
                      torch=torch.__version__)  # fmt: skip
        table.append((batch, "HF generate (cuda)", hf_tps, 1.0, float("nan"), float("nan")))
        rows.append(dict(common, op="llm:generate", impl="hf-cuda", median_us=f"{hf_wall * 1e6:.0f}",
                         best_peer="hf-cuda", ratio_to_best_peer="1.000"))  # fmt: skip
        for name, (dev, kw) in engines.items():
            model = builtin_model("1b", dtype, dev)
            engine = LLM(model, device=dev, dtype=dtype, max_num_seqs=batch, max_model_len=n_in + n_out + 1, **kw)
            wall, ttft = engine_generate(engine, dev, prompts, n_out)
            if kw.get("graphs") and engine.graph_replays == 0:
                name += ", captures failed: eager"
            step = (wall - ttft) / (n_out - 1)
            tps = batch * n_out / wall
            table.append((batch, name, tps, tps / hf_tps, step * 1e3, step / bound))
            impl = f"engine-{dev}-" + ("graphs" if engine.graph_replays else "eager")
            rows.append(dict(common, op="llm:generate", impl=impl, median_us=f"{wall * 1e6:.0f}",
                             best_peer="hf-cuda", ratio_to_best_peer=f"{wall / hf_wall:.4f}"))  # fmt: skip
            rows.append(dict(common, op="llm:decode_step", impl=impl, median_us=f"{step * 1e6:.1f}",
                             best_peer="bound", ratio_to_best_peer=f"{step / bound:.3f}"))  # fmt: skip
            del engine, model
            torch.cuda.empty_cache()
            torch.infini.empty_cache()
        print(f"batch {batch}: a decode step reads {step_bytes(hf, batch, n_in + n_out // 2) / 1e9:.2f} GB, "
              f"bound {bound * 1e3:.3f} ms")  # fmt: skip
    print(f"\ninput {n_in}, output {n_out} tokens, bf16")
    print("| batch | run | tokens/s | x HF | decode step ms | step / bound |\n|---|---|---|---|---|---|")
    for b, name, tps, x, ms, over in table:
        print(f"| {b} | {name} | {tps:.0f} | {x:.1f} | {ms:.3f} | {over:.2f} |")
    if args.csv:
        write_csv(args.csv, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
