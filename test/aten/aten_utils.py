"""Helpers of the aten tests (test/aten). Every test there runs with INFINI_FALLBACK=error (the root conftest's
native_only fixture), so a pass proves the path ran on the device's own kernels; a test that needs the fallback says
so with the allow_fallback marker."""

import torch

DEV = "infini"

# Tolerances per dtype for results computed in a different order or precision than torch's CPU kernels.
TOL = {
    torch.float64: dict(rtol=1e-9, atol=1e-9),
    torch.float32: dict(rtol=1.3e-6, atol=1e-5),
    torch.float16: dict(rtol=1e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2),
}


def tol(dtype):
    return TOL.get(dtype, dict(rtol=0, atol=0))


def same(got, ref, **kw):
    """got (any device) equals the CPU reference within its dtype's tolerance, dtype and shape included."""
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    torch.testing.assert_close(got.cpu(), ref, **(kw or tol(ref.dtype)), equal_nan=True)


def make(shape, dtype, low=-3.0, high=3.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype)
    lo, hi = (0, 100) if dtype == torch.uint8 else (-50, 50)
    return torch.randint(lo, hi, shape, generator=g, dtype=dtype)
