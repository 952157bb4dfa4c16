"""The fit behind backends/common/erf_fit.h (49th session): erf(x) = x + x q(x^2) for |x| < 1 (q of degree 6,
weighted to relative error) and 1 - 2^r(|x|) for 1 <= |x| <= 4 (r of degree 7 fitting log2(erfc), weighted by
erfc: the error erf sees), least squares in float64 at Chebyshev points; then the float32 evaluation (fused
multiply-adds, exact 2^r) checked against float64's erf over [-6, 6]. Prints the coefficients and the worst
ulps per range; and the CPU backend's 2^f over [-0.5, 0.5] (degree 6, weighted to relative error: kExp2F in
backends/cpu/ops/elementwise.cpp). Needs numpy."""
import math

import numpy as np
from numpy.polynomial import polynomial as P

erf = np.vectorize(math.erf)
erfc = np.vectorize(math.erfc)


def cheb(lo, hi, n=6000):
    return np.cos(np.linspace(0, np.pi, n)) * ((hi - lo) / 2) + (hi + lo) / 2


def fit_q(deg=6):
    u = cheb(0.0, 1.0)
    x = np.sqrt(u)
    f = np.where(x > 0, erf(x) / np.where(x > 0, x, 1), 2 / math.sqrt(math.pi)) - 1
    return P.polyfit(u, f, deg, w=1 / (1 + f))


def fit_r(deg=7):
    x = cheb(1.0, 4.0)
    w = erfc(x)
    return P.polyfit(x, np.log2(erfc(x)), deg, w=w / w.max() + 1e-3)


def fit_exp2(deg=6):
    f = cheb(-0.5, 0.5)
    return P.polyfit(f, np.exp2(f), deg, w=np.exp2(-f))


def f32(v):
    return np.asarray(v, dtype=np.float64).astype(np.float32)


def fma(a, b, c):  # exact product and sum in float64, one rounding to float32
    return f32(a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64))


def horner(c, v):
    acc = np.full(v.shape, np.float32(c[-1]), np.float32)
    for k in c[-2::-1]:
        acc = fma(acc, v, np.full(v.shape, np.float32(k), np.float32))
    return acc


def erf32(x, q, r):
    ax = np.abs(x)
    u = f32(x.astype(np.float64) ** 2)
    small = fma(x, horner(q, u), x)
    e = f32(np.exp2(horner(r, np.minimum(ax, np.float32(4.0))).astype(np.float64)))
    return np.where(ax < 1, small, np.copysign(f32(1.0 - e.astype(np.float64)), x))


if __name__ == "__main__":
    q, r = fit_q(), fit_r()
    print("kErfQ", ", ".join(f"{np.float32(c):.9e}f" for c in q))
    print("kErfR", ", ".join(f"{np.float32(c):.9e}f" for c in r))
    x = np.concatenate([np.linspace(-6, 6, 2_000_001), np.random.RandomState(0).randn(1_000_000) * 3]).astype(np.float32)
    ref = erf(x.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    err = np.abs(erf32(x, [np.float32(c) for c in q], [np.float32(c) for c in r]).astype(np.float64) - ref) / ulp
    small = np.abs(x) < 1
    print(f"max ulp |x| < 1: {err[small].max():.2f}, |x| >= 1: {err[~small].max():.2f}, mean {err.mean():.3f}")
    e = fit_exp2()
    f = np.linspace(-0.5, 0.5, 200_001).astype(np.float32)
    rel = np.abs(horner([np.float32(c) for c in e], f).astype(np.float64) / np.exp2(f.astype(np.float64)) - 1)
    print("kExp2F", ", ".join(f"{np.float32(c):.9e}f" for c in e), f"(max relative error {rel.max():.2g})")
