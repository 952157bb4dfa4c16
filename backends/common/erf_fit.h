// erf_fit.h: the coefficients of the backends' float32 erf (gelu's), a branch-free form of our own fit
// (weighted least squares in float64):
//   |x| < 1:  erf(x) = x + x q(x^2),                  q of degree 6 (erfQ(k): x^k)
//   |x| >= 1: erf(x) = sign(x) (1 - 2^r(min(|x|, 4))), r of degree 7 (erfR(k)) fitting log2(erfc) over [1, 4]
// (1 - erfc(4) rounds to 1 in float32). Evaluated in float32 with fused multiply-adds (Horner) and an
// exact 2^r, within ~1.1 ulp of float64's erf over [-6, 6]; an approximate 2^r of relative error e adds
// e erfc(|x|) <= 0.16 e. NaN stays NaN when the clamp is written `|x| > 4 ? 4 : |x|`; +-inf give +-1.
#pragma once

namespace infini::erf_fit {

// (functions rather than arrays: constexpr functions are usable in CUDA device code, where nvcc folds
// them in an unrolled loop; namespace-scope arrays are host variables there)
constexpr int kQTerms = 7, kRTerms = 8;
constexpr float erfQ(int k) {
    constexpr float c[kQTerms] = {1.283791661e-01f, -3.761262596e-01f, 1.128358245e-01f, -2.685369179e-02f,
                                  5.188099574e-03f, -8.008191944e-04f, 7.847261440e-05f};
    return c[k];
}
constexpr float erfR(int k) {
    constexpr float c[kRTerms] = {4.426846499e-05f, -1.628622770e+00f, -9.154393673e-01f, -1.544961780e-01f,
                                  3.523446620e-02f, -5.675721448e-03f, 5.643122713e-04f,  -2.570559627e-05f};
    return c[k];
}
constexpr float kErfSplit = 1.0f, kErfClamp = 4.0f;

}  // namespace infini::erf_fit
