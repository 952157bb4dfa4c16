"""Ordinary PyTorch on device="infini" against device="cuda", same GPU, same process (the nvidia backend).

    python3 benchmarks/aten_gpu.py [--ops] [--model] [--csv benchmarks/results/h200.csv] [--reps 20]

--ops: aten ops at large shapes (bf16 4096x4096 and up): mm, bmm, broadcast add / mul, softmax, sum over the last
and the first dim, cat, index_select, embedding, cross_entropy, SDPA. Each side is timed by its own device events
around one call, the L2 flushed before each call; medians. --model: a Llama (8 layers, hidden 2048, GQA 32/8, bf16)
from a config with random weights: forward over 128 tokens, greedy generate of 32 tokens, and a training step
(forward, backward, AdamW fused), wall-clock medians with a device synchronization at the end of each run; the
infini runs with INFINI_FALLBACK=error. The cuda side of the model runs in a child process that never registers the
infini device: while a PrivateUse1 device is registered, PyTorch takes it for the process's one accelerator and a
backward over CUDA tensors fails in the autograd engine (pytorch/pytorch#161129). Prints a table (ratio = infini /
cuda; below 1 is faster) and merges rows into the per-device CSV when asked.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

import torch


def flush_l2(dev, buf={}):
    if dev not in buf:
        buf[dev] = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    buf[dev].zero_()


def sync(dev):
    (torch.infini if dev.startswith("infini") else torch.cuda).synchronize()


def event(dev):
    return (torch.infini.Event if dev.startswith("infini") else torch.cuda.Event)(enable_timing=True)


def time_op(fn, dev, reps):
    """Median ms of one call, by the device's events; the L2 flushed before each call."""
    for _ in range(3):
        fn()
    sync(dev)
    times = []
    for _ in range(reps):
        flush_l2(dev)
        start, end = event(dev), event(dev)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def time_wall(fn, dev, reps):
    fn()
    sync(dev)
    times = []
    for _ in range(reps):
        sync(dev)
        t0 = time.perf_counter()
        fn()
        sync(dev)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def op_cases(dev):
    bf = torch.bfloat16
    g = torch.Generator(device="cpu").manual_seed(0)

    def r(*shape, dtype=bf):
        return torch.randn(*shape, generator=g).to(dtype).to(dev)

    a, b = r(4096, 4096), r(4096, 4096)
    row, col = r(4096), r(4096, 1)
    x3, y3 = r(32, 1024, 128), r(32, 128, 1024)
    h1, h2 = r(4096, 2048), r(4096, 2048)
    table = r(128256, 4096)
    idx = torch.randint(0, 128256, (4096,), generator=g).to(dev)
    logits = r(4096, 32000, dtype=torch.float32)
    target = torch.randint(0, 32000, (4096,), generator=g).to(dev)
    q, k, v = r(4, 32, 1024, 128), r(4, 32, 1024, 128), r(4, 32, 1024, 128)
    return [
        ("mm 4096x4096x4096", lambda: a @ b),
        ("bmm 32x1024x128x1024", lambda: torch.bmm(x3, y3)),
        ("add 4096x4096", lambda: a + b),
        ("add broadcast row", lambda: a + row),
        ("mul broadcast col", lambda: a * col),
        ("softmax 4096x4096", lambda: a.softmax(-1)),
        ("sum last dim", lambda: a.sum(-1)),
        ("sum first dim", lambda: a.sum(0)),
        ("cat 2x[4096,2048]", lambda: torch.cat([h1, h2], dim=1)),
        ("index_select 4096 rows", lambda: table.index_select(0, idx)),
        ("embedding 4096 tokens", lambda: torch.nn.functional.embedding(idx, table)),
        ("cross_entropy 4096x32000", lambda: torch.nn.functional.cross_entropy(logits, target)),
        (
            "sdpa causal 4x32x1024x128",
            lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
        ),
    ]


def llama(dev):
    import transformers

    cfg = transformers.LlamaConfig(
        vocab_size=32000,
        hidden_size=2048,
        intermediate_size=5632,
        num_hidden_layers=8,
        num_attention_heads=32,
        num_key_value_heads=8,
        max_position_embeddings=2048,
    )
    torch.manual_seed(0)
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(cfg)
    model = model.to_empty(device=dev).to(torch.bfloat16)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.02) if p.dim() > 1 else torch.nn.init.ones_(p)
    model.config._attn_implementation = "sdpa"
    return model


def model_cases(dev, reps):
    """[(name, ms or None)]: a row that raises (a fallback under INFINI_FALLBACK=error) is reported and left out."""
    model = llama(dev)
    ids = torch.randint(0, 32000, (1, 128), generator=torch.Generator().manual_seed(1)).to(dev)
    rows = []

    def attempt(name, fn, n):
        try:
            rows.append((name, time_wall(fn, dev, n)))
        except Exception as e:
            print(f"{dev} {name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
            rows.append((name, None))

    with torch.no_grad():
        attempt("llama forward 128 tokens", lambda: model(ids), reps)
        gen = lambda: model.generate(ids, max_new_tokens=32, do_sample=False, min_new_tokens=32, pad_token_id=0)  # noqa
        attempt("llama greedy generate 32", gen, max(3, reps // 4))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)

    def step():
        loss = model(ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    attempt("llama training step 128 tokens", step, max(3, reps // 2))
    return rows


def write_csv(path, rows, gpu):
    """Replaces the file's aten: rows by these (the results schema of benchmarks/results/*.csv), keeps the rest."""
    old = []
    if os.path.exists(path):
        with open(path) as f:
            old = [r for r in csv.DictReader(f) if not r.get("op", "").startswith("aten:")]
    fields = ["op", "set", "shape", "dtype", "impl", "median_us", "best_peer", "ratio_to_best_peer", "device_name"]
    fields = list(old[0].keys()) if old else fields + ["torch"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in old:
            w.writerow(r)
        for name, ms_inf, ms_cuda in rows:
            for impl, ms in (("infini", ms_inf), ("cuda", ms_cuda)):
                w.writerow(
                    {
                        "op": "aten:" + name,
                        "set": "aten",
                        "dtype": "bfloat16",
                        "impl": impl,
                        "median_us": f"{ms * 1e3:.2f}",
                        "best_peer": "cuda",
                        "ratio_to_best_peer": f"{ms / ms_cuda:.3f}",
                        "device_name": gpu,
                        "torch": torch.__version__,
                    }
                )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", action="store_true")
    ap.add_argument("--model", action="store_true")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--cuda-model-json", action="store_true", help=argparse.SUPPRESS)  # the child process's mode
    args = ap.parse_args()
    if args.cuda_model_json:
        print(json.dumps(model_cases("cuda", args.reps)))
        return
    if not (args.ops or args.model):
        args.ops = args.model = True
    import infinicore_torch

    assert torch.cuda.is_available() and infinicore_torch._C._backend_name() == "nvidia", "needs the nvidia backend"
    gpu = torch.cuda.get_device_name()
    print(f"# {gpu}, torch {torch.__version__}, CUDA {torch.version.cuda}")
    rows = []
    if args.ops:
        for (name, f_inf), (_, f_cuda) in zip(op_cases("infini"), op_cases("cuda")):
            infinicore_torch.reset_fallback_stats()
            t_inf, t_cuda = time_op(f_inf, "infini", args.reps), time_op(f_cuda, "cuda", args.reps)
            rows.append((name, t_inf, t_cuda))
            fell = infinicore_torch.fallback_stats()
            print(
                f"{name:<34} infini {t_inf:9.3f} ms  cuda {t_cuda:9.3f} ms  ratio {t_inf / t_cuda:5.2f}"
                + (f"  fell back: {fell}" if fell else ""),
                flush=True,
            )
    if args.model:
        infinicore_torch.reset_fallback_stats()
        os.environ["INFINI_FALLBACK"] = "error"
        inf = model_cases("infini", args.reps)
        os.environ.pop("INFINI_FALLBACK")
        env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
        child = [sys.executable, os.path.abspath(__file__), "--cuda-model-json", "--reps", str(args.reps)]
        done = subprocess.run(child, env=env, capture_output=True, text=True, check=True)
        cud = json.loads(done.stdout.strip().splitlines()[-1])
        for (name, t_inf), (_, t_cuda) in zip(inf, cud):
            if t_inf is None or t_cuda is None:
                continue
            rows.append((name, t_inf, t_cuda))
            print(f"{name:<34} infini {t_inf:9.3f} ms  cuda {t_cuda:9.3f} ms  ratio {t_inf / t_cuda:5.2f}", flush=True)
    if args.csv:
        write_csv(args.csv, rows, gpu)


if __name__ == "__main__":
    main()
