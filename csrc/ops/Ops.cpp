// Ops.cpp: the torch.ops.infini implementations for CPU, CUDA and infini tensors. Each op checks
// its arguments (errors name the op and the argument and change nothing), makes its output, and
// runs the infiniop operator through OpRunner. Functional forms allocate; out= forms resize `out`
// as torch does and write into it (through a temporary when its layout cannot take the kernel).
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "../aten/Family.h"
#include "OpRunner.h"

namespace infini_torch::ops {
namespace {

using at::Tensor;

bool isFloat(const Tensor &t) {
    return t.scalar_type() == at::kFloat || t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16;
}

void checkFloat(const char *op, const char *name, const Tensor &t) {
    TORCH_CHECK(isFloat(t), "infini.", op, ": ", name, " must be float32, float16 or bfloat16, got ", t.scalar_type());
}

void checkIndex(const char *op, const char *name, const Tensor &t) {
    TORCH_CHECK(t.scalar_type() == at::kInt || t.scalar_type() == at::kLong, "infini.", op, ": ", name,
                " must be int32 or int64, got ", t.scalar_type());
}

// All defined tensors on one supported device (the CPU or one infini device).
void checkDevices(const char *op, std::initializer_list<std::pair<const char *, const Tensor *>> tensors) {
    const Tensor *ref = nullptr;
    const char *ref_name = nullptr;
    for (auto [name, t] : tensors) {
        if (!t->defined()) continue;
        TORCH_CHECK(t->device().is_cpu() || t->device().is_cuda() || t->device().type() == c10::DeviceType::PrivateUse1,
                    "infini.", op, ": ", name, " is on ", t->device(), "; the ops take CPU, CUDA and infini tensors");
        TORCH_CHECK(t->layout() == at::kStrided, "infini.", op, ": ", name, " must be a strided (dense) tensor");
        if (ref == nullptr) {
            ref = t;
            ref_name = name;
        } else {
            TORCH_CHECK(t->device() == ref->device(), "infini.", op, ": ", name, " is on ", t->device(), " but ",
                        ref_name, " is on ", ref->device());
        }
    }
}

void checkSameDtype(const char *op, const char *name, const Tensor &t, const char *ref_name, const Tensor &ref) {
    TORCH_CHECK(t.scalar_type() == ref.scalar_type(), "infini.", op, ": ", name, " has dtype ", t.scalar_type(),
                " but ", ref_name, " has ", ref.scalar_type());
}

// A weight-like vector: [n], x's dtype or float32.
void checkVector(const char *op, const char *name, const Tensor &w, int64_t n, const Tensor &x) {
    TORCH_CHECK(w.dim() == 1 && w.size(0) == n, "infini.", op, ": ", name, " must have shape [", n, "], got ",
                w.sizes());
    TORCH_CHECK(w.scalar_type() == x.scalar_type() || w.scalar_type() == at::kFloat, "infini.", op, ": ", name,
                " must have x's dtype (", x.scalar_type(), ") or float32, got ", w.scalar_type());
}

Tensor lastContiguous(const Tensor &t) {
    return t.dim() == 0 || t.stride(-1) == 1 || t.size(-1) <= 1 ? t : t.contiguous();
}

bool rowsUsable(const Tensor &out) {
    return (out.dim() == 0 || out.stride(-1) == 1 || out.size(-1) <= 1) &&
           at::has_internal_overlap(out) != at::MemOverlap::Yes;
}

// Resizes out as torch's out= ops do and checks what it must match.
void prepareOut(const char *op, Tensor &out, at::IntArrayRef sizes, const Tensor &like) {
    TORCH_CHECK(out.device() == like.device(), "infini.", op, ": out is on ", out.device(), " but the inputs are on ",
                like.device());
    TORCH_CHECK(out.scalar_type() == like.scalar_type(), "infini.", op, ": out has dtype ", out.scalar_type(),
                " but the result is ", like.scalar_type());
    at::native::resize_output(out, sizes);
}

// Runs compute(target) into out, through a fresh tensor when out's layout cannot take the kernel.
template <typename F>
Tensor &intoOut(Tensor &out, F compute) {
    if (rowsUsable(out)) {
        compute(out);
    } else {
        Tensor tmp = at::empty(out.sizes(), out.options());
        compute(tmp);
        out.copy_(tmp);
    }
    return out;
}

// ---- elementwise -----------------------------------------------------------------------------

std::vector<int64_t> binaryShape(const char *op, const Tensor &a, const Tensor &b) {
    checkDevices(op, {{"a", &a}, {"b", &b}});
    checkFloat(op, "a", a);
    checkSameDtype(op, "b", b, "a", a);
    if (a.sizes() == b.sizes()) return a.sizes().vec();
    try {
        return at::infer_size(a.sizes(), b.sizes());
    } catch (const c10::Error &e) {  // torch's words, with the op's name and both shapes
        TORCH_CHECK(false, "infini.", op, ": a ", a.sizes(), " and b ", b.sizes(),
                    " do not broadcast: ", e.what_without_backtrace());
    }
}

void binaryInto(infiniopOp_t kind, const Tensor &a, const Tensor &b, const Tensor &out) {
    c10::OptionalDeviceGuard guard(out.device());
    if (a.sizes() == out.sizes() && b.sizes() == out.sizes()) {  // no broadcast: no views to make
        runOp(kind, {&out, &a, &b});
        return;
    }
    Tensor ae = a.expand(out.sizes()), be = b.expand(out.sizes());
    runOp(kind, {&out, &ae, &be});
}

template <infiniopOp_t Kind>
Tensor binary(const char *op, const Tensor &a, const Tensor &b) {
    auto shape = binaryShape(op, a, b);
    Tensor out = at::empty(shape, a.options());
    binaryInto(Kind, a, b, out);
    return out;
}

template <infiniopOp_t Kind>
Tensor &binaryOut(const char *op, const Tensor &a, const Tensor &b, Tensor &out) {
    auto shape = binaryShape(op, a, b);
    prepareOut(op, out, shape, a);
    return intoOut(out, [&](const Tensor &target) { binaryInto(Kind, a, b, target); });
}

Tensor add(const Tensor &a, const Tensor &b) { return binary<INFINIOP_OP_ADD>("add", a, b); }
Tensor &add_out(const Tensor &a, const Tensor &b, Tensor &out) { return binaryOut<INFINIOP_OP_ADD>("add", a, b, out); }
Tensor mul(const Tensor &a, const Tensor &b) { return binary<INFINIOP_OP_MUL>("mul", a, b); }
Tensor &mul_out(const Tensor &a, const Tensor &b, Tensor &out) { return binaryOut<INFINIOP_OP_MUL>("mul", a, b, out); }
Tensor swiglu(const Tensor &a, const Tensor &b) { return binary<INFINIOP_OP_SWIGLU>("swiglu", a, b); }
Tensor &swiglu_out(const Tensor &a, const Tensor &b, Tensor &out) {
    return binaryOut<INFINIOP_OP_SWIGLU>("swiglu", a, b, out);
}

int64_t geluMode(c10::string_view approximate) {
    TORCH_CHECK(approximate == "none" || approximate == "tanh",
                "infini.gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
    return approximate == "tanh" ? 1 : 0;
}

void unaryInto(infiniopOp_t kind, const Tensor &x, const Tensor &out, int64_t param) {
    c10::OptionalDeviceGuard guard(out.device());
    runOp(kind, {&out, &x}, {}, {param});
}

template <infiniopOp_t Kind>
Tensor unary(const char *op, const Tensor &x, int64_t param = 0) {
    checkDevices(op, {{"x", &x}});
    checkFloat(op, "x", x);
    Tensor out = at::empty(x.sizes(), x.options());
    unaryInto(Kind, x, out, param);
    return out;
}

template <infiniopOp_t Kind>
Tensor &unaryOut(const char *op, const Tensor &x, Tensor &out, int64_t param = 0) {
    checkDevices(op, {{"x", &x}, {"out", &out}});
    checkFloat(op, "x", x);
    prepareOut(op, out, x.sizes(), x);
    return intoOut(out, [&](const Tensor &target) { unaryInto(Kind, x, target, param); });
}

Tensor silu(const Tensor &x) { return unary<INFINIOP_OP_SILU>("silu", x); }
Tensor &silu_out(const Tensor &x, Tensor &out) { return unaryOut<INFINIOP_OP_SILU>("silu", x, out); }
Tensor relu(const Tensor &x) { return unary<INFINIOP_OP_RELU>("relu", x); }
Tensor &relu_out(const Tensor &x, Tensor &out) { return unaryOut<INFINIOP_OP_RELU>("relu", x, out); }
Tensor gelu(const Tensor &x, c10::string_view approximate) {
    return unary<INFINIOP_OP_GELU>("gelu", x, geluMode(approximate));
}
Tensor &gelu_out(const Tensor &x, c10::string_view approximate, Tensor &out) {
    return unaryOut<INFINIOP_OP_GELU>("gelu", x, out, geluMode(approximate));
}

std::vector<int64_t> siluAndMulShape(const Tensor &x) {
    checkDevices("silu_and_mul", {{"x", &x}});
    checkFloat("silu_and_mul", "x", x);
    TORCH_CHECK(x.dim() >= 1 && x.size(-1) % 2 == 0, "infini.silu_and_mul: the last dimension of x must be even, got ",
                x.sizes());
    auto shape = x.sizes().vec();
    shape.back() /= 2;
    return shape;
}

Tensor silu_and_mul(const Tensor &x) {
    auto shape = siluAndMulShape(x);
    Tensor xc = lastContiguous(x);
    Tensor out = at::empty(shape, x.options());
    c10::OptionalDeviceGuard guard(x.device());
    runOp(INFINIOP_OP_SILU_AND_MUL, {&out, &xc});
    return out;
}

Tensor &silu_and_mul_out(const Tensor &x, Tensor &out) {
    auto shape = siluAndMulShape(x);
    prepareOut("silu_and_mul", out, shape, x);
    Tensor xc = lastContiguous(x);
    return intoOut(out, [&](const Tensor &target) {
        c10::OptionalDeviceGuard guard(x.device());
        runOp(INFINIOP_OP_SILU_AND_MUL, {&target, &xc});
    });
}

// ---- norms -----------------------------------------------------------------------------------

void checkNorm(const char *op, const Tensor &x, const Tensor &w, const Tensor *bias) {
    checkDevices(op, {{"x", &x}, {"weight", &w}, {"bias", bias ? bias : &w}});
    checkFloat(op, "x", x);
    TORCH_CHECK(x.dim() >= 1, "infini.", op, ": x must have at least one dimension");
    checkVector(op, "weight", w, x.size(-1), x);
    if (bias && bias->defined()) {
        checkVector(op, "bias", *bias, x.size(-1), x);
        checkSameDtype(op, "bias", *bias, "weight", w);
    }
}

Tensor rms_norm(const Tensor &x, const Tensor &w, double eps) {
    checkNorm("rms_norm", x, w, nullptr);
    Tensor xc = lastContiguous(x), wc = w.contiguous();
    Tensor out = at::empty(x.sizes(), x.options());
    c10::OptionalDeviceGuard guard(x.device());
    runOp(INFINIOP_OP_RMS_NORM, {&out, &xc, &wc}, {eps});
    return out;
}

Tensor &rms_norm_out(const Tensor &x, const Tensor &w, double eps, Tensor &out) {
    checkNorm("rms_norm", x, w, nullptr);
    prepareOut("rms_norm", out, x.sizes(), x);
    Tensor xc = lastContiguous(x), wc = w.contiguous();
    return intoOut(out, [&](const Tensor &target) {
        c10::OptionalDeviceGuard guard(x.device());
        runOp(INFINIOP_OP_RMS_NORM, {&target, &xc, &wc}, {eps});
    });
}

void checkAddRmsNorm(const Tensor &a, const Tensor &b, const Tensor &w) {
    checkNorm("add_rms_norm", a, w, nullptr);
    checkDevices("add_rms_norm", {{"a", &a}, {"b", &b}});
    checkSameDtype("add_rms_norm", "b", b, "a", a);
    TORCH_CHECK(a.sizes() == b.sizes(), "infini.add_rms_norm: b has shape ", b.sizes(), " but a has ", a.sizes());
}

std::tuple<Tensor, Tensor> add_rms_norm(const Tensor &a, const Tensor &b, const Tensor &w, double eps) {
    checkAddRmsNorm(a, b, w);
    Tensor ac = lastContiguous(a), bc = lastContiguous(b), wc = w.contiguous();
    Tensor y = at::empty(a.sizes(), a.options()), res = at::empty(a.sizes(), a.options());
    c10::OptionalDeviceGuard guard(a.device());
    runOp(INFINIOP_OP_ADD_RMS_NORM, {&y, &res, &ac, &bc, &wc}, {eps});
    return {y, res};
}

std::tuple<Tensor &, Tensor &> add_rms_norm_out(const Tensor &a, const Tensor &b, const Tensor &w, double eps,
                                                Tensor &out, Tensor &residual_out) {
    checkAddRmsNorm(a, b, w);
    prepareOut("add_rms_norm", out, a.sizes(), a);
    prepareOut("add_rms_norm", residual_out, a.sizes(), a);
    auto [y, res] = add_rms_norm(a, b, w, eps);
    out.copy_(y);
    residual_out.copy_(res);
    return {out, residual_out};
}

Tensor layer_norm(const Tensor &x, const Tensor &w, const std::optional<Tensor> &bias, double eps) {
    Tensor bias_t = bias.value_or(Tensor());
    checkNorm("layer_norm", x, w, &bias_t);
    Tensor xc = lastContiguous(x), wc = w.contiguous(), bc = bias_t.defined() ? bias_t.contiguous() : Tensor();
    Tensor out = at::empty(x.sizes(), x.options());
    c10::OptionalDeviceGuard guard(x.device());
    runOp(INFINIOP_OP_LAYER_NORM, {&out, &xc, &wc, &bc}, {eps});
    return out;
}

Tensor &layer_norm_out(const Tensor &x, const Tensor &w, const std::optional<Tensor> &bias, double eps, Tensor &out) {
    Tensor bias_t = bias.value_or(Tensor());
    checkNorm("layer_norm", x, w, &bias_t);
    prepareOut("layer_norm", out, x.sizes(), x);
    Tensor xc = lastContiguous(x), wc = w.contiguous(), bc = bias_t.defined() ? bias_t.contiguous() : Tensor();
    return intoOut(out, [&](const Tensor &target) {
        c10::OptionalDeviceGuard guard(x.device());
        runOp(INFINIOP_OP_LAYER_NORM, {&target, &xc, &wc, &bc}, {eps});
    });
}

// ---- softmax ---------------------------------------------------------------------------------

int64_t checkSoftmax(const Tensor &x, int64_t dim) {
    checkDevices("softmax", {{"x", &x}});
    checkFloat("softmax", "x", x);
    int64_t nd = std::max<int64_t>(x.dim(), 1);
    TORCH_CHECK(dim >= -nd && dim < nd, "infini.softmax: dim ", dim, " is out of range for a ", x.dim(),
                "-dimensional x");
    return dim < 0 ? dim + nd : dim;
}

Tensor softmax(const Tensor &x, int64_t dim) {
    dim = checkSoftmax(x, dim);
    Tensor out = at::empty(x.sizes(), x.options());
    c10::OptionalDeviceGuard guard(x.device());
    runOp(INFINIOP_OP_SOFTMAX, {&out, &x}, {}, {dim});
    return out;
}

Tensor &softmax_out(const Tensor &x, int64_t dim, Tensor &out) {
    dim = checkSoftmax(x, dim);
    prepareOut("softmax", out, x.sizes(), x);
    return intoOut(out, [&](const Tensor &target) {
        c10::OptionalDeviceGuard guard(x.device());
        runOp(INFINIOP_OP_SOFTMAX, {&target, &x}, {}, {dim});
    });
}

void checkCausal(const Tensor &x) {
    checkDevices("causal_softmax", {{"x", &x}});
    checkFloat("causal_softmax", "x", x);
    TORCH_CHECK(x.dim() >= 2, "infini.causal_softmax: x must be [..., q_len, kv_len], got ", x.sizes());
    TORCH_CHECK(x.size(-1) >= x.size(-2), "infini.causal_softmax: kv_len (", x.size(-1), ") must be at least q_len (",
                x.size(-2), ")");
}

Tensor causal_softmax(const Tensor &x) {
    checkCausal(x);
    Tensor out = at::empty(x.sizes(), x.options());
    c10::OptionalDeviceGuard guard(x.device());
    runOp(INFINIOP_OP_CAUSAL_SOFTMAX, {&out, &x});
    return out;
}

Tensor &causal_softmax_out(const Tensor &x, Tensor &out) {
    checkCausal(x);
    prepareOut("causal_softmax", out, x.sizes(), x);
    return intoOut(out, [&](const Tensor &target) {
        c10::OptionalDeviceGuard guard(x.device());
        runOp(INFINIOP_OP_CAUSAL_SOFTMAX, {&target, &x});
    });
}

// ---- embedding and rope ----------------------------------------------------------------------

std::vector<int64_t> checkEmbedding(const Tensor &indices, const Tensor &weight) {
    checkDevices("embedding", {{"indices", &indices}, {"weight", &weight}});
    checkIndex("embedding", "indices", indices);
    checkFloat("embedding", "weight", weight);
    TORCH_CHECK(weight.dim() == 2, "infini.embedding: weight must be [num_embeddings, dim], got ", weight.sizes());
    auto shape = indices.sizes().vec();
    shape.push_back(weight.size(1));
    return shape;
}

Tensor embedding(const Tensor &indices, const Tensor &weight) {
    auto shape = checkEmbedding(indices, weight);
    Tensor wc = lastContiguous(weight);
    Tensor out = at::empty(shape, weight.options());
    c10::OptionalDeviceGuard guard(weight.device());
    runOp(INFINIOP_OP_EMBEDDING, {&out, &indices, &wc});
    return out;
}

Tensor &embedding_out(const Tensor &indices, const Tensor &weight, Tensor &out) {
    auto shape = checkEmbedding(indices, weight);
    prepareOut("embedding", out, shape, weight);
    Tensor wc = lastContiguous(weight);
    return intoOut(out, [&](const Tensor &target) {
        c10::OptionalDeviceGuard guard(weight.device());
        runOp(INFINIOP_OP_EMBEDDING, {&target, &indices, &wc});
    });
}

int64_t checkRope(const Tensor &x, const Tensor &pos, const Tensor &sin, const Tensor &cos, c10::string_view algo) {
    const char *op = "rope";
    checkDevices(op, {{"x", &x}, {"pos_ids", &pos}, {"sin_table", &sin}, {"cos_table", &cos}});
    checkFloat(op, "x", x);
    checkIndex(op, "pos_ids", pos);
    TORCH_CHECK(algo == "gpt_neox" || algo == "gpt_j", "infini.rope: algo must be 'gpt_neox' or 'gpt_j', got '", algo,
                "'");
    TORCH_CHECK(x.dim() == 3 || x.dim() == 4,
                "infini.rope: x must be [seq, heads, head_dim] or "
                "[batch, seq, heads, head_dim], got ",
                x.sizes());
    int64_t d = x.size(-1), seq = x.size(-3);
    TORCH_CHECK(d % 2 == 0, "infini.rope: head_dim must be even, got ", d);
    if (x.dim() == 3) {
        TORCH_CHECK(pos.dim() == 1 && pos.size(0) == seq, "infini.rope: pos_ids must be [", seq, "], got ",
                    pos.sizes());
    } else {
        TORCH_CHECK(pos.dim() == 2 && pos.size(0) == x.size(0) && pos.size(1) == seq, "infini.rope: pos_ids must be [",
                    x.size(0), ", ", seq, "], got ", pos.sizes());
    }
    for (auto [name, t] : {std::pair<const char *, const Tensor *>{"sin_table", &sin}, {"cos_table", &cos}}) {
        TORCH_CHECK(t->dim() == 2 && t->size(1) == d / 2, "infini.rope: ", name, " must be [max_pos, ", d / 2,
                    "], got ", t->sizes());
        TORCH_CHECK(t->scalar_type() == x.scalar_type() || t->scalar_type() == at::kFloat, "infini.rope: ", name,
                    " must have x's dtype or float32, got ", t->scalar_type());
    }
    TORCH_CHECK(sin.sizes() == cos.sizes() && sin.scalar_type() == cos.scalar_type(),
                "infini.rope: sin_table and cos_table must have the same shape and dtype");
    return algo == "gpt_j" ? 1 : 0;
}

Tensor rope(const Tensor &x, const Tensor &pos, const Tensor &sin, const Tensor &cos, c10::string_view algo) {
    int64_t mode = checkRope(x, pos, sin, cos, algo);
    Tensor xc = lastContiguous(x), sc = lastContiguous(sin), cc = lastContiguous(cos);
    Tensor out = at::empty(x.sizes(), x.options());
    c10::OptionalDeviceGuard guard(x.device());
    runOp(INFINIOP_OP_ROPE, {&out, &xc, &pos, &sc, &cc}, {}, {mode});
    return out;
}

Tensor &rope_out(const Tensor &x, const Tensor &pos, const Tensor &sin, const Tensor &cos, c10::string_view algo,
                 Tensor &out) {
    int64_t mode = checkRope(x, pos, sin, cos, algo);
    prepareOut("rope", out, x.sizes(), x);
    Tensor xc = lastContiguous(x), sc = lastContiguous(sin), cc = lastContiguous(cos);
    return intoOut(out, [&](const Tensor &target) {
        c10::OptionalDeviceGuard guard(x.device());
        runOp(INFINIOP_OP_ROPE, {&target, &xc, &pos, &sc, &cc}, {}, {mode});
    });
}

// ---- routing, sampling, KV cache ---------------------------------------------------------------

void checkTopk(const Tensor &logits, int64_t k) {
    checkDevices("topk_softmax", {{"logits", &logits}});
    checkFloat("topk_softmax", "logits", logits);
    TORCH_CHECK(logits.dim() == 2, "infini.topk_softmax: logits must be [tokens, experts], got ", logits.sizes());
    TORCH_CHECK(k >= 1 && k <= logits.size(1), "infini.topk_softmax: k must be in [1, ", logits.size(1), "], got ", k);
}

std::tuple<Tensor, Tensor> topk_softmax(const Tensor &logits, int64_t k, bool renormalize) {
    checkTopk(logits, k);
    Tensor x = lastContiguous(logits);
    Tensor w = at::empty({logits.size(0), k}, logits.options().dtype(at::kFloat));
    Tensor idx = at::empty({logits.size(0), k}, logits.options().dtype(at::kLong));
    c10::OptionalDeviceGuard guard(logits.device());
    runOp(INFINIOP_OP_TOPK_SOFTMAX, {&w, &idx, &x}, {}, {k, renormalize ? 1 : 0});
    return {w, idx};
}

std::tuple<Tensor &, Tensor &> topk_softmax_out(const Tensor &logits, int64_t k, bool renormalize, Tensor &weights,
                                                Tensor &indices) {
    checkTopk(logits, k);
    auto [w, idx] = topk_softmax(logits, k, renormalize);
    prepareOut("topk_softmax", weights, w.sizes(), w);
    prepareOut("topk_softmax", indices, idx.sizes(), idx);
    weights.copy_(w);
    indices.copy_(idx);
    return {weights, indices};
}

Tensor randomSampleImpl(const Tensor &logits, const Tensor &random_val, double topp, int64_t topk, double temperature) {
    const char *op = "random_sample";
    checkDevices(op, {{"logits", &logits}, {"random_val", &random_val}});
    checkFloat(op, "logits", logits);
    TORCH_CHECK(logits.dim() == 1 || logits.dim() == 2,
                "infini.random_sample: logits must be [vocab] or [batch, vocab], got ", logits.sizes());
    TORCH_CHECK(logits.size(-1) > 0, "infini.random_sample: logits has an empty vocabulary");
    TORCH_CHECK(temperature > 0, "infini.random_sample: temperature must be > 0, got ", temperature);
    int64_t batch = logits.dim() == 2 ? logits.size(0) : 1;
    Tensor rv = random_val.to(at::kFloat);
    if (logits.dim() == 2) {
        TORCH_CHECK(rv.dim() == 0 || (rv.dim() == 1 && rv.size(0) == batch),
                    "infini.random_sample: random_val must be "
                    "a float or a [",
                    batch, "] tensor, got ", rv.sizes());
        rv = rv.expand({batch});
    } else {
        TORCH_CHECK(rv.dim() == 0, "infini.random_sample: random_val must be a float for 1-D logits");
    }
    Tensor x = lastContiguous(logits);
    Tensor out = logits.dim() == 2 ? at::empty({batch}, logits.options().dtype(at::kLong))
                                   : at::empty({}, logits.options().dtype(at::kLong));
    c10::OptionalDeviceGuard guard(logits.device());
    runOp(INFINIOP_OP_RANDOM_SAMPLE, {&out, &x, &rv}, {topp, temperature}, {topk});
    return out;
}

Tensor random_sample(const Tensor &logits, double random_val, double topp, int64_t topk, double temperature) {
    TORCH_CHECK(random_val >= 0 && random_val < 1, "infini.random_sample: random_val must be in [0, 1), got ",
                random_val);
    return randomSampleImpl(logits, at::scalar_tensor(random_val, logits.options().dtype(at::kFloat)), topp, topk,
                            temperature);
}

Tensor random_sample_tensor(const Tensor &logits, const Tensor &random_val, double topp, int64_t topk,
                            double temperature) {
    return randomSampleImpl(logits, random_val, topp, topk, temperature);
}

Tensor &random_sample_out(const Tensor &logits, double random_val, double topp, int64_t topk, double temperature,
                          Tensor &out) {
    Tensor r = random_sample(logits, random_val, topp, topk, temperature);
    prepareOut("random_sample", out, r.sizes(), r);
    out.copy_(r);
    return out;
}

void paged_caching(const Tensor &k, const Tensor &v, const Tensor &k_cache, const Tensor &v_cache,
                   const Tensor &slot_mapping) {
    const char *op = "paged_caching";
    checkDevices(op,
                 {{"k", &k}, {"v", &v}, {"k_cache", &k_cache}, {"v_cache", &v_cache}, {"slot_mapping", &slot_mapping}});
    checkFloat(op, "k", k);
    checkIndex(op, "slot_mapping", slot_mapping);
    TORCH_CHECK(k.dim() == 3, "infini.paged_caching: k must be [tokens, kv_heads, head_dim], got ", k.sizes());
    TORCH_CHECK(v.sizes() == k.sizes(), "infini.paged_caching: v has shape ", v.sizes(), " but k has ", k.sizes());
    TORCH_CHECK(k_cache.dim() == 4 && k_cache.size(1) == k.size(1) && k_cache.size(3) == k.size(2),
                "infini.paged_caching: k_cache must be [num_blocks, ", k.size(1), ", block_size, ", k.size(2),
                "], got ", k_cache.sizes());
    TORCH_CHECK(v_cache.sizes() == k_cache.sizes(), "infini.paged_caching: v_cache has shape ", v_cache.sizes(),
                " but k_cache has ", k_cache.sizes());
    for (auto [name, t] :
         {std::pair<const char *, const Tensor *>{"v", &v}, {"k_cache", &k_cache}, {"v_cache", &v_cache}}) {
        checkSameDtype(op, name, *t, "k", k);
    }
    TORCH_CHECK(slot_mapping.dim() == 1 && slot_mapping.size(0) == k.size(0),
                "infini.paged_caching: slot_mapping must be [", k.size(0), "], got ", slot_mapping.sizes());
    TORCH_CHECK(k_cache.stride(-1) == 1 && v_cache.stride(-1) == 1,
                "infini.paged_caching: the caches must have stride 1 in their last dimension");
    Tensor kc = lastContiguous(k), vc = lastContiguous(v);
    c10::OptionalDeviceGuard guard(k.device());
    runOp(INFINIOP_OP_PAGED_CACHING, {&k_cache, &v_cache, &kc, &vc, &slot_mapping});
}

// ---- gemm and linear -------------------------------------------------------------------------

// A matrix operand BLAS can read in place: stride 1 in one of its last two dims (a single column: any stride, read
// as row-major with that stride as leading dimension); else a copy. (A single row with a non-unit stride is copied:
// the nvidia backend reads a row only row-major.)
Tensor blasOperand(const Tensor &t) {
    if (t.stride(-1) == 1 || t.stride(-2) == 1 || t.size(-1) <= 1) return t;
    return t.contiguous();
}

std::vector<int64_t> gemmShape(const Tensor &a, const Tensor &b, const Tensor &c, double beta) {
    const char *op = "gemm";
    checkDevices(op, {{"a", &a}, {"b", &b}, {"c", &c}});
    checkFloat(op, "a", a);
    checkSameDtype(op, "b", b, "a", a);
    TORCH_CHECK((a.dim() == 2 || a.dim() == 3) && b.dim() == a.dim(),
                "infini.gemm: a and b must both be 2-D or both "
                "3-D, got ",
                a.sizes(), " and ", b.sizes());
    TORCH_CHECK(a.size(-1) == b.size(-2), "infini.gemm: a ", a.sizes(), " and b ", b.sizes(),
                " cannot be multiplied (inner sizes differ)");
    if (a.dim() == 3) {
        TORCH_CHECK(a.size(0) == b.size(0), "infini.gemm: batch sizes differ: a ", a.sizes(), ", b ", b.sizes());
    }
    std::vector<int64_t> shape = a.sizes().vec();
    shape.back() = b.size(-1);
    if (c.defined() && beta != 0) {
        checkSameDtype(op, "c", c, "a", a);
        TORCH_CHECK(at::is_expandable_to(c.sizes(), shape), "infini.gemm: c of shape ", c.sizes(),
                    " does not broadcast to the result ", at::IntArrayRef(shape));
    }
    return shape;
}

void gemmInto(const Tensor &a, const Tensor &b, const Tensor &c, double alpha, double beta, const Tensor &out) {
    Tensor ab = blasOperand(a), bb = blasOperand(b);
    Tensor cin = c.defined() && beta != 0 ? c.expand(out.sizes()) : Tensor();
    c10::OptionalDeviceGuard guard(out.device());
    runOp(INFINIOP_OP_GEMM, {&out, &ab, &bb, &cin}, {alpha, beta});
}

Tensor gemmImpl(const Tensor &a, const Tensor &b, const std::optional<Tensor> &c, double alpha, double beta) {
    Tensor ct = c.value_or(Tensor());
    auto shape = gemmShape(a, b, ct, beta);
    Tensor out = at::empty(shape, a.options());
    gemmInto(a, b, ct, alpha, beta, out);
    return out;
}

Tensor &gemm_out(const Tensor &a, const Tensor &b, const std::optional<Tensor> &c, double alpha, double beta,
                 Tensor &out) {
    Tensor ct = c.value_or(Tensor());
    auto shape = gemmShape(a, b, ct, beta);
    prepareOut("gemm", out, shape, a);
    bool aliased = ct.defined() && ct.is_alias_of(out);  // the kernel reads c while it writes out
    if (aliased || !rowsUsable(out)) {
        Tensor tmp = gemmImpl(a, b, c, alpha, beta);
        out.copy_(tmp);
        return out;
    }
    gemmInto(a, b, ct, alpha, beta, out);
    return out;
}

std::vector<int64_t> linearShape(const Tensor &x, const Tensor &w, const Tensor &bias) {
    const char *op = "linear";
    checkDevices(op, {{"x", &x}, {"weight", &w}, {"bias", &bias}});
    checkFloat(op, "x", x);
    checkSameDtype(op, "weight", w, "x", x);
    TORCH_CHECK(x.dim() >= 1, "infini.linear: x must have at least one dimension");
    TORCH_CHECK(w.dim() == 2 && w.size(1) == x.size(-1), "infini.linear: weight must be [out_features, ", x.size(-1),
                "], got ", w.sizes());
    if (bias.defined()) {
        checkSameDtype(op, "bias", bias, "x", x);
        TORCH_CHECK(bias.dim() == 1 && bias.size(0) == w.size(0), "infini.linear: bias must be [", w.size(0), "], got ",
                    bias.sizes());
    }
    auto shape = x.sizes().vec();
    shape.back() = w.size(0);
    return shape;
}

Tensor linearImpl(const Tensor &x, const Tensor &w, const std::optional<Tensor> &bias) {
    Tensor bt = bias.value_or(Tensor());
    auto shape = linearShape(x, w, bt);
    Tensor x2 = x.reshape({-1, x.size(-1)});
    Tensor out = at::empty({x2.size(0), w.size(0)}, x.options());
    gemmInto(x2, w.t(), bt.defined() ? bt.expand(out.sizes()) : Tensor(), 1.0, bt.defined() ? 1.0 : 0.0, out);
    return out.view(shape);
}

Tensor &linear_out(const Tensor &x, const Tensor &w, const std::optional<Tensor> &bias, Tensor &out) {
    Tensor bt = bias.value_or(Tensor());
    auto shape = linearShape(x, w, bt);
    prepareOut("linear", out, shape, x);
    out.copy_(linearImpl(x, w, bias));
    return out;
}

// ---- attention -------------------------------------------------------------------------------

Tensor attentionImpl(const Tensor &q, const Tensor &k, const Tensor &v, const Tensor &k_cache, const Tensor &v_cache,
                     int64_t pos) {
    const char *op = "attention";
    checkDevices(op, {{"q", &q}, {"k", &k}, {"v", &v}, {"k_cache", &k_cache}, {"v_cache", &v_cache}});
    checkFloat(op, "q", q);
    TORCH_CHECK(q.dim() == 3, "infini.attention: q must be [heads, seq, head_dim], got ", q.sizes());
    TORCH_CHECK(
        k.dim() == 3 && k.size(1) == q.size(1) && k.size(2) == q.size(2) && k.size(0) > 0 && q.size(0) % k.size(0) == 0,
        "infini.attention: k must be [kv_heads dividing ", q.size(0), ", ", q.size(1), ", ", q.size(2), "], got ",
        k.sizes());
    TORCH_CHECK(v.sizes() == k.sizes(), "infini.attention: v has shape ", v.sizes(), " but k has ", k.sizes());
    TORCH_CHECK(k_cache.dim() == 3 && k_cache.size(0) == k.size(0) && k_cache.size(2) == q.size(2),
                "infini.attention: k_cache must be [", k.size(0), ", max_seq, ", q.size(2), "], got ", k_cache.sizes());
    TORCH_CHECK(v_cache.sizes() == k_cache.sizes(), "infini.attention: v_cache has shape ", v_cache.sizes(),
                " but k_cache has ", k_cache.sizes());
    for (auto [name, t] :
         {std::pair<const char *, const Tensor *>{"k", &k}, {"v", &v}, {"k_cache", &k_cache}, {"v_cache", &v_cache}}) {
        checkSameDtype(op, name, *t, "q", q);
    }
    TORCH_CHECK(pos >= 0 && pos + q.size(1) <= k_cache.size(1), "infini.attention: pos ", pos, " + seq ", q.size(1),
                " exceeds the cache's ", k_cache.size(1), " rows");
    TORCH_CHECK(k_cache.stride(-1) == 1 && v_cache.stride(-1) == 1,
                "infini.attention: the caches must have stride 1 in their last dimension");
    Tensor qc = lastContiguous(q), kc = lastContiguous(k), vc = lastContiguous(v);
    Tensor out = at::empty(q.sizes(), q.options());
    c10::OptionalDeviceGuard guard(q.device());
    runOp(INFINIOP_OP_ATTENTION, {&out, &k_cache, &v_cache, &qc, &kc, &vc}, {}, {pos});
    return out;
}

Tensor &attention_out(const Tensor &q, const Tensor &k, const Tensor &v, const Tensor &k_cache, const Tensor &v_cache,
                      int64_t pos, Tensor &out) {
    Tensor r = attentionImpl(q, k, v, k_cache, v_cache, pos);
    prepareOut("attention", out, r.sizes(), r);
    out.copy_(r);
    return out;
}

void checkPagedArgs(const char *op, const Tensor &q, const Tensor &k_cache, const Tensor &v_cache, const Tensor &bt,
                    const Tensor &lens, const Tensor &alibi) {
    checkDevices(op, {{"q", &q},
                      {"k_cache", &k_cache},
                      {"v_cache", &v_cache},
                      {"block_tables", &bt},
                      {"seq_lens", &lens},
                      {"alibi_slopes", &alibi}});
    checkFloat(op, "q", q);
    checkIndex(op, "block_tables", bt);
    checkIndex(op, "seq_lens", lens);
    TORCH_CHECK(q.dim() == 3, "infini.", op, ": q must be 3-D [.., heads, head_dim], got ", q.sizes());
    TORCH_CHECK(
        k_cache.dim() == 4 && k_cache.size(3) == q.size(2) && k_cache.size(1) > 0 && q.size(1) % k_cache.size(1) == 0,
        "infini.", op, ": k_cache must be [num_blocks, kv_heads dividing ", q.size(1), ", block_size, ", q.size(2),
        "], got ", k_cache.sizes());
    TORCH_CHECK(v_cache.sizes() == k_cache.sizes(), "infini.", op, ": v_cache has shape ", v_cache.sizes(),
                " but k_cache has ", k_cache.sizes());
    checkSameDtype(op, "k_cache", k_cache, "q", q);
    checkSameDtype(op, "v_cache", v_cache, "q", q);
    TORCH_CHECK(bt.dim() == 2, "infini.", op, ": block_tables must be [seqs, max_blocks], got ", bt.sizes());
    TORCH_CHECK(lens.dim() == 1 && lens.size(0) == bt.size(0), "infini.", op, ": seq_lens must be [", bt.size(0),
                "], got ", lens.sizes());
    if (alibi.defined()) {
        TORCH_CHECK(alibi.scalar_type() == at::kFloat && alibi.dim() == 1 && alibi.size(0) == q.size(1), "infini.", op,
                    ": alibi_slopes must be float32 [", q.size(1), "]");
    }
    TORCH_CHECK(k_cache.stride(-1) == 1 && v_cache.stride(-1) == 1, "infini.", op,
                ": the caches must have stride 1 in their last dimension");
}

Tensor pagedAttentionImpl(const Tensor &q, const Tensor &k_cache, const Tensor &v_cache, const Tensor &bt,
                          const Tensor &lens, const std::optional<Tensor> &alibi_slopes, double scale) {
    Tensor alibi = alibi_slopes.value_or(Tensor());
    checkPagedArgs("paged_attention", q, k_cache, v_cache, bt, lens, alibi);
    TORCH_CHECK(q.size(0) == bt.size(0), "infini.paged_attention: q has ", q.size(0),
                " sequences but block_tables has ", bt.size(0));
    Tensor qc = lastContiguous(q);
    Tensor out = at::empty(q.sizes(), q.options());
    c10::OptionalDeviceGuard guard(q.device());
    runOp(INFINIOP_OP_PAGED_ATTENTION, {&out, &qc, &k_cache, &v_cache, &bt, &lens, &alibi}, {scale});
    return out;
}

Tensor &paged_attention_out(const Tensor &q, const Tensor &k_cache, const Tensor &v_cache, const Tensor &bt,
                            const Tensor &lens, const std::optional<Tensor> &alibi, double scale, Tensor &out) {
    Tensor r = pagedAttentionImpl(q, k_cache, v_cache, bt, lens, alibi, scale);
    prepareOut("paged_attention", out, r.sizes(), r);
    out.copy_(r);
    return out;
}

Tensor pagedPrefillImpl(const Tensor &q, const Tensor &k_cache, const Tensor &v_cache, const Tensor &bt,
                        const Tensor &lens, const Tensor &cu, const std::optional<Tensor> &alibi_slopes, double scale) {
    const char *op = "paged_attention_prefill";
    Tensor alibi = alibi_slopes.value_or(Tensor());
    checkPagedArgs(op, q, k_cache, v_cache, bt, lens, alibi);
    checkDevices(op, {{"q", &q}, {"cu_seqlens_q", &cu}});
    checkIndex(op, "cu_seqlens_q", cu);
    TORCH_CHECK(cu.dim() == 1 && cu.size(0) == bt.size(0) + 1, "infini.paged_attention_prefill: cu_seqlens_q must be [",
                bt.size(0) + 1, "], got ", cu.sizes());
    Tensor qc = lastContiguous(q);
    Tensor out = at::empty(q.sizes(), q.options());
    c10::OptionalDeviceGuard guard(q.device());
    runOp(INFINIOP_OP_PAGED_ATTENTION_PREFILL, {&out, &qc, &k_cache, &v_cache, &bt, &lens, &cu, &alibi}, {scale});
    return out;
}

Tensor &paged_prefill_out(const Tensor &q, const Tensor &k_cache, const Tensor &v_cache, const Tensor &bt,
                          const Tensor &lens, const Tensor &cu, const std::optional<Tensor> &alibi, double scale,
                          Tensor &out) {
    Tensor r = pagedPrefillImpl(q, k_cache, v_cache, bt, lens, cu, alibi, scale);
    prepareOut("paged_attention_prefill", out, r.sizes(), r);
    out.copy_(r);
    return out;
}

// ---- sdpa -------------------------------------------------------------------------------------
// Attention on the sdpa kernel family (families.h), which every backend with families provides: q [b, hq, lq, d],
// k / v [b, hk, lk, d] with hk dividing hq (query head h reads key head h / (hq / hk)), mask bool (true: attend) or
// additive in q's dtype broadcast to [b, hq, lq, lk], causal aligned to the bottom right (query i sees keys
// j <= i + lk - lq). The result has the memory of [b, lq, hq, d] (its transpose(1, 2) is contiguous); a row with no
// key to attend is 0.

struct SdpaOperands {
    Tensor q, k, v, mask;
};

SdpaOperands sdpaOperands(const Tensor &q, const Tensor &k, const Tensor &v, const std::optional<Tensor> &mask) {
    const char *op = "sdpa";
    Tensor m = mask.value_or(Tensor());
    checkDevices(op, {{"q", &q}, {"k", &k}, {"v", &v}, {"mask", &m}});
    checkFloat(op, "q", q);
    checkSameDtype(op, "k", k, "q", q);
    checkSameDtype(op, "v", v, "q", q);
    TORCH_CHECK(q.dim() == 4, "infini.sdpa: q must be [batch, heads, q_len, head_dim], got ", q.sizes());
    const int64_t b = q.size(0), hq = q.size(1), lq = q.size(2), d = q.size(3);
    TORCH_CHECK(k.dim() == 4 && k.size(0) == b && k.size(3) == d && k.size(1) > 0 && hq % k.size(1) == 0,
                "infini.sdpa: k must be [", b, ", kv_heads dividing ", hq, ", kv_len, ", d, "], got ", k.sizes());
    TORCH_CHECK(v.sizes() == k.sizes(), "infini.sdpa: v has shape ", v.sizes(), " but k has ", k.sizes());
    const int64_t lk = k.size(2);
    if (m.defined()) {
        TORCH_CHECK(m.scalar_type() == at::kBool || m.scalar_type() == q.scalar_type(),
                    "infini.sdpa: mask must be bool or q's dtype (", q.scalar_type(), "), got ", m.scalar_type());
        TORCH_CHECK(m.dim() <= 4 && at::is_expandable_to(m.sizes(), {b, hq, lq, lk}), "infini.sdpa: mask ", m.sizes(),
                    " does not broadcast to [", b, ", ", hq, ", ", lq, ", ", lk, "]");
        m = m.expand({b, hq, lq, lk});
    }
    return {lastContiguous(q), lastContiguous(k), lastContiguous(v), m};
}

Tensor sdpaOutput(const Tensor &q) {
    return at::empty({q.size(0), q.size(2), q.size(1), q.size(3)}, q.options()).transpose(1, 2);
}

void sdpaInto(const SdpaOperands &x, bool causal, double scale, const Tensor &out) {
    if (out.numel() == 0) return;
    infiniopSdpaArgs_t a = aten::sdpaArgsOf(x.q, x.k, x.v, x.mask, causal, scale);
    a.out = aten::tensorOf(out);
    c10::OptionalDeviceGuard guard;
    const OpTarget target = targetOf(out.device(), guard);
    infiniStatus_t status = infiniopSdpa(target.handle, &a, target.stream);
    if (status != INFINI_STATUS_SUCCESS) aten::raiseFamily("infini.sdpa", status);
}

Tensor sdpa(const Tensor &q, const Tensor &k, const Tensor &v, const std::optional<Tensor> &mask, bool causal,
            double scale) {
    const SdpaOperands x = sdpaOperands(q, k, v, mask);
    Tensor out = sdpaOutput(q);
    sdpaInto(x, causal, scale, out);
    return out;
}

Tensor &sdpa_out(const Tensor &q, const Tensor &k, const Tensor &v, const std::optional<Tensor> &mask, bool causal,
                 double scale, Tensor &out) {
    const SdpaOperands x = sdpaOperands(q, k, v, mask);
    checkDevices("sdpa", {{"q", &q}, {"out", &out}});
    prepareOut("sdpa", out, q.sizes(), q);
    return intoOut(out, [&](const Tensor &target) { sdpaInto(x, causal, scale, target); });
}

void registerAll(torch::Library &m) {
    m.impl("sdpa", sdpa);
    m.impl("sdpa.out", sdpa_out);
    m.impl("attention", attentionImpl);
    m.impl("attention.out", attention_out);
    m.impl("paged_attention", pagedAttentionImpl);
    m.impl("paged_attention.out", paged_attention_out);
    m.impl("paged_attention_prefill", pagedPrefillImpl);
    m.impl("paged_attention_prefill.out", paged_prefill_out);
    m.impl("gemm", gemmImpl);
    m.impl("gemm.out", gemm_out);
    m.impl("linear", linearImpl);
    m.impl("linear.out", linear_out);
    m.impl("topk_softmax", topk_softmax);
    m.impl("topk_softmax.out", topk_softmax_out);
    m.impl("random_sample", random_sample);
    m.impl("random_sample.tensor", random_sample_tensor);
    m.impl("random_sample.out", random_sample_out);
    m.impl("paged_caching", paged_caching);
    m.impl("add", add);
    m.impl("add.out", add_out);
    m.impl("mul", mul);
    m.impl("mul.out", mul_out);
    m.impl("silu", silu);
    m.impl("silu.out", silu_out);
    m.impl("relu", relu);
    m.impl("relu.out", relu_out);
    m.impl("gelu", gelu);
    m.impl("gelu.out", gelu_out);
    m.impl("swiglu", swiglu);
    m.impl("swiglu.out", swiglu_out);
    m.impl("silu_and_mul", silu_and_mul);
    m.impl("silu_and_mul.out", silu_and_mul_out);
    m.impl("rms_norm", rms_norm);
    m.impl("rms_norm.out", rms_norm_out);
    m.impl("add_rms_norm", add_rms_norm);
    m.impl("add_rms_norm.out", add_rms_norm_out);
    m.impl("layer_norm", layer_norm);
    m.impl("layer_norm.out", layer_norm_out);
    m.impl("softmax", softmax);
    m.impl("softmax.out", softmax_out);
    m.impl("causal_softmax", causal_softmax);
    m.impl("causal_softmax.out", causal_softmax_out);
    m.impl("embedding", embedding);
    m.impl("embedding.out", embedding_out);
    m.impl("rope", rope);
    m.impl("rope.out", rope_out);
}

}  // namespace

TORCH_LIBRARY_IMPL(infini, CPU, m) { registerAll(m); }
TORCH_LIBRARY_IMPL(infini, PrivateUse1, m) { registerAll(m); }
// CUDA tensors run on the nvidia backend (OpRunner says so when it is not loaded).
TORCH_LIBRARY_IMPL(infini, CUDA, m) { registerAll(m); }

}  // namespace infini_torch::ops
