"""Conformance against torch's OpInfo database (infinicore_torch.testing.opinfo): each op's samples on infini
against the CPU. CI runs the ops below; `INFINI_OPINFO=all` (or `python -m infinicore_torch.testing.opinfo
--ops all`) runs every entry. An op in NATIVE must pass without the CPU fallback; any other listed op must at least
agree with the CPU."""

import os

import pytest
import torch

pytest.importorskip("expecttest", reason="torch.testing._internal needs expecttest (pip install expecttest)")
from infinicore_torch.testing import opinfo  # noqa: E402

pytestmark = pytest.mark.allow_fallback("the runner counts fallbacks itself")

# Ops whose every sample must run on the device's own kernels.
NATIVE = {
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "neg",
    "abs",
    "sign",
    "sgn",
    "sqrt",
    "rsqrt",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "sigmoid",
    "erf",
    "erfc",
    "erfinv",
    "floor",
    "ceil",
    "trunc",
    "frac",
    "reciprocal",
    "square",
    "nn.functional.relu",
    "nn.functional.silu",
    "nn.functional.gelu",
    "nn.functional.mish",
    "nn.functional.hardsigmoid",
    "nn.functional.hardswish",
    "nn.functional.hardtanh",
    "nn.functional.elu",
    "nn.functional.leaky_relu",
    "nn.functional.softplus",
    "nn.functional.threshold",
    "isnan",
    "isinf",
    "isposinf",
    "isneginf",
    "isfinite",
    "signbit",
    "logical_not",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "atan2",
    "hypot",
    "copysign",
    "xlogy",
    "remainder",
    "fmod",
    "pow",
    "float_power",
    "clamp",
    "clamp_min",
    "clamp_max",
    "lerp",
    "addcmul",
    "addcdiv",
    "where",
    "masked_fill",
    "nan_to_num",
    "cat",
    "stack",
    "hstack",
    "vstack",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "triu",
    "tril",
    "arange",
    "contiguous",
    "clone",
    "fill",
    "zeros_like",
    "ones_like",
    "full_like",
    "repeat",
    "expand",
    "T",
    "transpose",
    "permute",
}
CI_OPS = sorted(NATIVE)
DTYPES = [torch.float32, torch.bfloat16, torch.int64, torch.bool]


def ops_under_test():
    if os.environ.get("INFINI_OPINFO") == "all":
        return sorted({op.formatted_name for op in opinfo.op_db()})
    return CI_OPS


@pytest.mark.parametrize("name", ops_under_test())
def test_opinfo(name):
    entries = [op for op in opinfo.op_db() if op.formatted_name == name or op.name == name]
    if not entries:
        pytest.skip(f"no OpInfo entry {name} in this torch")
    problems = []
    for op in entries:
        for dt in DTYPES:
            r = opinfo.check(op, dt, max_samples=24)
            if r.status == "fail":
                problems.append(f"{op.formatted_name} {dt}: {r.detail}")
            elif r.status == "fallback" and name in NATIVE and os.environ.get("INFINI_OPINFO") != "all":
                problems.append(f"{op.formatted_name} {dt}: fell back: {r.detail}")
    assert not problems, "\n".join(problems)
