// gemm.cpp: gemm (and so linear) through cuBLASLt: tensor cores for float16/bfloat16, float32 in full
// precision (no TF32, as torch by default), float32 accumulation; a few rows of A (decode) through the
// kernels of gemv.cu where those are faster. Row-major C = A B is computed as the
// column-major C^T = B^T A^T, each operand read in place whether it is row- or column-major; batched
// 3-D operands use strided batches (stride 0 broadcasts). c_in is first copied into C (scaled by 1),
// then accumulated with beta.
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "ops.h"

#ifdef INFINI_HAVE_CUBLASLT
#include <cublasLt.h>
#endif

namespace infini::nvidia::ops {

#ifndef INFINI_HAVE_CUBLASLT

infiniStatus_t makeGemm(const infiniopOpParams_t &, int, Made *) {
    return fail(INFINI_STATUS_NOT_IMPLEMENTED, "gemm: the nvidia backend was built without cuBLASLt (no cublasLt.h)");
}

#else

namespace {

constexpr size_t kWorkspace = 32u << 20;

infiniStatus_t ltFail(cublasStatus_t s, const char *what) {
    return fail(INFINI_STATUS_INTERNAL_ERROR, "gemm: %s failed (cublas status %d)", what, static_cast<int>(s));
}

#define LT_RETURN(expr)                                            \
    do {                                                           \
        cublasStatus_t s_ = (expr);                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) return ltFail(s_, #expr); \
    } while (0)

// One cuBLASLt handle per device, made on first use.
infiniStatus_t handleFor(int device, cublasLtHandle_t *out) {
    static std::mutex mu;
    static std::vector<cublasLtHandle_t> handles;
    std::lock_guard<std::mutex> lock(mu);
    if (static_cast<int>(handles.size()) <= device) handles.resize(device + 1, nullptr);
    if (handles[device] == nullptr) LT_RETURN(cublasLtCreate(&handles[device]));
    *out = handles[device];
    return INFINI_STATUS_SUCCESS;
}

struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo16{}, algo_any{};
    bool has16 = false, has_any = false;
    ~Plan() {
        if (a) cublasLtMatrixLayoutDestroy(a);
        if (b) cublasLtMatrixLayoutDestroy(b);
        if (c) cublasLtMatrixLayoutDestroy(c);
        if (op) cublasLtMatmulDescDestroy(op);
    }
};

infiniStatus_t makeLayout(cublasLtMatrixLayout_t *out, cudaDataType_t type, long long rows, long long cols,
                          long long ld, long long batch, long long batch_stride) {
    if (ld < rows) ld = rows;
    if (ld < 1) ld = 1;
    LT_RETURN(cublasLtMatrixLayoutCreate(out, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld));
    if (batch > 1) {
        int32_t count = static_cast<int32_t>(batch);
        int64_t stride = batch_stride;
        LT_RETURN(cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
        LT_RETURN(cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                   sizeof(stride)));
    }
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

infiniStatus_t makeGemm(const infiniopOpParams_t &p, int device, Made *m) {
    const char *op = "gemm";
    Layout c = layoutOf(p.tensors[0]), a = layoutOf(p.tensors[1]), b = layoutOf(p.tensors[2]);
    bool has_cin = p.tensors[3] != nullptr;
    Layout cin = layoutOf(p.tensors[3]);
    float alpha = static_cast<float>(p.f[0]), beta = static_cast<float>(p.f[1]);
    INFINI_RETURN_IF_ERROR(checks::gemm(c, a, b, cin, has_cin));
    size_t nd = c.ndim();
    long long M = a.shape[nd - 2], K = a.shape[nd - 1], N = b.shape[nd - 1];
    long long batch = nd == 3 ? static_cast<long long>(c.shape[0]) : 1;
    if (!isFloatType(a.dtype))
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: dtype %d is not float32, float16 or bfloat16", op, a.dtype);
    long long c_si = c.strides[nd - 2];
    if (M <= 1) c_si = N;
    // an operand is row-major (stride 1 along its columns) or column-major (stride 1 along its rows)
    auto orient = [&](const Layout &t, long long rows, long long cols, bool *row_major, long long *ld) {
        long long si = t.strides[nd - 2], sj = t.strides[nd - 1];
        if (cols <= 1) sj = 1;
        if (rows <= 1) si = cols;
        if (sj == 1) {
            *row_major = true;
            *ld = si;
            return true;
        }
        if (si == 1) {
            *row_major = false;
            *ld = sj;
            return true;
        }
        return false;
    };
    bool a_row, b_row;
    long long lda, ldb;
    if (!orient(a, M, K, &a_row, &lda) || !orient(b, K, N, &b_row, &ldb)) {
        return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "%s: a and b need stride 1 in one of their last two dimensions",
                    op);
    }
    cudaDataType_t type =
        a.dtype == INFINI_DTYPE_F32 ? CUDA_R_32F : (a.dtype == INFINI_DTYPE_F16 ? CUDA_R_16F : CUDA_R_16BF);
    long long elem = a.dtype == INFINI_DTYPE_F32 ? 4 : 2;
    auto plan = std::make_shared<Plan>();
    LT_RETURN(cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    // column-major frame: D (N x M) = A' (N x K) B' (K x M), A' = b, B' = a
    cublasOperation_t op_a = b_row ? CUBLAS_OP_N : CUBLAS_OP_T, op_b = a_row ? CUBLAS_OP_N : CUBLAS_OP_T;
    LT_RETURN(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
    LT_RETURN(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
    long long bs_a = nd == 3 ? a.strides[0] : 0, bs_b = nd == 3 ? b.strides[0] : 0, bs_c = nd == 3 ? c.strides[0] : 0;
    INFINI_RETURN_IF_ERROR(b_row ? makeLayout(&plan->a, type, N, K, ldb, batch, bs_b)
                                 : makeLayout(&plan->a, type, K, N, ldb, batch, bs_b));
    INFINI_RETURN_IF_ERROR(a_row ? makeLayout(&plan->b, type, K, M, lda, batch, bs_a)
                                 : makeLayout(&plan->b, type, M, K, lda, batch, bs_a));
    INFINI_RETURN_IF_ERROR(makeLayout(&plan->c, type, N, M, c_si, batch, bs_c));
    // 1-4 rows of A (decode): the memory-bound kernels of gemv.cu where they measured faster than cuBLASLt,
    // and the sizes and strides fit them. k-contiguous B (linear's weight): 1 row, and float32 2-4 rows
    // (16-bit 2-4 rows: no faster). Row-major B: 16-bit 1 row from 32M elements, float32 2-4 rows from 16M.
    GemvArgs few{M, N, K, batch, nullptr, lda, bs_a, nullptr, ldb, bs_b, b_row, nullptr, c_si, bs_c, alpha, 0.0f};
    const bool wide = a.dtype == INFINI_DTYPE_F32;
    const long long weights = K * N;
    const bool faster =
        b_row ? (wide ? (M >= 2 && weights >= (1LL << 24)) : (M == 1 && weights >= (1LL << 25))) : (M == 1 || wide);
    const bool use_few = faster && a_row && gemvFits(few, static_cast<int>(elem));
    // cuBLASLt then serves only operands off 16-byte alignment (its pass-1 algorithm): one that needs no
    // workspace, so that the decode call allocates none
    const size_t workspace = use_few ? 0 : kWorkspace;
    cublasLtHandle_t lt = nullptr;
    INFINI_RETURN_IF_ERROR(handleFor(device, &lt));
    if (M > 0 && N > 0 && K > 0) {
        for (int pass = use_few ? 1 : 0; pass < 2; ++pass) {
            cublasLtMatmulPreference_t pref;
            LT_RETURN(cublasLtMatmulPreferenceCreate(&pref));
            size_t ws = workspace;
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
            uint32_t align = pass == 0 ? 16u : static_cast<uint32_t>(elem);
            for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
                cublasLtMatmulPreferenceSetAttribute(pref, attr, &align, sizeof(align));
            }
            // split-K partial sums reduced in float32 only (a bfloat16/float16 reduction loses bits torch keeps)
            uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
                                                 sizeof(schemes));
            cublasLtMatmulHeuristicResult_t result{};
            int found = 0;
            cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, plan->op, plan->a, plan->b, plan->c, plan->c, pref,
                                                               1, &result, &found);
            cublasLtMatmulPreferenceDestroy(pref);
            if (st == CUBLAS_STATUS_SUCCESS && found > 0) {
                if (pass == 0) {
                    plan->algo16 = result.algo;
                    plan->has16 = true;
                } else {
                    plan->algo_any = result.algo;
                    plan->has_any = true;
                }
            }
        }
        if (!plan->has16 && !plan->has_any) {
            return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: cuBLASLt has no algorithm for %s @ %s", op, a.str().c_str(),
                        b.str().c_str());
        }
    }
    Dims dc{}, dcin{};
    dimsOf(c, &dc);
    if (has_cin) dimsOf(cin, &dcin);
    long long numel = static_cast<long long>(c.numel());
    infiniDtype_t dtype = a.dtype;
    m->workspace = workspace;
    m->launch = [=](const LaunchArgs &x) {
        void *pc = x.data[0];
        const void *pa = x.data[1], *pb = x.data[2], *pcin = has_cin ? x.data[3] : nullptr;
        if (M == 0 || N == 0) return INFINI_STATUS_SUCCESS;
        float beta_run = 0.0f;
        if (pcin != nullptr && beta != 0.0f) {
            if (K == 0) return launchScaleCopy(dtype, pc, dc, pcin, dcin, numel, beta, x.stream);
            if (pcin != pc) INFINI_RETURN_IF_ERROR(launchScaleCopy(dtype, pc, dc, pcin, dcin, numel, 1.0f, x.stream));
            beta_run = beta;
        } else if (K == 0) {
            return launchScaleCopy(dtype, pc, dc, nullptr, dc, numel, 0.0f, x.stream);
        }
        const bool ab16 = ((reinterpret_cast<uintptr_t>(pa) | reinterpret_cast<uintptr_t>(pb)) & 15) == 0;
        if (use_few && ab16) {
            GemvArgs g = few;
            g.a = pa;
            g.b = pb;
            g.c = pc;
            g.beta = beta_run;
            return launchGemv(dtype, g, x.stream);
        }
        const bool al16 = ab16 && (reinterpret_cast<uintptr_t>(pc) & 15) == 0;
        const cublasLtMatmulAlgo_t *algo =
            al16 && plan->has16 ? &plan->algo16 : (plan->has_any ? &plan->algo_any : nullptr);
        if (algo == nullptr)
            return fail(INFINI_STATUS_NOT_IMPLEMENTED, "gemm: no cuBLASLt algorithm for these pointers' alignment");
        LT_RETURN(cublasLtMatmul(lt, plan->op, &alpha, pb, plan->a, pa, plan->b, &beta_run, pc, plan->c, pc, plan->c,
                                 algo, x.workspace, x.workspace_size, x.stream));
        return INFINI_STATUS_SUCCESS;
    };
    return INFINI_STATUS_SUCCESS;
}

#endif

}  // namespace infini::nvidia::ops
