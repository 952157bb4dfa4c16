"""Conformance of the infini device against torch's OpInfo database.

For each OpInfo entry and dtype, every sample torch generates runs on the CPU and on "infini"; the outputs must
agree (torch.testing.assert_close with the dtype's default tolerances) and, for a pass, no aten op may have run
through the CPU fallback. Results per (op, dtype):

- ``pass``: every sample agreed and ran natively;
- ``fallback``: every sample agreed, but some aten op ran on the CPU (listed);
- ``fail``: a sample disagreed, or raised on infini where the CPU did not (the first message is kept);
- ``skip``: no sample for this dtype, the op is random or not comparable, or the CPU itself rejects the samples.

    python -m infinicore_torch.testing.opinfo --ops all --out docs/conformance.md
    python -m infinicore_torch.testing.opinfo --ops add,mul,softmax --dtypes float32,bfloat16

(torch.testing._internal needs the `expecttest` package.)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from dataclasses import dataclass, field

import torch

import infinicore_torch

DEVICE = "infini"
DTYPES = [
    torch.float32,
    torch.bfloat16,
    torch.float16,
    torch.float64,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
]
SHORT = {
    torch.float32: "f32",
    torch.bfloat16: "bf16",
    torch.float16: "f16",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "u8",
    torch.bool: "bool",
}

# Ops whose results are random or depend on memory layout / identity, not on values: not comparable sample by
# sample with the CPU.
NOT_COMPARABLE = {
    "bernoulli",
    "cauchy",
    "exponential",
    "geometric",
    "log_normal",
    "normal",
    "uniform",
    "multinomial",
    "rand_like",
    "randint_like",
    "randn_like",
    "randint",
    "randn",
    "rand",
    "nn.functional.dropout",
    "nn.functional.dropout2d",
    "nn.functional.dropout3d",
    "nn.functional.alpha_dropout",
    "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu",
    "empty",
    "empty_like",
    "empty_strided",
    "new_empty",
    "new_empty_strided",
    "empty_permuted",
    "item",
    "equal",
    "data_ptr",
    "storage_offset",
    "randperm",
    "bernoulli_",
}


@dataclass
class Result:
    status: str  # pass | fallback | fail | skip
    detail: str = ""
    samples: int = 0
    fallbacks: set = field(default_factory=set)


def op_db():
    from torch.testing._internal.common_methods_invocations import op_db as db

    return db


def _to_device(sample):
    return sample.transform(lambda t: t.to(DEVICE) if isinstance(t, torch.Tensor) else t)


def _to_cpu(out):
    if isinstance(out, torch.Tensor):
        return out.cpu()
    if isinstance(out, (list, tuple)):
        return type(out)(_to_cpu(o) for o in out) if not hasattr(out, "_fields") else type(out)(*map(_to_cpu, out))
    return out


@contextlib.contextmanager
def _fallback_allowed():
    old = os.environ.pop("INFINI_FALLBACK", None)
    try:
        yield
    finally:
        if old is not None:
            os.environ["INFINI_FALLBACK"] = old


def check(op, dtype, max_samples: int = 64) -> Result:
    """Runs op's samples of dtype on the CPU and on infini; see the module's docstring for the verdicts."""
    if op.name in NOT_COMPARABLE or op.formatted_name in NOT_COMPARABLE:
        return Result("skip", "random or not value-comparable")
    if dtype not in op.supported_dtypes("cpu"):
        return Result("skip", "the CPU does not support this dtype")
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))[:max_samples]
    except Exception as e:  # noqa: BLE001 - a sample generator that cannot run here
        return Result("skip", f"no samples: {type(e).__name__}")
    if not samples:
        return Result("skip", "no samples")
    result = Result("pass")
    ran = 0
    with _fallback_allowed():
        for sample in samples:
            try:
                ref = op(sample.input, *sample.args, **sample.kwargs)
            except Exception:  # noqa: BLE001 - the CPU rejects this sample: nothing to compare
                continue
            dev = _to_device(sample)
            infinicore_torch.reset_fallback_stats()
            try:
                got = _to_cpu(op(dev.input, *dev.args, **dev.kwargs))
            except Exception as e:  # noqa: BLE001
                return Result("fail", f"raised {type(e).__name__}: {str(e).splitlines()[0][:160]}", ran)
            result.fallbacks |= set(infinicore_torch.fallback_stats())
            try:
                torch.testing.assert_close(got, ref, equal_nan=True, check_device=False, check_stride=False)
            except Exception as e:  # noqa: BLE001
                lines = [ln for ln in str(e).splitlines() if ln.strip()]
                return Result("fail", "mismatch: " + " ".join(lines[:3])[:200], ran)
            ran += 1
    result.samples = ran
    if ran == 0:
        return Result("skip", "the CPU rejects every sample")
    if result.fallbacks:
        result.status = "fallback"
        result.detail = ", ".join(sorted(result.fallbacks))
    return result


def run(names: list[str] | None, dtypes: list[torch.dtype], progress=None) -> dict:
    db = op_db()
    ops = [op for op in db if names is None or op.name in names or op.formatted_name in names]
    table = {}
    for i, op in enumerate(ops):
        for dt in dtypes:
            table[(op.formatted_name, dt)] = check(op, dt)
        if progress:
            progress(i + 1, len(ops), op.formatted_name)
    return table


def summary(table: dict) -> dict:
    counts = {"pass": 0, "fallback": 0, "fail": 0, "skip": 0}
    for r in table.values():
        counts[r.status] += 1
    return counts


def markdown(table: dict, dtypes: list[torch.dtype], seconds: float) -> str:
    counts = summary(table)
    mark = {"pass": "ok", "fallback": "fb", "fail": "FAIL", "skip": "-"}
    ops = sorted({k[0] for k in table})
    lines = [
        "# Conformance: torch's OpInfo database on the infini device",
        "",
        "Generated by `python -m infinicore_torch.testing.opinfo --ops all --out docs/conformance.md` "
        f"(torch {torch.__version__}, backend {infinicore_torch._C._backend_name()}, {seconds:.0f} s). "
        "Every sample runs on the CPU and on infini and must agree. ok: all samples agreed and ran on the "
        "device's kernels; fb: agreed, but some aten op ran through the CPU fallback (listed below); FAIL: a sample "
        "disagreed or raised (below); -: skipped (no sample, the CPU rejects the dtype, or random).",
        "",
        f"Totals (op x dtype): {counts['pass']} ok, {counts['fallback']} fallback, {counts['fail']} failed, "
        f"{counts['skip']} skipped.",
        "",
        "| op | " + " | ".join(SHORT[d] for d in dtypes) + " |",
        "|---|" + "---|" * len(dtypes),
    ]
    for name in ops:
        cells = [mark[table[(name, d)].status] for d in dtypes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    details = [
        (k, r)
        for k, r in sorted(table.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))
        if r.status in ("fail", "fallback")
    ]
    if details:
        lines += ["", "## Failures and fallbacks", "", "| op | dtype | verdict | detail |", "|---|---|---|---|"]
        for (name, dt), r in details:
            lines.append(f"| {name} | {SHORT[dt]} | {r.status} | {r.detail.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="all", help="comma-separated OpInfo names, or 'all'")
    ap.add_argument("--dtypes", default=",".join(str(d).replace("torch.", "") for d in DTYPES))
    ap.add_argument("--out", default=None, help="write the markdown table here")
    args = ap.parse_args(argv)
    names = None if args.ops == "all" else args.ops.split(",")
    dtypes = [getattr(torch, d) for d in args.dtypes.split(",")]
    t0 = time.time()

    def progress(i, n, name):
        print(f"\r[{i}/{n}] {name:<40}", end="", file=sys.stderr, flush=True)

    table = run(names, dtypes, progress)
    print(file=sys.stderr)
    text = markdown(table, dtypes, time.time() - t0)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    counts = summary(table)
    print(f"{counts['pass']} ok, {counts['fallback']} fallback, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
