"""Conformance of the infini device against torch's OpInfo database.

For each OpInfo entry and dtype, every sample torch generates runs on the CPU and on "infini"; the outputs must
agree and, for a pass, no aten op may have run through the CPU fallback. Agreement is torch.testing.assert_close
with the dtype's tolerance (TOLERANCE; float32 sums of products within 1e-4, SUMS); a 16-bit float result outside
it still agrees when it is as close to a float64 evaluation of the same sample as the CPU's result is. Samples
that draw random numbers are skipped; index outputs where values tie are checked to select the same values.
Results per (op, dtype):

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
    "nn.functional.fractional_max_pool2d",  # random windows
    "nn.functional.fractional_max_pool3d",
    "pca_lowrank",  # random projections
    "svd_lowrank",
    "as_strided_partial_views",  # reads the base storage around a view, which a copy to the device does not keep
}

# Ops whose index outputs are one of several right answers where values tie (torch's CPU sort is not stable unless
# asked, ours is): the values are compared, and the indices must select them.
TIES = {"sort", "argsort", "msort", "topk", "kthvalue", "mode"}

# Per-dtype tolerances: a device kernel rounds once where the CPU may round each step (or the reverse), so the
# 16-bit float results may differ by an ulp or two; others as torch.testing's defaults.
TOLERANCE = {
    torch.float16: dict(rtol=1e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2),
}
# Ops that sum many products (GEMMs, attention, convolutions) in another order than the CPU's: float32 within 1e-4.
SUMS = {
    "matmul",
    "__rmatmul__",
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "baddbmm",
    "bmm",
    "mm",
    "mv",
    "nn.functional.scaled_dot_product_attention",
    "nn.functional.multi_head_attention_forward",
    "nn.functional.conv1d",
    "nn.functional.conv2d",
    "nn.functional.conv_transpose1d",
    "nn.functional.conv_transpose2d",
    "nn.functional.linear",
    "nn.functional.bilinear",
    "nn.functional.linear_cross_entropy",
}


# Ops that accumulate many 16-bit values (reductions inside losses, norms, interpolation, GEMMs): where the CPU
# rounds partial results to 16 bits and the device accumulates in float32 (or the reverse), 16-bit results differ
# by a few ulps of the output.
ACCUMULATING = SUMS | {
    "nn.functional.nll_loss",
    "nn.functional.cross_entropy",
    "nn.functional.instance_norm",
    "nn.functional.group_norm",
    "nn.functional.embedding_bag",
    "nn.functional.interpolate",
    "nn.functional.upsample_bilinear",
    "nn.functional.linear_cross_entropy_chunked_none",
}

# Layouts the infini device does not hold: their ops raise a clear NotImplementedError there.
SPARSE = ("sparse", "to_sparse")

# Deliberate differences from the CPU kernels, compared after this adjustment: native_layer_norm's mean and rstd are
# float32 for 16-bit inputs (as on CUDA), where the CPU returns them in the input dtype.
ADJUST = {
    "native_layer_norm": lambda out: (
        (out[0], out[1].float(), out[2].float()) if out[0].dtype in (torch.float16, torch.bfloat16) else out
    )
}

_ULP = {torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}


def _max_error(out, exact) -> float:
    outs = out if isinstance(out, (list, tuple)) else (out,)
    exacts = exact if isinstance(exact, (list, tuple)) else (exact,)
    err = 0.0
    for o, e in zip(outs, exacts):
        if isinstance(o, torch.Tensor) and o.is_floating_point() and o.numel() > 0:
            err = max(err, (o.cpu().double() - e.double()).abs().nan_to_num().max().item())
    return err


def _as_accurate_as_cpu(op, sample, got, ref) -> bool:
    """For 16-bit floats: the device's result is as close to a float64 evaluation of the sample as the CPU's
    (within twice its error, plus an ulp of the largest value), where the two differ by rounding."""
    if ref is None or not isinstance(ref, torch.Tensor) or ref.dtype not in _ULP:
        return False
    try:
        wide = sample.transform(lambda t: t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t)
        exact = op(wide.input, *wide.args, **wide.kwargs)
    except Exception:  # noqa: BLE001 - no float64 evaluation
        return False
    scale = exact.abs().nan_to_num().max().item() if exact.numel() else 0.0
    return _max_error(got, exact) <= 2 * _max_error(ref, exact) + _ULP[ref.dtype] * max(scale, 1.0)


def _tolerance(op, dtype) -> dict:
    if dtype == torch.float32 and op.name in SUMS:
        return dict(rtol=1e-4, atol=1e-4)
    if dtype in (torch.float16, torch.bfloat16) and op.name in ACCUMULATING:
        return dict(rtol=2e-2, atol=2e-2) if dtype == torch.float16 else dict(rtol=5e-2, atol=5e-2)
    return TOLERANCE.get(dtype, {})


@dataclass
class Result:
    status: str  # pass | fallback | fail | skip
    detail: str = ""
    samples: int = 0
    fallbacks: set = field(default_factory=set)


def op_db():
    from torch.testing._internal.common_methods_invocations import op_db as db

    return db


def _to_device(sample, op):
    moved = sample.transform(lambda t: t.to(DEVICE) if isinstance(t, torch.Tensor) else t)
    if op.name == "tensor_split" and sample.args and isinstance(sample.args[0], torch.Tensor):
        moved.args = (sample.args[0],) + tuple(moved.args[1:])  # (torch wants the indices on the CPU)
    return moved


def _random_sample(sample, op=None) -> bool:
    """A sample that draws random numbers (dropout in attention and elsewhere)."""
    p = sample.kwargs.get("dropout_p", sample.kwargs.get("p", 0.0))
    if op is not None and op.name == "nn.functional.multi_head_attention_forward" and len(sample.args) > 9:
        p = sample.args[9]  # (dropout_p is positional there)
    training = sample.kwargs.get("training", True)
    return isinstance(p, float) and p > 0 and training


def _untie(op, sample, out, on_device: bool):
    """For ops in TIES: the values (and, for argsort, the input's values at the indices) instead of the indices."""
    if op.name not in TIES:
        return out
    x = sample.input.cpu() if on_device else sample.input
    dim = sample.kwargs.get("dim", sample.args[1] if op.name in ("topk", "kthvalue") and len(sample.args) > 1 else -1)
    if op.name == "sort" and sample.args and isinstance(sample.args[0], int):
        dim = sample.args[0]
    if op.name == "argsort":
        if sample.args and isinstance(sample.args[0], int):
            dim = sample.args[0]
        return x.gather(dim, out) if x.dim() > 0 else x
    values, indices = out[0], out[1]
    if x.dim() > 0 and indices.dim() == x.dim():
        taken = x.gather(dim, indices)
        assert torch.equal(taken.isnan(), values.isnan()) and torch.equal(taken.nan_to_num(), values.nan_to_num()), (
            f"{op.name}: indices do not select the values"
        )
    return values


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
    if any(word in op.name for word in SPARSE):
        return Result("skip", "sparse layouts are not held by the infini device")
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
            if _random_sample(sample, op):
                continue
            try:
                ref = _untie(op, sample, op(sample.input, *sample.args, **sample.kwargs), False)
            except Exception:  # noqa: BLE001 - the CPU rejects this sample: nothing to compare
                continue
            dev = _to_device(sample, op)
            infinicore_torch.reset_fallback_stats()
            try:
                out = op(dev.input, *dev.args, **dev.kwargs)
                torch.infini.synchronize()  # (a non_blocking copy to the host lands here, as on CUDA)
                got = _untie(op, sample, _to_cpu(out), True)
            except Exception as e:  # noqa: BLE001
                return Result("fail", f"raised {type(e).__name__}: {str(e).splitlines()[0][:160]}", ran)
            result.fallbacks |= set(infinicore_torch.fallback_stats())
            if op.name in ADJUST:
                ref = ADJUST[op.name](ref)
            try:
                torch.testing.assert_close(
                    got, ref, equal_nan=True, check_device=False, check_stride=False, **_tolerance(op, dtype)
                )
            except Exception as e:  # noqa: BLE001
                if not _as_accurate_as_cpu(op, sample, got, ref):
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
