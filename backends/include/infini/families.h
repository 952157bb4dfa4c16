/* families.h: the generic kernel families of infiniop.
 *
 * A backend that implements these few families runs most of PyTorch's aten operators on its device: the torch
 * glue (csrc/aten) maps hundreds of aten overloads onto them. Every family is one call that takes its whole
 * geometry by value (no descriptor to create or cache), queues the work on `stream` and returns:
 *
 *     infiniopPointwise(handle, &args, stream)
 *
 * Conventions shared by every family:
 * - Operands are strided N-d views of device memory on the handle's device. Strides are in ELEMENTS of the
 *   operand's own dtype and may be 0 (broadcast) or negative (a reversed view; data points at element 0).
 * - An "iteration space" (infiniopIter_t) is what at::TensorIterator produces after broadcasting, type promotion
 *   and dim coalescing: one shape, and per operand its data pointer, dtype and strides. Dim 0 varies fastest.
 *   Outputs come first. Output elements never overlap each other (the glue guarantees it); inputs may alias
 *   outputs element for element (in-place ops).
 * - `compute` is the dtype the arithmetic runs in: F32 (for F16, BF16 and F32 operands), F64, or I64 (for every
 *   integer and bool operand). Each input is converted to it on load and each output from it on store, exactly as
 *   a C cast would (float to int truncates toward zero; a value converted to BOOL is `value != 0`).
 * - Index operands are I32 or I64. An index out of its range is never read or written through: the element is
 *   skipped and the backend records a device error, reported by the next call that synchronizes with the device
 *   (INFINI_STATUS_BAD_PARAM, "index out of range").
 * - Shapes of 0 elements are valid and queue nothing.
 * - The call checks what it can on the host (dims, operand counts, dtypes) and returns BAD_PARAM /
 *   BAD_TENSOR_DTYPE / NOT_IMPLEMENTED with a message; then nothing was queued and no operand was written. */
#ifndef INFINI_FAMILIES_H_
#define INFINI_FAMILIES_H_

#include "infinirt.h"

struct InfiniopHandle;

#define INFINIOP_MAX_DIMS 12
#define INFINIOP_MAX_OPERANDS 8

/* ------------------------------------------------------------------------------------------------------------
 * Operands */

/* A strided iteration space over `noperands` operands of one shape (see the conventions above). */
typedef struct {
    int32_t ndim; /* 0: one element */
    int32_t noperands;
    int64_t shape[INFINIOP_MAX_DIMS];
    void *data[INFINIOP_MAX_OPERANDS];
    infiniDtype_t dtype[INFINIOP_MAX_OPERANDS];
    int64_t strides[INFINIOP_MAX_OPERANDS][INFINIOP_MAX_DIMS];
} infiniopIter_t;

/* One strided tensor (dims in the tensor's own order: dim ndim-1 is the last, as in torch). */
typedef struct {
    int32_t ndim;
    infiniDtype_t dtype;
    void *data;
    int64_t shape[INFINIOP_MAX_DIMS];
    int64_t strides[INFINIOP_MAX_DIMS];
} infiniopTensor_t;

/* ------------------------------------------------------------------------------------------------------------
 * Pointwise: out_k[i] = op(in_0[i], in_1[i], ...) over an iteration space.
 * x, y, z, w: the inputs in order (operands noutputs, noutputs+1, ...); s0..s3: args.f (F32/F64 compute) or
 * args.i (I64 compute) - both are filled by the glue, the kernel reads the one of its compute type.
 * Ops marked "float" are only called with a float compute dtype, "int" with I64. */
typedef enum {
    /* unary (one input) */
    INFINIOP_PW_COPY = 0, /* x (with the dtype conversions above: a cast when dtypes differ) */
    INFINIOP_PW_NEG,
    INFINIOP_PW_ABS,
    INFINIOP_PW_SIGN, /* -1, 0, 1 (NaN gives 0) */
    INFINIOP_PW_SQUARE,
    INFINIOP_PW_RECIPROCAL, /* float */
    INFINIOP_PW_SQRT,       /* float */
    INFINIOP_PW_RSQRT,      /* float */
    INFINIOP_PW_EXP,        /* float */
    INFINIOP_PW_EXP2,       /* float */
    INFINIOP_PW_EXPM1,      /* float */
    INFINIOP_PW_LOG,        /* float */
    INFINIOP_PW_LOG2,       /* float */
    INFINIOP_PW_LOG10,      /* float */
    INFINIOP_PW_LOG1P,      /* float */
    INFINIOP_PW_SIN,        /* float: the trigonometric and hyperbolic functions */
    INFINIOP_PW_COS,
    INFINIOP_PW_TAN,
    INFINIOP_PW_ASIN,
    INFINIOP_PW_ACOS,
    INFINIOP_PW_ATAN,
    INFINIOP_PW_SINH,
    INFINIOP_PW_COSH,
    INFINIOP_PW_TANH,
    INFINIOP_PW_ASINH,
    INFINIOP_PW_ACOSH,
    INFINIOP_PW_ATANH,
    INFINIOP_PW_SIGMOID,  /* float */
    INFINIOP_PW_ERF,      /* float */
    INFINIOP_PW_ERFC,     /* float */
    INFINIOP_PW_ERFINV,   /* float */
    INFINIOP_PW_LGAMMA,   /* float */
    INFINIOP_PW_DIGAMMA,  /* float */
    INFINIOP_PW_FLOOR,    /* float */
    INFINIOP_PW_CEIL,     /* float */
    INFINIOP_PW_ROUND,    /* float: half to even; with s0 = decimals != 0: round(x * 10^s0) / 10^s0 */
    INFINIOP_PW_TRUNC,    /* float */
    INFINIOP_PW_FRAC,     /* float: x - trunc(x) */
    INFINIOP_PW_RELU,     /* max(x, 0) (NaN stays NaN) */
    INFINIOP_PW_GELU,     /* float: s0 (args.i[0]) 0: erf form, 1: tanh form */
    INFINIOP_PW_SILU,     /* float */
    INFINIOP_PW_MISH,     /* float */
    INFINIOP_PW_SOFTPLUS, /* float: beta s0, threshold s1: x * beta > threshold ? x : log1p(exp(x * beta)) / beta */
    INFINIOP_PW_ELU, /* float: alpha s0, scale s1, input_scale s2: x > 0 ? x * scale : alpha * scale * expm1(x * input_scale) */
    INFINIOP_PW_LEAKY_RELU,  /* float: x > 0 ? x : x * s0 */
    INFINIOP_PW_HARDSIGMOID, /* float */
    INFINIOP_PW_HARDSWISH,   /* float */
    INFINIOP_PW_LOGIT,       /* float: s0 = eps (< 0: none): log(z / (1 - z)), z = clamp(x, eps, 1 - eps) */
    INFINIOP_PW_ISNAN,       /* float; output BOOL */
    INFINIOP_PW_ISINF,       /* float; output BOOL */
    INFINIOP_PW_ISPOSINF,    /* float; output BOOL */
    INFINIOP_PW_ISNEGINF,    /* float; output BOOL */
    INFINIOP_PW_ISFINITE,    /* float; output BOOL */
    INFINIOP_PW_SIGNBIT,     /* float; output BOOL */
    INFINIOP_PW_LOGICAL_NOT, /* output BOOL */
    INFINIOP_PW_BITWISE_NOT, /* int: ~x (for BOOL the glue calls LOGICAL_NOT) */
    INFINIOP_PW_NAN_TO_NUM,  /* float: NaN -> s0, +inf -> s1, -inf -> s2 */
    INFINIOP_PW_POW_SCALAR,  /* x ^ s0 (int: s0 >= 0, by squaring) */
    INFINIOP_PW_RPOW_SCALAR, /* s0 ^ x */
    INFINIOP_PW_CLAMP,       /* clamp(x, s0, s1); args.i[2] bit 0: has min, bit 1: has max (int compute: i[0], i[1]);
                               NaN x stays NaN; a NaN bound gives NaN */
    INFINIOP_PW_FILL,        /* no input: s0 */
    INFINIOP_PW_IOTA,        /* no input, 1-d: s0 + k * s1 for the k-th element */
    INFINIOP_PW_ADD_SCALAR,  /* x + s0 (the glue's shortcut for wrapped numbers) */
    INFINIOP_PW_MUL_SCALAR,  /* x * s0 */

    /* binary (two inputs) */
    INFINIOP_PW_ADD = 100, /* x + s0 * y (s0 = alpha) */
    INFINIOP_PW_SUB,       /* x - s0 * y */
    INFINIOP_PW_MUL,
    INFINIOP_PW_DIV,       /* true division (float) */
    INFINIOP_PW_DIV_TRUNC, /* float: trunc(x / y); int: C division (y == 0 gives 0, no trap) */
    INFINIOP_PW_DIV_FLOOR, /* float: floor(x / y) as Python; int: floor division (y == 0 gives 0) */
    INFINIOP_PW_REMAINDER, /* Python's %: result has the sign of y (int y == 0 gives 0) */
    INFINIOP_PW_FMOD,      /* C's fmod / %: sign of x (int y == 0 gives 0) */
    INFINIOP_PW_POW,       /* x ^ y (int: y >= 0 by squaring; y < 0 gives 0 except x = 1 / -1) */
    INFINIOP_PW_ATAN2,     /* float */
    INFINIOP_PW_HYPOT,     /* float */
    INFINIOP_PW_COPYSIGN,  /* float */
    INFINIOP_PW_XLOGY,     /* float: x == 0 ? 0 : x * log(y) (NaN y gives NaN) */
    INFINIOP_PW_MAXIMUM,   /* NaN-propagating max */
    INFINIOP_PW_MINIMUM,
    INFINIOP_PW_FMAX, /* NaN-ignoring max */
    INFINIOP_PW_FMIN,
    INFINIOP_PW_EQ, /* comparisons: output BOOL, compared in the compute dtype */
    INFINIOP_PW_NE,
    INFINIOP_PW_LT,
    INFINIOP_PW_LE,
    INFINIOP_PW_GT,
    INFINIOP_PW_GE,
    INFINIOP_PW_LOGICAL_AND, /* output BOOL */
    INFINIOP_PW_LOGICAL_OR,
    INFINIOP_PW_LOGICAL_XOR,
    INFINIOP_PW_BITWISE_AND, /* int */
    INFINIOP_PW_BITWISE_OR,
    INFINIOP_PW_BITWISE_XOR,
    INFINIOP_PW_LSHIFT, /* int: x << y in I64, then stored (a shift past the dtype's width gives 0) */
    INFINIOP_PW_RSHIFT, /* int: arithmetic x >> y in I64 (y < 0 or >= 64: the sign fill) */
    /* backward forms: x = grad, y = the forward's input (or output, where marked) */
    INFINIOP_PW_SILU_BWD,
    INFINIOP_PW_GELU_BWD,    /* s0 (args.i[0]) 0: erf form, 1: tanh form */
    INFINIOP_PW_SIGMOID_BWD, /* y = forward output: x * y * (1 - y) */
    INFINIOP_PW_TANH_BWD,    /* y = forward output: x * (1 - y * y) */
    INFINIOP_PW_THRESHOLD, /* x <= s0 ? s1 : y (threshold: THRESHOLD(x, x); relu's backward THRESHOLD(x, grad, 0, 0)) */
    INFINIOP_PW_LEAKY_RELU_BWD, /* x = the forward input (or output), y = grad: x > 0 ? y : y * s0 */
    INFINIOP_PW_ELU_BWD,        /* s0..s2 as ELU; y = the forward input, or its output when args.i[3] is 1 */
    INFINIOP_PW_SOFTPLUS_BWD,   /* y = forward input; s0 beta, s1 threshold */
    INFINIOP_PW_HARDSIGMOID_BWD,
    INFINIOP_PW_HARDSWISH_BWD,
    INFINIOP_PW_MISH_BWD,
    INFINIOP_PW_LOGIT_BWD, /* s0 = eps (< 0: none) */

    /* ternary (three inputs) */
    INFINIOP_PW_WHERE = 200,  /* x (BOOL condition) ? y : z */
    INFINIOP_PW_LERP,         /* x + z * (y - x) (z = weight tensor) */
    INFINIOP_PW_LERP_SCALAR,  /* two inputs: x + s0 * (y - x) */
    INFINIOP_PW_ADDCMUL,      /* x + s0 * y * z */
    INFINIOP_PW_ADDCDIV,      /* x + s0 * y / z */
    INFINIOP_PW_CLAMP_TENSOR, /* clamp(x, y, z); args.i[2] bit 0: y is a min (else absent: 2 inputs x, z),
                                 bit 1: z is a max. With one bound the bound is the second input */
    INFINIOP_PW_HARDTANH_BWD, /* two inputs: y (forward input) <= s0 || y >= s1 ? 0 : x */

    /* optimizer steps: several outputs updated in place (they also appear as inputs) */
    INFINIOP_PW_ADAMW = 300, /* outputs param, exp_avg, exp_avg_sq[, max_exp_avg_sq]; inputs the same again, then
                                 grad, step (F32, broadcast). f[0] lr, f[1] beta1, f[2] beta2, f[3] eps; args.wd,
                                 args.flags bit 0: amsgrad, bit 1: maximize, bit 2: decoupled weight decay (AdamW;
                                 else Adam's L2). */
    INFINIOP_PW_OP_END
} infiniopPointwiseOp_t;

typedef struct {
    infiniopPointwiseOp_t op;
    infiniDtype_t compute; /* F32, F64 or I64 */
    int32_t noutputs;      /* 1, or more for the optimizer steps */
    int32_t flags;
    double f[4];  /* scalars for a float compute dtype */
    int64_t i[4]; /* scalars for I64 compute (and integer options of float ops) */
    double wd;    /* ADAMW's weight decay */
    /* An input operand whose data is NULL is a constant (a wrapped number): cf[k] for a float compute dtype,
     * ci[k] for I64, in place of every element (its dtype and strides are ignored). */
    double cf[INFINIOP_MAX_OPERANDS];
    int64_t ci[INFINIOP_MAX_OPERANDS];
    infiniopIter_t iter;
} infiniopPointwiseArgs_t;

/* ------------------------------------------------------------------------------------------------------------
 * Reduce: each output element combines the input elements that map onto it. The iteration space has the input's
 * shape; outputs have stride 0 along the reduced dims (a dim with stride 0 in output 0 and extent > 1 is reduced).
 * Operands: outputs (1 or 2), then the input. Accumulation in the compute dtype (F32 for 16-bit floats). */
typedef enum {
    INFINIOP_REDUCE_SUM = 0,
    INFINIOP_REDUCE_PROD,
    INFINIOP_REDUCE_MEAN, /* sum / (number of reduced elements) */
    INFINIOP_REDUCE_MAX,  /* NaN-propagating; one output (values) */
    INFINIOP_REDUCE_MIN,
    INFINIOP_REDUCE_ARGMAX, /* output I64: the coordinate along the one reduced dim; first of ties, first NaN */
    INFINIOP_REDUCE_ARGMIN,
    INFINIOP_REDUCE_MAX_INDEX, /* two outputs: values, I64 indices (as ARGMAX) */
    INFINIOP_REDUCE_MIN_INDEX,
    INFINIOP_REDUCE_ANY, /* output BOOL or U8 */
    INFINIOP_REDUCE_ALL,
    INFINIOP_REDUCE_NORM,      /* f[0] = p: (sum |x|^p)^(1/p); p = inf: max |x|, -inf: min |x|, 0: count != 0 */
    INFINIOP_REDUCE_VAR,       /* f[0] = correction; two outputs when noutputs = 2: var, mean */
    INFINIOP_REDUCE_STD,       /* as VAR, sqrt of the variance */
    INFINIOP_REDUCE_LOGSUMEXP, /* float */
    INFINIOP_REDUCE_NANSUM,
    INFINIOP_REDUCE_COUNT_NONZERO, /* output I64 */
    INFINIOP_REDUCE_OP_END
} infiniopReduceOp_t;

typedef struct {
    infiniopReduceOp_t op;
    infiniDtype_t compute;
    int32_t noutputs;
    int32_t flags;
    double f[2];
    infiniopIter_t iter;
} infiniopReduceArgs_t;

/* ------------------------------------------------------------------------------------------------------------
 * Scan along one dim: out[..., j, ...] = combine(in[..., 0..j, ...]). iter is not coalesced across `dim`: every
 * operand has the same shape, and iter dim `dim` is the scanned one. Operands: values out [, I64 indices out for
 * CUMMAX / CUMMIN], input. */
typedef enum {
    INFINIOP_SCAN_CUMSUM = 0,
    INFINIOP_SCAN_CUMPROD,
    INFINIOP_SCAN_CUMMAX, /* two outputs: values, indices (last index of ties, as torch) */
    INFINIOP_SCAN_CUMMIN,
    INFINIOP_SCAN_LOGCUMSUMEXP, /* float */
    INFINIOP_SCAN_OP_END
} infiniopScanOp_t;

typedef struct {
    infiniopScanOp_t op;
    infiniDtype_t compute;
    int32_t dim;
    int32_t noutputs;
    infiniopIter_t iter;
} infiniopScanArgs_t;

/* ------------------------------------------------------------------------------------------------------------
 * Sort and top-k along dim `dim` of `in`; values and indices (I64) have in's shape except along dim, where they
 * have `k` elements (SORT: k = in's extent). NaN sorts as larger than every number. SORT with `stable` keeps the
 * order of equal elements; TOPK returns them sorted (descending for largest, ascending otherwise) when `sorted`. */
typedef enum { INFINIOP_SORT_SORT = 0, INFINIOP_SORT_TOPK, INFINIOP_SORT_OP_END } infiniopSortOp_t;

typedef struct {
    infiniopSortOp_t op;
    int32_t dim;
    int32_t descending; /* SORT: descending; TOPK: largest */
    int32_t stable;
    int32_t sorted;
    int64_t k;
    infiniopTensor_t values; /* data may be NULL: indices only (argsort) */
    infiniopTensor_t indices;
    infiniopTensor_t in;
} infiniopSortArgs_t;

/* ------------------------------------------------------------------------------------------------------------
 * Index: gathers and scatters through index operands. Operands of iter: dst, src, idx_0 .. idx_{n-1}.
 * With off(i) = sum_k idx_k[i] * index_stride[k] (elements; a negative index adds index_size[k] when
 * `wrap_negative`, and an index outside [0, index_size[k]) is an error, see the conventions):
 *   GATHER:        dst[i] = src[i + off(i)]         (src's strides address its base element for i)
 *   SCATTER:       dst[i + off(i)] = src[i]         (duplicates: one of the values, unspecified which)
 *   SCATTER_ADD:   dst[i + off(i)] += src[i]        (atomic where duplicates meet)
 *   SCATTER_MUL / SCATTER_AMAX / SCATTER_AMIN: likewise
 * dst and src may differ in dtype only for GATHER and SCATTER (a cast). */
#define INFINIOP_MAX_INDICES 6
typedef enum {
    INFINIOP_INDEX_GATHER = 0,
    INFINIOP_INDEX_SCATTER,
    INFINIOP_INDEX_SCATTER_ADD,
    INFINIOP_INDEX_SCATTER_MUL,
    INFINIOP_INDEX_SCATTER_AMAX,
    INFINIOP_INDEX_SCATTER_AMIN,
    INFINIOP_INDEX_OP_END
} infiniopIndexOp_t;

typedef struct {
    infiniopIndexOp_t op;
    int32_t nindices;
    int32_t wrap_negative;
    int64_t index_size[INFINIOP_MAX_INDICES];
    int64_t index_stride[INFINIOP_MAX_INDICES];
    infiniopIter_t iter;
} infiniopIndexArgs_t;

/* Nonzero: writes the coordinates of the `count` nonzero elements of `in` (row-major order) into `out`, an I64
 * [count, in.ndim] row-major array. `count` is what an INFINIOP_REDUCE_COUNT_NONZERO of `in` gave. */
typedef struct {
    infiniopTensor_t in;
    int64_t *out;
    int64_t count;
} infiniopNonzeroArgs_t;

/* ------------------------------------------------------------------------------------------------------------
 * Random: fills output 0 of iter from a counter-based generator. Element k of the iteration space (dim 0 fastest)
 * takes the k-th value of the stream (seed, offset): the same seed, offset and iteration space give the same values
 * on every call of one backend. The glue advances its offset by the number of elements after each call.
 * Operands: out [, p (BERNOULLI_TENSOR)]. */
typedef enum {
    INFINIOP_RANDOM_UNIFORM = 0,      /* [f0, f1) */
    INFINIOP_RANDOM_NORMAL,           /* mean f0, std f1 */
    INFINIOP_RANDOM_BERNOULLI,        /* 1 with probability f0, else 0 */
    INFINIOP_RANDOM_BERNOULLI_TENSOR, /* 1 with probability p[i] */
    INFINIOP_RANDOM_EXPONENTIAL,      /* rate f0 */
    INFINIOP_RANDOM_RANDINT,          /* integers in [i0, i1); i1 - i0 is taken modulo 2^64 (0: all 2^64 values) */
    INFINIOP_RANDOM_GEOMETRIC,        /* success probability f0: the trial count, from 1 */
    INFINIOP_RANDOM_CAUCHY,           /* median f0, sigma f1 */
    INFINIOP_RANDOM_LOG_NORMAL,       /* exp of normal(f0, f1) */
    INFINIOP_RANDOM_OP_END
} infiniopRandomOp_t;

typedef struct {
    infiniopRandomOp_t op;
    int32_t reserved;
    uint64_t seed;
    uint64_t offset;
    double f[2];
    int64_t i[2];
    infiniopIter_t iter;
} infiniopRandomArgs_t;

/* ------------------------------------------------------------------------------------------------------------
 * Rows: softmax-like operations over the middle dim of a contiguous [outer, n, inner] view. Inputs and outputs are
 * contiguous in that view (the glue makes them so); their dtypes may differ (F16/BF16/F32/F64; the math in F32,
 * or F64 for F64). */
typedef enum {
    INFINIOP_ROWS_SOFTMAX = 0,     /* out = softmax(x) */
    INFINIOP_ROWS_LOG_SOFTMAX,     /* out = log_softmax(x) */
    INFINIOP_ROWS_SOFTMAX_BWD,     /* x = grad, y = forward out: out = y * (x - sum(x * y)) */
    INFINIOP_ROWS_LOG_SOFTMAX_BWD, /* out = x - exp(y) * sum(x) */
    INFINIOP_ROWS_OP_END
} infiniopRowsOp_t;

typedef struct {
    infiniopRowsOp_t op;
    int64_t outer, n, inner;
    infiniDtype_t out_dtype, x_dtype, y_dtype;
    void *out;
    const void *x;
    const void *y;
} infiniopRowsArgs_t;

/* Normalization over the last `cols` elements of each of `rows` contiguous rows.
 * LAYER_NORM:     y = (x - mean) * rstd * w + b; writes mean and rstd ([rows], F32 or F64 for F64 rows; may be NULL)
 * RMS_NORM:       y = x * rstd * w, rstd = 1 / sqrt(mean(x^2) + eps); writes rstd (may be NULL)
 * LAYER_NORM_BWD: from dy, x, mean, rstd, w: dx (may be NULL), dw, db (may be NULL; F32 partials reduced inside)
 * RMS_NORM_BWD:   from dy, x, rstd, w: dx, dw
 * w and b may be NULL (no affine). x, y, dy, dx share `dtype`; w, b, dw, db have `w_dtype`. */
typedef enum {
    INFINIOP_NORM_LAYER_NORM = 0,
    INFINIOP_NORM_RMS_NORM,
    INFINIOP_NORM_LAYER_NORM_BWD,
    INFINIOP_NORM_RMS_NORM_BWD,
    INFINIOP_NORM_OP_END
} infiniopNormOp_t;

typedef struct {
    infiniopNormOp_t op;
    int64_t rows, cols;
    double eps;
    infiniDtype_t dtype, w_dtype;
    void *y; /* forward output; backward: dx */
    void *mean;
    void *rstd;
    void *dw;
    void *db;
    const void *x;
    const void *w;
    const void *b;
    const void *dy;
} infiniopNormArgs_t;

/* Negative log-likelihood over log-probabilities `x` of [n, c, d] (contiguous; d = 1 without spatial dims) with
 * targets [n, d] (I64 or I32), optional class weights [c] and ignore_index.
 * FORWARD: reduction 0 none (out [n, d]), 1 mean, 2 sum (out and total_weight 0-d, x's dtype).
 * BACKWARD: grad_input [n, c, d] (zeroed and written) from grad_out ([n, d] or 0-d) and total_weight. */
typedef struct {
    int32_t backward;
    int32_t reduction;
    int64_t n, c, d;
    int64_t ignore_index;
    infiniDtype_t dtype, target_dtype;
    void *out; /* forward: out; backward: grad_input */
    void *total_weight;
    const void *x; /* forward: log-probabilities; backward: grad_out */
    const void *target;
    const void *weight;          /* may be NULL */
    const void *total_weight_in; /* backward: total_weight from the forward */
} infiniopNllLossArgs_t;

/* Scaled dot-product attention, q [b, hq, lq, d], k/v [b, hk, lk, d] (hq a multiple of hk: grouped heads),
 * strided (any strides with the last dim contiguous), F16/BF16/F32. mask: none, or [b|1, hq|1, lq, lk] (strides
 * may be 0), BOOL (true: attend) or additive in q's dtype. causal: query i attends keys j <= i + lk - lq
 * (the top-left aligned form torch uses when lq == lk).
 * FORWARD: out [b, hq, lq, d], lse F32 [b, hq, lq] (may be NULL).
 * BACKWARD: from dout, out, lse: dq, dk, dv (same shapes as q, k, v). A row with no key to attend gives 0. */
typedef struct {
    int32_t backward;
    int32_t causal;
    double scale;
    infiniDtype_t dtype;
    infiniDtype_t mask_dtype; /* INVALID: no mask */
    infiniopTensor_t q, k, v, mask, out, lse;
    infiniopTensor_t dout, dq, dk, dv;
} infiniopSdpaArgs_t;

/* Image windows of [n, c, h, w] tensors (contiguous, F16/BF16/F32/F64; NCHW). h, w is the image (a forward op's
 * input, a backward op's output), oh, ow the grid of windows or output pixels. COL2IM and the _BWD ops zero their
 * output first, then accumulate into it.
 * IM2COL: out [n, c*kh*kw, oh*ow] from x;  COL2IM: out [n, c, h, w] accumulated from cols (zeroed first)
 * MAX_POOL: out and I64 indices (h*w-flat positions) [n, c, oh, ow]; MAX_POOL_BWD: dx from dy and indices
 * AVG_POOL (count_include_pad, divisor_override when nonzero), AVG_POOL_BWD
 * UPSAMPLE_NEAREST, UPSAMPLE_BILINEAR (align_corners; scales as torch computes them) and their _BWD.
 * ADAPTIVE_AVG_POOL and its _BWD: torch's adaptive windows (kernel, stride and padding are unused).
 * 1-d forms use h = 1. */
typedef enum {
    INFINIOP_WINDOW_IM2COL = 0,
    INFINIOP_WINDOW_COL2IM,
    INFINIOP_WINDOW_MAX_POOL,
    INFINIOP_WINDOW_MAX_POOL_BWD,
    INFINIOP_WINDOW_AVG_POOL,
    INFINIOP_WINDOW_AVG_POOL_BWD,
    INFINIOP_WINDOW_UPSAMPLE_NEAREST,
    INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD,
    INFINIOP_WINDOW_UPSAMPLE_BILINEAR,
    INFINIOP_WINDOW_UPSAMPLE_BILINEAR_BWD,
    INFINIOP_WINDOW_ADAPTIVE_AVG_POOL,     /* output cell o averages input rows [floor(o*h/oh), ceil((o+1)*h/oh)) */
    INFINIOP_WINDOW_ADAPTIVE_AVG_POOL_BWD, /* (and likewise along w) */
    INFINIOP_WINDOW_OP_END
} infiniopWindowOp_t;

typedef struct {
    infiniopWindowOp_t op;
    infiniDtype_t dtype;
    int64_t n, c, h, w; /* the image (forward input / backward grad_input) */
    int64_t oh, ow;     /* the output grid */
    int32_t kh, kw, sh, sw, ph, pw, dh, dw;
    int32_t ceil_mode, count_include_pad, align_corners;
    int64_t divisor_override;
    double scale_h, scale_w; /* upsample: input / output ratio torch uses (<= 0: derive from sizes) */
    void *out;
    void *indices; /* MAX_POOL: written; MAX_POOL_BWD: read */
    const void *in;
} infiniopWindowArgs_t;

/* ------------------------------------------------------------------------------------------------------------
 * The calls. Each checks its arguments, then queues the work on `stream` of the handle's device. */
typedef enum {
    INFINIOP_FAMILY_POINTWISE = 0,
    INFINIOP_FAMILY_REDUCE,
    INFINIOP_FAMILY_SCAN,
    INFINIOP_FAMILY_SORT,
    INFINIOP_FAMILY_INDEX,
    INFINIOP_FAMILY_NONZERO,
    INFINIOP_FAMILY_RANDOM,
    INFINIOP_FAMILY_ROWS,
    INFINIOP_FAMILY_NORM,
    INFINIOP_FAMILY_NLL_LOSS,
    INFINIOP_FAMILY_SDPA,
    INFINIOP_FAMILY_WINDOW,
    INFINIOP_FAMILY_COUNT
} infiniopFamily_t;

INFINI_API infiniStatus_t infiniopPointwise(struct InfiniopHandle *handle, const infiniopPointwiseArgs_t *args,
                                            infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopReduce(struct InfiniopHandle *handle, const infiniopReduceArgs_t *args,
                                         infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopScan(struct InfiniopHandle *handle, const infiniopScanArgs_t *args,
                                       infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopSort(struct InfiniopHandle *handle, const infiniopSortArgs_t *args,
                                       infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopIndex(struct InfiniopHandle *handle, const infiniopIndexArgs_t *args,
                                        infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopNonzero(struct InfiniopHandle *handle, const infiniopNonzeroArgs_t *args,
                                          infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopRandom(struct InfiniopHandle *handle, const infiniopRandomArgs_t *args,
                                         infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopRows(struct InfiniopHandle *handle, const infiniopRowsArgs_t *args,
                                       infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopNorm(struct InfiniopHandle *handle, const infiniopNormArgs_t *args,
                                       infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopNllLoss(struct InfiniopHandle *handle, const infiniopNllLossArgs_t *args,
                                          infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopSdpa(struct InfiniopHandle *handle, const infiniopSdpaArgs_t *args,
                                       infinirtStream_t stream);
INFINI_API infiniStatus_t infiniopWindow(struct InfiniopHandle *handle, const infiniopWindowArgs_t *args,
                                         infinirtStream_t stream);

#endif /* INFINI_FAMILIES_H_ */
