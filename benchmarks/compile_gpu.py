"""torch.compile of a Hugging Face Llama on infini tensors against torch.compile on cuda tensors, same GPU, same process.

    python3 benchmarks/compile_gpu.py [--rows prefill,decode1,decode64] [--csv benchmarks/results/h200.csv]
    python3 benchmarks/compile_gpu.py --smoke        # a tiny config on --device-a infini --device-b cpu, any machine

The model (issue 68's): `LlamaForCausalLM` from a config (8 layers, hidden 2048, intermediate 5632, 32 heads, 8 kv
heads, vocab 32000), random weights from a fixed seed, bf16, `attn_implementation="sdpa"`, built once per device on
`meta` and initialized on the device itself (`to_empty`, then `normal_`). Rows:

- prefill: one forward of 2048 tokens at batch 1, no cache, the logits of every position;
- decode1 / decode64: one decode step (one new token a sequence) at batch 1 / 64 over a 1024-token KV cache.

The decode steps run over a Hugging Face `StaticCache` of 1025 slots, filled by an eager prefill of 1024 tokens. A
StaticCache is the cache HF's compiled generation uses: its tensors have one shape and one address for the life of
the cache, the step writes its key and value in place (`index_copy_`) and attends over all 1025 slots with a mask, so
every step compiles to one static graph. After each step (untimed) the cache's length is set back to 1024 (the next
step overwrites the same slot), so every timed step does the same work: one token over 1024 cached ones. A DynamicCache
would instead concatenate the whole cache each step and grow it by one, a new shape (a recompile, or dynamic shapes)
every step.

Variants, each compiled with `fullgraph=True, dynamic=False` and torch's default mode (no CUDA graphs: the infini
device has none under Inductor, so neither side gets them), after `torch._dynamo.reset()` so that each timed
function has one compiled graph and is compiled under its own fusion settings:

- `infini`: the infini fusion passes on (the default for infini graphs), under `INFINI_FALLBACK=error`;
- `cuda`: plain torch.compile (the passes are off for cuda graphs by default);
- `cuda+fusion`: the passes on for cuda graphs too (`infinicore_torch.fusion.enable(devices=("infini", "cuda"))`).

Inductor's FX graph cache is off, so that every variant is compiled (and its rewrites counted) anew. Each variant's
first call (the compilation) is timed on its own; then `--warmup` calls, then `--iters` calls under
`torch.compiler.set_stance("fail_on_recompile")`, each timed by wall clock between two device synchronizations;
medians. Each variant's compiled logits are checked against the same model's eager logits on its device (relative
Frobenius error). Bars (bf16, H200): infini at most cuda on every row; cuda+fusion below cuda on the decode rows.

Prints a markdown table and the fusion counters (`fusion.counters()`) and fallbacks per variant, and merges rows into
the CSV when asked: op `compile:<row>`, one row per variant (impl), best_peer the plain cuda compile.

Inference only: in a process where infini is registered, a backward over CUDA tensors fails (pytorch/pytorch#161129).
"""

from __future__ import annotations

import argparse
import csv
import inspect
import os
import platform
import statistics
import sys
import time

import torch

import infinicore_torch

FULL = dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=8, num_attention_heads=32,
            num_key_value_heads=8, vocab_size=32000)  # fmt: skip
SMOKE = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
             vocab_size=256)  # fmt: skip
# row -> (kind, batch, tokens): a prefill of `tokens` tokens, or a decode step over `tokens` cached ones
ROWS = {"prefill": ("prefill", 1, 2048), "decode1": ("decode", 1, 1024), "decode64": ("decode", 64, 1024)}
SMOKE_ROWS = {"prefill": ("prefill", 1, 32), "decode1": ("decode", 1, 16), "decode64": ("decode", 4, 16)}
TOL = {torch.float32: 1e-4, torch.float16: 2e-2, torch.bfloat16: 2e-2}  # relative Frobenius error against eager


def row_name(kind, batch, tokens) -> str:
    return f"prefill_{tokens}" if kind == "prefill" else f"decode_b{batch}_kv{tokens}"


def row_shape(kind, batch, tokens) -> str:
    return f"batch {batch}, {tokens} tokens" if kind == "prefill" else f"batch {batch}, 1 token over {tokens} cached"


def device_module(dev):
    return getattr(torch, torch.device(dev).type)


def sync(dev):
    device_module(dev).synchronize()


def empty_cache(dev):
    mod = device_module(dev)
    if hasattr(mod, "empty_cache"):
        mod.empty_cache()


def build(cfg_fields, dtype, dev):
    """The Llama on dev: built on meta, laid out on dev, initialized there from seed 0."""
    import transformers

    cfg = transformers.LlamaConfig(max_position_embeddings=4096, **cfg_fields)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(cfg)
    model = model.to(dtype).to_empty(device=dev)
    with torch.no_grad():
        for p in model.parameters():
            torch.nn.init.normal_(p, std=0.02) if p.dim() > 1 else torch.nn.init.ones_(p)
    model.model.rotary_emb = type(model.model.rotary_emb)(config=cfg).to(dev)  # (its buffers: not on meta)
    assert model.config._attn_implementation == "sdpa"
    return model.eval()


def cache_kwarg(model) -> str:
    """The forward's name for the cache: `cache` in recent transformers, `past_key_values` before."""
    return "cache" if "cache" in inspect.signature(type(model).forward).parameters else "past_key_values"


class Row:
    """One row's inputs on one device, and the step the variants time: `run(f)` calls the model (eager or compiled)
    and returns the logits; `after()` restores the inputs for the next call (outside the timed region)."""

    def __init__(self, model, dev, kind, batch, tokens, vocab):
        import transformers

        g = torch.Generator().manual_seed(1)
        self.kind = kind
        if kind == "prefill":
            self.ids = torch.randint(0, vocab, (batch, tokens), generator=g).to(dev)
            self.kw = dict(use_cache=False)
            return
        past = torch.randint(0, vocab, (batch, tokens), generator=g).to(dev)
        self.ids = torch.randint(0, vocab, (batch, 1), generator=g).to(dev)
        self.cache = transformers.StaticCache(config=model.config, max_cache_len=tokens + 1)
        self.kw = {cache_kwarg(model): self.cache, "use_cache": True}
        with torch.no_grad():
            model(past, logits_to_keep=1, **self.kw)
        self.past = tokens
        assert int(self.cache.get_seq_length()) == tokens

    def run(self, f):
        return f(self.ids, **self.kw).logits

    def after(self):
        if self.kind == "decode":  # the step's token out again (the next step writes the same slot)
            for layer in self.cache.layers:  # (a StaticLayer's length; transformers 5.17 has no StaticLayer.crop)
                layer.cumulative_length.fill_(self.past)


def measure(model, row, dev, warmup, iters):
    """(compile s, median ms, relative error against eager) of torch.compile(model) on the row."""
    with torch.no_grad():
        want = row.run(model).float()
        row.after()
        f = torch.compile(model, fullgraph=True, dynamic=False)
        sync(dev)
        t0 = time.perf_counter()
        got = row.run(f).float()
        sync(dev)
        compile_s = time.perf_counter() - t0
        row.after()
        err = ((got - want).norm() / want.norm()).item()
        times = []
        with torch.compiler.set_stance("fail_on_recompile"):
            for i in range(warmup + iters):
                sync(dev)
                t0 = time.perf_counter()
                row.run(f)
                sync(dev)
                if i >= warmup:
                    times.append((time.perf_counter() - t0) * 1e3)
                row.after()
    return compile_s, statistics.median(times), err


def variants(dev_a, dev_b):
    """[(name, device, fusion devices, INFINI_FALLBACK)]."""
    return [
        (dev_a, dev_a, ("infini",), "error"),
        (dev_b, dev_b, ("infini",), None),
        (f"{dev_b}+fusion", dev_b, ("infini", dev_b), None),
    ]


def run_variant(fusion, model, row_args, dev, fusion_devices, fallback, cfg, args):
    """One variant on one row: {compile_s, ms, err, counters, fallbacks} or {error}."""
    torch._dynamo.reset()
    fusion.enable(devices=fusion_devices)
    fusion.reset_counters()
    infinicore_torch.reset_fallback_stats()
    old = os.environ.get("INFINI_FALLBACK")
    if fallback:
        os.environ["INFINI_FALLBACK"] = fallback
    try:
        row = Row(model, dev, *row_args, vocab=cfg["vocab_size"])
        compile_s, ms, err = measure(model, row, dev, args.warmup, args.iters)
        out = dict(compile_s=compile_s, ms=ms, err=err)
    except Exception as e:  # a row that fails (a fallback under INFINI_FALLBACK=error, a compile error) is reported
        out = dict(error=f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}")
    finally:
        if old is None:
            os.environ.pop("INFINI_FALLBACK", None)
        else:
            os.environ["INFINI_FALLBACK"] = old
        row = None
        empty_cache(dev)
    out.update(counters=fusion.counters(), fallbacks=infinicore_torch.fallback_stats())
    return out


def ratio(a, b):
    return a["ms"] / b["ms"] if "ms" in a and "ms" in b else float("nan")


def fmt_ms(r):
    return f"{r['ms']:.3f}" if "ms" in r else "failed"


def bar_of(kind, res, names) -> str:
    """Whether the row meets its bars: infini at most the plain compile; on decode rows also +fusion below it."""
    a, b, bf = (res[n] for n in names)
    parts = [("met" if ratio(a, b) <= 1 else "not met") if "ms" in a and "ms" in b else "-"]
    if kind == "decode":
        parts.append(("met" if ratio(bf, b) < 1 else "not met") if "ms" in bf and "ms" in b else "-")
    return " / ".join(parts)


def read_csv(path):
    """(fields, rows, line terminator) of a results CSV; its own terminator is kept (h200.csv: \\r\\n)."""
    with open(path, newline="") as f:
        text = f.read()
    term = "\r\n" if "\r\n" in text.split("\n", 1)[0] + "\n" else "\n"
    reader = csv.DictReader(text.splitlines())
    return list(reader.fieldnames or []), list(reader), term


def write_csv(path, new_rows):
    """Replaces the file's rows of the ops measured here (`compile:<row>`) by these, keeps the rest and the file's field
    order and line terminator (the schema of benchmarks/results/*.csv)."""
    fields, old, term = ["op", "set", "shape", "dtype", "impl", "median_us", "p10_us", "p90_us", "gbps", "tflops",
                         "pct_copy", "best_peer", "ratio_to_best_peer", "check", "device_name", "torch"], [], "\n"  # fmt: skip
    if os.path.exists(path):
        fields, old, term = read_csv(path)
    ops = {r["op"] for r in new_rows}
    kept = [r for r in old if r.get("op") not in ops]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator=term)
        w.writeheader()
        for r in kept + new_rows:
            w.writerow(r)


def device_name(dev) -> str:
    if torch.device(dev).type == "cuda":
        return torch.cuda.get_device_name()
    return platform.processor() or platform.machine() or "cpu"


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="prefill,decode1,decode64", help=f"some of {','.join(ROWS)}")
    ap.add_argument("--device-a", default="infini")
    ap.add_argument("--device-b", default="cuda")
    ap.add_argument("--dtype", choices=["bfloat16", "float16", "float32"], default=None, help="default: bfloat16")
    ap.add_argument("--warmup", type=int, default=None, help="calls after compiling, untimed (default 5)")
    ap.add_argument("--iters", type=int, default=None, help="timed calls (default 50)")
    ap.add_argument("--csv", help="merge the rows into this CSV")
    ap.add_argument("--smoke", action="store_true", help="a tiny config, few calls, --device-b cpu, float32")
    args = ap.parse_args(argv)
    if args.smoke:
        args.device_b = "cpu" if args.device_b == "cuda" else args.device_b
    dflt = (1, 3, "float32") if args.smoke else (5, 50, "bfloat16")
    args.warmup = dflt[0] if args.warmup is None else args.warmup
    args.iters = dflt[1] if args.iters is None else args.iters
    args.dtype = args.dtype or dflt[2]
    for r in args.rows.split(","):
        if r not in ROWS:
            ap.error(f"--rows: no row {r!r} (rows: {', '.join(ROWS)})")
    return args


def main(argv=None) -> int:
    args = parse(argv)
    import torch._inductor.config as inductor_config

    from infinicore_torch import fusion

    dtype = getattr(torch, args.dtype)
    cfg, rows = (SMOKE, SMOKE_ROWS) if args.smoke else (FULL, ROWS)
    rows = {k: rows[k] for k in args.rows.split(",")}
    dev_a, dev_b = args.device_a, args.device_b
    if torch.device(dev_b).type == "cuda":
        assert torch.cuda.is_available(), "--device-b cuda: no CUDA device here"
    names = [v[0] for v in variants(dev_a, dev_b)]
    print(f"# {device_name(dev_b)}, torch {torch.__version__}, infini backend {torch.infini.backend()}, {args.dtype}, "
          f"warm-up {args.warmup}, timed {args.iters}" + (" (smoke)" if args.smoke else ""), flush=True)  # fmt: skip
    t_build = time.perf_counter()
    models = {dev: build(cfg, dtype, dev) for dev in (dev_a, dev_b)}
    print(f"models built in {time.perf_counter() - t_build:.1f} s", flush=True)
    results = {}
    try:
        with inductor_config.patch(fx_graph_cache=False):
            for key, row_args in rows.items():
                for name, dev, fdevs, fallback in variants(dev_a, dev_b):
                    r = run_variant(fusion, models[dev], row_args, dev, fdevs, fallback, cfg, args)
                    results[(key, name)] = r
                    said = (f"compile {r['compile_s']:.1f} s, {r['ms']:.3f} ms, error {r['err']:.1e}"
                            if "ms" in r else r["error"])  # fmt: skip
                    print(f"{row_name(*row_args)} {name}: {said}", flush=True)
    finally:
        torch._dynamo.reset()
        fusion.enable(devices=("infini",))
    tol = TOL[dtype]
    a, b, bf = names
    print(f"\n| row | {a} ms | {b} ms | {bf} ms | {a} / {b} | {bf} / {b} | bars ({a} <= {b} / {bf} < {b}) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for key, row_args in rows.items():
        res = {n: results[(key, n)] for n in names}
        print(f"| {row_name(*row_args)} | {fmt_ms(res[a])} | {fmt_ms(res[b])} | {fmt_ms(res[bf])} | "
              f"{ratio(res[a], res[b]):.2f} | {ratio(res[bf], res[b]):.2f} | {bar_of(row_args[0], res, names)} |")  # fmt: skip
    print("\n| row | variant | compile s | error vs eager | fusion counters | fallbacks |\n|---|---|---:|---:|---|---|")
    for key, row_args in rows.items():
        for n in names:
            r = results[(key, n)]
            counters = ", ".join(f"{k} {v}" for k, v in sorted(r["counters"].items())) or "-"
            fell = ", ".join(f"{k} {v}" for k, v in sorted(r["fallbacks"].items())) or "-"
            err = f"{r['err']:.1e}" + ("" if r["err"] <= tol else " (over tolerance)") if "ms" in r else "failed"
            cs = f"{r['compile_s']:.1f}" if "ms" in r else "-"
            print(f"| {row_name(*row_args)} | {n} | {cs} | {err} | {counters} | {fell} |")
    if args.csv:
        out = []
        for key, row_args in rows.items():
            base = results[(key, b)]
            for n in names:
                r = results[(key, n)]
                if "ms" not in r or "ms" not in base:
                    continue
                out.append(dict(op=f"compile:{row_name(*row_args)}", set="compile", shape=row_shape(*row_args),
                                dtype=args.dtype, impl=n, median_us=f"{r['ms'] * 1e3:.1f}", best_peer=b,
                                ratio_to_best_peer=f"{r['ms'] / base['ms']:.3f}",
                                check="ok" if r["err"] <= tol else "FAIL", device_name=device_name(dev_b),
                                torch=torch.__version__))  # fmt: skip
        write_csv(args.csv, out)
        print(f"\n{len(out)} rows merged into {args.csv}")
    failed = [k for k, r in results.items() if "ms" not in r]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
