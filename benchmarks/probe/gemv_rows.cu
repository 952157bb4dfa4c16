// gemv_rows.cu: the row-major few-rows gemm kernel of backends/nvidia/ops/gemv.cu (included here whole) under
// other geometries and numbers of K slices, built by nvcc at run time into a torch-free library that
// gemv_rows.py calls through ctypes (no package build needed). Also the dot-product kernel, as gemv.cu launches it.
#include "../../backends/nvidia/ops/gemv.cu"

namespace infini::nvidia::ops {
infiniStatus_t launched(const char *op) {
    cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? INFINI_STATUS_SUCCESS : fail(INFINI_STATUS_INTERNAL_ERROR, "%s: %s", op, cudaGetErrorString(err));
}
namespace {
template <typename T, int CT, int NT>
int rowsWith(const GemvArgs &p, int slices) {
    constexpr int C = CT * kVec16<T>;
    auto kern = gemvRowsKernel<T, 1, CT, NT>;
    if (slices > 8) cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    const long long col_blocks = (p.N + C - 1) / C;
    const long long k_slice = (p.K + slices - 1) / slices;
    dim3 grid(static_cast<unsigned>(slices), static_cast<unsigned>(col_blocks), 1);
    return static_cast<int>(launchClusters(kern, grid, NT, 0, slices > 1 ? slices : 0, nullptr, p, k_slice));
}
template <typename T>
int rowsT(int ct, int nt, const GemvArgs &p, int slices) {
    if (ct == 4 && nt == 128) return rowsWith<T, 4, 128>(p, slices);
    if (ct == 4 && nt == 256) return rowsWith<T, 4, 256>(p, slices);
    if (ct == 8 && nt == 128) return rowsWith<T, 8, 128>(p, slices);
    if (ct == 8 && nt == 256) return rowsWith<T, 8, 256>(p, slices);
    if (ct == 8 && nt == 512) return rowsWith<T, 8, 512>(p, slices);
    return -1;
}
}  // namespace
}  // namespace infini::nvidia::ops

using namespace infini::nvidia::ops;

// 1 x K times K x N (row-major B when rows != 0, else B as [N, K]); f32: float32, else bfloat16. slices 0: as gemv.cu.
extern "C" int gv_launch(int rows, int f32, int ct, int nt, int slices, long long N, long long K, const void *a,
                         const void *b, void *c) {
    GemvArgs p{1, N, K, 1, a, K, 0, b, rows ? N : K, 0, rows != 0, c, N, 0, 1.0f, 0.0f};
    if (!rows || slices == 0) {
        infiniStatus_t s = f32 ? launchGemv(INFINI_DTYPE_F32, p, nullptr) : launchGemv(INFINI_DTYPE_BF16, p, nullptr);
        return s == INFINI_STATUS_SUCCESS ? 0 : 1000 + static_cast<int>(s);
    }
    return f32 ? rowsT<float>(ct, nt, p, slices) : rowsT<__nv_bfloat16>(ct, nt, p, slices);
}
