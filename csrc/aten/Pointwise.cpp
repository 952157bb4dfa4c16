// Pointwise.cpp: the element-wise aten ops on the pointwise family (infiniopPointwise): unary and binary
// arithmetic, comparisons, logical and bitwise ops, activations and their backward forms, clamp, where, lerp,
// addcmul/addcdiv, masked_fill. Structured ops run torch's own meta (TensorIterator: broadcasting, type
// promotion, coalescing) and hand the iterator to the family; the others build their iterator as torch does.
#include <ATen/ATen.h>
#include <ATen/Operators.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/abs_ops.h>
#include <ATen/ops/add_meta.h>
#include <ATen/ops/addcdiv_meta.h>
#include <ATen/ops/addcmul_meta.h>
#include <ATen/ops/clamp_meta.h>
#include <ATen/ops/clamp_max_meta.h>
#include <ATen/ops/clamp_min_meta.h>
#include <ATen/ops/div_meta.h>
#include <ATen/ops/elu_backward_meta.h>
#include <ATen/ops/elu_meta.h>
#include <ATen/ops/gelu_backward_meta.h>
#include <ATen/ops/gelu_meta.h>
#include <ATen/ops/hardsigmoid_backward_meta.h>
#include <ATen/ops/leaky_relu_backward_meta.h>
#include <ATen/ops/leaky_relu_meta.h>
#include <ATen/ops/lerp_meta.h>
#include <ATen/ops/logit_backward_meta.h>
#include <ATen/ops/mul_meta.h>
#include <ATen/ops/pow_meta.h>
#include <ATen/ops/round_meta.h>
#include <ATen/ops/sigmoid_backward_meta.h>
#include <ATen/ops/silu_backward_meta.h>
#include <ATen/ops/softplus_backward_meta.h>
#include <ATen/ops/softplus_meta.h>
#include <ATen/ops/sub_meta.h>
#include <ATen/ops/tanh_backward_meta.h>
#include <ATen/ops/threshold_backward_meta.h>
#include <ATen/ops/threshold_meta.h>
#include <torch/library.h>

#include <cstring>

#include "Pointwise.h"
#include "Structured.h"

namespace infini_torch::aten {

at::ScalarType commonDtype(const at::TensorIteratorBase &it) {
    // torch 2.11 has no maybe_common_dtype(), and common_dtype() asserts where the iterator computed none (every
    // structured meta here computes one; the plain iterators pass their compute dtype)
    try {
        return it.common_dtype();
    } catch (const c10::Error &) {
        return it.dtype(0);
    }
}

Pw &Pw::scalar(int k, const at::Scalar &s) {
    if (s.isBoolean()) {
        a.f[k] = s.toBool() ? 1.0 : 0.0;
        a.i[k] = s.toBool() ? 1 : 0;
    } else if (s.isIntegral(false)) {
        a.i[k] = s.toLong();
        a.f[k] = static_cast<double>(a.i[k]);
    } else {
        a.f[k] = s.toDouble();
        const double v = a.f[k];  // integer kernels read i[]: a saturating truncation, never UB
        a.i[k] = v != v ? 0 : v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(v);
    }
    return *this;
}

namespace {

// The dtypes torch's own kernels refuse for an op (NotImplementedError with torch's words, before any work; an
// empty tensor too): bit ops take integers (and bool, except the shifts); abs, rounding, remainder, fmod, pow and
// the rounding divisions take no bool; frac and hypot take floats only. Other ops return before reading a dtype.
enum class Takes { kAny, kIntOrBool, kInt, kNoBool, kFloat, kReluNoBool, kNegNoBool };

Takes takes(int op) {
    switch (op) {
        case INFINIOP_PW_BITWISE_AND:
        case INFINIOP_PW_BITWISE_OR:
        case INFINIOP_PW_BITWISE_XOR:
        case INFINIOP_PW_BITWISE_NOT: return Takes::kIntOrBool;
        case INFINIOP_PW_LSHIFT:
        case INFINIOP_PW_RSHIFT: return Takes::kInt;
        case INFINIOP_PW_ABS:
        case INFINIOP_PW_FLOOR:
        case INFINIOP_PW_CEIL:
        case INFINIOP_PW_ROUND:
        case INFINIOP_PW_TRUNC:
        case INFINIOP_PW_REMAINDER:
        case INFINIOP_PW_FMOD:
        case INFINIOP_PW_POW:
        case INFINIOP_PW_DIV_FLOOR:
        case INFINIOP_PW_DIV_TRUNC: return Takes::kNoBool;
        case INFINIOP_PW_FRAC:
        case INFINIOP_PW_HYPOT: return Takes::kFloat;
        case INFINIOP_PW_RELU: return Takes::kReluNoBool;
        case INFINIOP_PW_NEG: return Takes::kNegNoBool;
        default: return Takes::kAny;
    }
}

void checkOpDtype(const char *name, int op, const at::TensorIteratorBase &it) {
    const Takes rule = takes(op);
    if (rule == Takes::kAny) return;
    // one input: its dtype; two or more: the promoted one (binary iterators compute it)
    const at::ScalarType t = it.ninputs() == 1 ? it.input_dtype(0) : commonDtype(it);
    const bool is_bool = t == at::kBool, is_int = at::isIntegralType(t, /*includeBool=*/false);
    bool ok = true;
    switch (rule) {
        case Takes::kIntOrBool: ok = is_int || is_bool; break;
        case Takes::kInt: ok = is_int; break;
        case Takes::kNoBool: ok = !is_bool; break;
        case Takes::kFloat: ok = at::isFloatingType(t); break;
        case Takes::kReluNoBool: TORCH_CHECK(!is_bool, "Boolean inputs not supported for relu"); return;
        case Takes::kNegNoBool:
            TORCH_CHECK(!is_bool,
                        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                        "to invert a mask, use the `~` or `logical_not()` operator instead.");
            return;
        case Takes::kAny: return;
    }
    const char *op_name = std::strncmp(name, "aten::", 6) == 0 ? name + 6 : name;
    TORCH_CHECK_NOT_IMPLEMENTED(ok, "\"", op_name, "\" not implemented for '", c10::toString(t), "'");
}

}  // namespace

void Pw::run(const char *name, at::TensorIteratorBase &it, infiniDtype_t compute) {
    checkOpDtype(name, a.op, it);
    if (it.numel() == 0) return;
    a.iter = iterOf(it);
    for (int k = a.noutputs; k < a.iter.noperands; ++k) {
        if (a.iter.data[k] != nullptr) continue;
        a.cf[k] = it.scalar_value<double>(k);
        a.ci[k] = it.scalar_value<int64_t>(k);
    }
    if (compute == INFINI_DTYPE_INVALID) compute = computeDtype(commonDtype(it));
    a.compute = compute;
    runFamily(name, infiniopPointwise, it.device(0), a);
}

void Pw::runIter(const char *name, c10::Device device) { runFamily(name, infiniopPointwise, device, a); }

namespace {

using at::Scalar;
using at::Tensor;
using TIB = at::TensorIteratorBase;

// ---- impls: (name, iterator, meta args...) ----

template <infiniopPointwiseOp_t OP>
void unary(const char *name, TIB &it, const Tensor &) {
    Pw(OP).run(name, it);
}

void bitwiseNot(const char *name, TIB &it, const Tensor &) {
    Pw(it.dtype(0) == at::kBool ? INFINIOP_PW_LOGICAL_NOT : INFINIOP_PW_BITWISE_NOT).run(name, it);
}

template <infiniopPointwiseOp_t OP>
void binary(const char *name, TIB &it, const Tensor &, const Tensor &) {
    Pw(OP).run(name, it);
}

template <infiniopPointwiseOp_t OP>
void binaryWithScalar(const char *name, TIB &it, const Tensor &, const Scalar &) {
    Pw(OP).run(name, it);  // the Scalar is the iterator's wrapped-number operand
}

template <infiniopPointwiseOp_t OP>
void binaryAlpha(const char *name, TIB &it, const Tensor &, const Tensor &, const Scalar &alpha) {
    Pw(OP).scalar(0, alpha).run(name, it);
}

void divMode(const char *name, TIB &it, const Tensor &, const Tensor &, std::optional<c10::string_view> mode) {
    infiniopPointwiseOp_t op = INFINIOP_PW_DIV;
    if (mode.has_value()) {
        if (*mode == "trunc") {
            op = INFINIOP_PW_DIV_TRUNC;
        } else if (*mode == "floor") {
            op = INFINIOP_PW_DIV_FLOOR;
        }  // the meta has rejected any other mode
    }
    const auto t = it.dtype(0);
    if (op == INFINIOP_PW_DIV_TRUNC && (t == at::kBFloat16 || t == at::kHalf)) {
        // torch truncates the quotient as rounded to the 16-bit dtype: divide, store, then truncate the stored value
        Pw(INFINIOP_PW_DIV).run(name, it);
        const Tensor &out = it.tensor(0);
        auto trunc = at::TensorIterator::unary_op(const_cast<Tensor &>(out), out);
        Pw(INFINIOP_PW_TRUNC).run(name, trunc);
        return;
    }
    Pw(op).run(name, it);
}

void powScalar(const char *name, TIB &it, const Tensor &, const Scalar &exponent) {
    Pw(INFINIOP_PW_POW_SCALAR).scalar(0, exponent).run(name, it);
}

void roundDecimals(const char *name, TIB &it, const Tensor &, int64_t decimals) {
    Pw p(INFINIOP_PW_ROUND);
    p.a.f[0] = static_cast<double>(decimals);
    p.a.i[0] = decimals;
    p.run(name, it);
}

int64_t geluMode(c10::string_view approximate) {
    TORCH_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
    return approximate == "tanh" ? 1 : 0;
}

void geluImpl(const char *name, TIB &it, const Tensor &, c10::string_view approximate) {
    Pw p(INFINIOP_PW_GELU);
    p.a.i[0] = geluMode(approximate);
    p.run(name, it);
}

void geluBackward(const char *name, TIB &it, const Tensor &, const Tensor &, c10::string_view approximate) {
    Pw p(INFINIOP_PW_GELU_BWD);
    p.a.i[0] = geluMode(approximate);
    p.run(name, it);
}

void thresholdBackward(const char *name, TIB &it, const Tensor &, const Tensor &, const Scalar &threshold) {
    Pw(INFINIOP_PW_THRESHOLD).scalar(0, threshold).scalar(1, 0).run(name, it);
}

void thresholdImpl(const char *name, TIB &it, const Tensor &, const Scalar &threshold, const Scalar &value) {
    // the iterators: threshold (out, self, self), threshold_backward (out, self, grad)
    Pw(INFINIOP_PW_THRESHOLD).scalar(0, threshold).scalar(1, value).run(name, it);
}

void leakyRelu(const char *name, TIB &it, const Tensor &, const Scalar &slope) {
    Pw(INFINIOP_PW_LEAKY_RELU).scalar(0, slope).run(name, it);
}

void leakyReluBackward(const char *name, TIB &it, const Tensor &, const Tensor &, const Scalar &slope, bool) {
    Pw(INFINIOP_PW_LEAKY_RELU_BWD).scalar(0, slope).run(name, it);
}

void eluImpl(const char *name, TIB &it, const Tensor &, const Scalar &alpha, const Scalar &scale,
             const Scalar &input_scale) {
    Pw(INFINIOP_PW_ELU).scalar(0, alpha).scalar(1, scale).scalar(2, input_scale).run(name, it);
}

void eluBackward(const char *name, TIB &it, const Tensor &, const Scalar &alpha, const Scalar &scale,
                 const Scalar &input_scale, bool is_result, const Tensor &) {
    Pw p(INFINIOP_PW_ELU_BWD);
    p.scalar(0, alpha).scalar(1, scale).scalar(2, input_scale);
    p.a.i[3] = is_result ? 1 : 0;
    p.run(name, it);
}

void softplusImpl(const char *name, TIB &it, const Tensor &, const Scalar &beta, const Scalar &threshold) {
    Pw(INFINIOP_PW_SOFTPLUS).scalar(0, beta).scalar(1, threshold).run(name, it);
}

void softplusBackward(const char *name, TIB &it, const Tensor &, const Tensor &, const Scalar &beta,
                      const Scalar &threshold) {
    Pw(INFINIOP_PW_SOFTPLUS_BWD).scalar(0, beta).scalar(1, threshold).run(name, it);
}

void logitBackward(const char *name, TIB &it, const Tensor &, const Tensor &, std::optional<double> eps) {
    Pw p(INFINIOP_PW_LOGIT_BWD);
    p.a.f[0] = eps.has_value() ? *eps : -1.0;
    p.run(name, it);
}

void clampScalars(const char *name, TIB &it, const Tensor &, at::OptionalScalarRef min, at::OptionalScalarRef max) {
    Pw p(INFINIOP_PW_CLAMP);
    int flags = 0;
    if (min.has_value()) {
        p.scalar(0, min.get());
        flags |= 1;
    }
    if (max.has_value()) {
        p.scalar(1, max.get());
        flags |= 2;
    }
    p.a.i[2] = flags;
    p.run(name, it);
}

void clampMin(const char *name, TIB &it, const Tensor &, const Scalar &min) {
    Pw p(INFINIOP_PW_CLAMP);
    p.scalar(0, min);
    p.a.i[2] = 1;
    p.run(name, it);
}

void clampMax(const char *name, TIB &it, const Tensor &, const Scalar &max) {
    Pw p(INFINIOP_PW_CLAMP);
    p.scalar(1, max);
    p.a.i[2] = 2;
    p.run(name, it);
}

void clampTensors(const char *name, TIB &it, const Tensor &, at::OptionalTensorRef min, at::OptionalTensorRef max) {
    Pw p(INFINIOP_PW_CLAMP_TENSOR);
    p.a.i[2] = (min.has_value() ? 1 : 0) | (max.has_value() ? 2 : 0);
    p.run(name, it);
}

void clampMinTensor(const char *name, TIB &it, const Tensor &, const Tensor &) {
    Pw p(INFINIOP_PW_CLAMP_TENSOR);
    p.a.i[2] = 1;
    p.run(name, it);
}

void clampMaxTensor(const char *name, TIB &it, const Tensor &, const Tensor &) {
    Pw p(INFINIOP_PW_CLAMP_TENSOR);
    p.a.i[2] = 2;
    p.run(name, it);
}

void lerpScalar(const char *name, TIB &it, const Tensor &, const Tensor &, const Scalar &weight) {
    Pw(INFINIOP_PW_LERP_SCALAR).scalar(0, weight).run(name, it);
}

void lerpTensor(const char *name, TIB &it, const Tensor &, const Tensor &, const Tensor &) {
    Pw(INFINIOP_PW_LERP).run(name, it);
}

template <infiniopPointwiseOp_t OP>
void addcOp(const char *name, TIB &it, const Tensor &, const Tensor &, const Tensor &, const Scalar &value) {
    Pw(OP).scalar(0, value).run(name, it);
}

// ---- ops torch does not implement as structured kernels ----

// A unary op on a plain TensorIterator (torch's unary_op: output dtype = input dtype).
template <infiniopPointwiseOp_t OP, class OpF, class OpI, class OpO>
struct PlainUnary {
    static Tensor &outImpl(const char *name, const Tensor &self, Tensor &out) {
        auto it = at::TensorIterator::unary_op(out, self);
        Pw(OP).run(name, it);
        return out;
    }
    static Tensor functional(const Tensor &self) {
        if (!isFamilyDtype(self.scalar_type())) return detail::fallback<OpF, Tensor, const Tensor &>(self);
        Tensor out = at::empty({0}, self.options());
        return outImpl(OpF::name, self, out);
    }
    static Tensor &inplace(Tensor &self) {
        if (!isFamilyDtype(self.scalar_type())) return detail::fallback<OpI, Tensor &, Tensor &>(self);
        return outImpl(OpI::name, self, self);
    }
    static Tensor &out(const Tensor &self, Tensor &out) {
        if (!isFamilyDtype(self.scalar_type()) || !isFamilyDtype(out.scalar_type())) {
            return detail::fallback<OpO, Tensor &, const Tensor &, Tensor &>(self, out);
        }
        return outImpl(OpO::name, self, out);
    }
};

using AbsOps = PlainUnary<INFINIOP_PW_ABS, at::_ops::abs, at::_ops::abs_, at::_ops::abs_out>;
using HardswishOps =
    PlainUnary<INFINIOP_PW_HARDSWISH, at::_ops::hardswish, at::_ops::hardswish_, at::_ops::hardswish_out>;

// A backward op of (grad, self) on a plain binary TensorIterator.
template <infiniopPointwiseOp_t OP, class OpF>
Tensor plainBackward(const Tensor &grad, const Tensor &self) {
    if (!detail::familyArgs(grad, self)) {
        return detail::fallback<OpF, Tensor, const Tensor &, const Tensor &>(grad, self);
    }
    Tensor out;
    auto it = at::TensorIterator::borrowing_binary_op(out, grad, self);
    Pw(OP).run(OpF::name, it);
    return it.output();
}

// isnan: a bool tensor; integers are never NaN.
Tensor isnan(const Tensor &self) {
    if (!isFamilyDtype(self.scalar_type())) return detail::fallback<at::_ops::isnan, Tensor, const Tensor &>(self);
    Tensor out = at::empty(self.sizes(), self.options().dtype(at::kBool));
    if (!at::isFloatingType(self.scalar_type())) return out.fill_(false);
    auto it = at::TensorIteratorConfig().check_all_same_dtype(false).add_output(out).add_const_input(self).build();
    Pw(INFINIOP_PW_ISNAN).run("aten::isnan", it, computeDtype(self.scalar_type()));
    return out;
}

// The shift operators (__lshift__ and friends): torch's binary_op iterator, in place for the __i*__ forms.
template <infiniopPointwiseOp_t OP, class Op>
Tensor shiftTensor(const Tensor &self, const Tensor &other) {
    if (!detail::familyArgs(self, other))
        return detail::fallback<Op, Tensor, const Tensor &, const Tensor &>(self, other);
    Tensor out;
    auto it = at::TensorIterator::binary_op(out, self, other);
    Pw(OP).run(Op::name, it);
    return it.output();
}
Tensor wrappedNumber(const Scalar &s) {
    Tensor t = at::scalar_tensor(s, at::TensorOptions().device(at::kCPU).dtype(s.type()));
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
}
template <infiniopPointwiseOp_t OP, class Op>
Tensor shiftScalar(const Tensor &self, const Scalar &other) {
    return shiftTensor<OP, Op>(self, wrappedNumber(other));
}
template <infiniopPointwiseOp_t OP, class Op>
Tensor &shiftTensorInplace(Tensor &self, const Tensor &other) {
    if (!detail::familyArgs(self, other)) return detail::fallback<Op, Tensor &, Tensor &, const Tensor &>(self, other);
    auto it = at::TensorIterator::binary_op(self, self, other);
    Pw(OP).run(Op::name, it);
    return self;
}
template <infiniopPointwiseOp_t OP, class Op>
Tensor &shiftScalarInplace(Tensor &self, const Scalar &other) {
    if (!detail::familyArgs(self, other)) return detail::fallback<Op, Tensor &, Tensor &, const Scalar &>(self, other);
    auto it = at::TensorIterator::binary_op(self, self, wrappedNumber(other));
    Pw(OP).run(Op::name, it);
    return self;
}

// floor_divide: Python's // (torch's own floor_divide kernel: div with rounding_mode="floor").
Tensor &floorDivideInto(const char *name, const Tensor &self, const Tensor &other, Tensor &out) {
    auto it = at::TensorIterator::binary_op(out, self, other);
    Pw(INFINIOP_PW_DIV_FLOOR).run(name, it);
    return out;
}
Tensor floorDivide(const Tensor &self, const Tensor &other) {
    if (!detail::familyArgs(self, other)) {
        return detail::fallback<at::_ops::floor_divide, Tensor, const Tensor &, const Tensor &>(self, other);
    }
    Tensor out;
    auto it = at::TensorIterator::binary_op(out, self, other);
    Pw(INFINIOP_PW_DIV_FLOOR).run("aten::floor_divide", it);
    return it.output();
}
Tensor &floorDivideInplace(Tensor &self, const Tensor &other) {
    if (!detail::familyArgs(self, other)) {
        return detail::fallback<at::_ops::floor_divide__Tensor, Tensor &, Tensor &, const Tensor &>(self, other);
    }
    return floorDivideInto("aten::floor_divide_.Tensor", self, other, self);
}
Tensor &floorDivideOut(const Tensor &self, const Tensor &other, Tensor &out) {
    if (!detail::familyArgs(self, other, out)) {
        return detail::fallback<at::_ops::floor_divide_out, Tensor &, const Tensor &, const Tensor &, Tensor &>(
            self, other, out);
    }
    return floorDivideInto("aten::floor_divide.out", self, other, out);
}

// pow(Scalar base, Tensor exponent): torch's meta gives the output; the base is the op's scalar.
void powScalarBase(const char *name, at::impl::MetaBase &op, const Scalar &base, const Tensor &exponent) {
    const Tensor &out = op.maybe_get_output(0);
    if (out.numel() == 0) return;
    if (base.equal(1.0)) {
        out.fill_(1);
        return;
    }
    auto it = at::TensorIteratorConfig()
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(out)
                  .add_const_input(exponent)
                  .build();
    Pw(INFINIOP_PW_RPOW_SCALAR).scalar(0, base).run(name, it, computeDtype(out.scalar_type()));
}

// hardtanh(self, min, max): clamp with both bounds.
Tensor &hardtanhImpl(const char *name, const Tensor &self, const Scalar &min, const Scalar &max, Tensor &out) {
    auto it = at::TensorIterator::unary_op(out, self);
    Pw p(INFINIOP_PW_CLAMP);
    p.scalar(0, min).scalar(1, max);
    p.a.i[2] = 3;
    p.run(name, it);
    return out;
}

Tensor hardtanh(const Tensor &self, const Scalar &min, const Scalar &max) {
    if (!detail::familyArgs(self)) {
        return detail::fallback<at::_ops::hardtanh, Tensor, const Tensor &, const Scalar &, const Scalar &>(self, min,
                                                                                                            max);
    }
    Tensor out = at::empty({0}, self.options());
    return hardtanhImpl("aten::hardtanh", self, min, max, out);
}

Tensor &hardtanhInplace(Tensor &self, const Scalar &min, const Scalar &max) {
    if (!detail::familyArgs(self)) {
        return detail::fallback<at::_ops::hardtanh_, Tensor &, Tensor &, const Scalar &, const Scalar &>(self, min,
                                                                                                         max);
    }
    return hardtanhImpl("aten::hardtanh_", self, min, max, self);
}

Tensor &hardtanhOut(const Tensor &self, const Scalar &min, const Scalar &max, Tensor &out) {
    if (!detail::familyArgs(self, out)) {
        return detail::fallback<at::_ops::hardtanh_out, Tensor &, const Tensor &, const Scalar &, const Scalar &,
                                Tensor &>(self, min, max, out);
    }
    return hardtanhImpl("aten::hardtanh.out", self, min, max, out);
}
using ReluOps = PlainUnary<INFINIOP_PW_RELU, at::_ops::relu, at::_ops::relu_, at::_ops::relu_out>;

// A logical binary op: output bool (or the given out's dtype), inputs of any dtype.
template <infiniopPointwiseOp_t OP, class OpF, class OpI, class OpO>
struct Logical {
    static Tensor &outImpl(const char *name, const Tensor &self, const Tensor &other, Tensor &out) {
        auto it = at::TensorIteratorConfig()
                      .check_all_same_dtype(false)
                      .add_output(out)
                      .add_const_input(self)
                      .add_const_input(other)
                      .build();
        Pw(OP).run(name, it, computeDtype(at::result_type(self, other)));
        return out;
    }
    static Tensor functional(const Tensor &self, const Tensor &other) {
        if (!detail::familyArgs(self, other)) {
            return detail::fallback<OpF, Tensor, const Tensor &, const Tensor &>(self, other);
        }
        Tensor out = at::empty({0}, self.options().dtype(at::kBool));
        return outImpl(OpF::name, self, other, out);
    }
    static Tensor &inplace(Tensor &self, const Tensor &other) {
        if (!detail::familyArgs(self, other)) {
            return detail::fallback<OpI, Tensor &, Tensor &, const Tensor &>(self, other);
        }
        return outImpl(OpI::name, self, other, self);
    }
    static Tensor &out(const Tensor &self, const Tensor &other, Tensor &out) {
        if (!detail::familyArgs(self, other, out)) {
            return detail::fallback<OpO, Tensor &, const Tensor &, const Tensor &, Tensor &>(self, other, out);
        }
        return outImpl(OpO::name, self, other, out);
    }
};

Tensor &logicalNotImpl(const char *name, const Tensor &self, Tensor &out) {
    auto it = at::TensorIteratorConfig().check_all_same_dtype(false).add_output(out).add_const_input(self).build();
    Pw(INFINIOP_PW_LOGICAL_NOT).run(name, it, computeDtype(self.scalar_type()));
    return out;
}

Tensor logicalNot(const Tensor &self) {
    if (!isFamilyDtype(self.scalar_type()))
        return detail::fallback<at::_ops::logical_not, Tensor, const Tensor &>(self);
    Tensor out = at::empty({0}, self.options().dtype(at::kBool));
    return logicalNotImpl("aten::logical_not", self, out);
}

Tensor &logicalNotInplace(Tensor &self) {
    if (!isFamilyDtype(self.scalar_type())) return detail::fallback<at::_ops::logical_not_, Tensor &, Tensor &>(self);
    return logicalNotImpl("aten::logical_not_", self, self);
}

Tensor &logicalNotOut(const Tensor &self, Tensor &out) {
    if (!detail::familyArgs(self, out)) {
        return detail::fallback<at::_ops::logical_not_out, Tensor &, const Tensor &, Tensor &>(self, out);
    }
    return logicalNotImpl("aten::logical_not.out", self, out);
}

// where(condition, self, other): no copies to the result type; the kernel converts on load.
Tensor &whereImpl(const char *name, const Tensor &cond, const Tensor &self, const Tensor &other, Tensor &out) {
    TORCH_CHECK(cond.scalar_type() == at::kBool || cond.scalar_type() == at::kByte,
                "where expected condition to be a boolean tensor, but got a tensor with dtype ", cond.scalar_type());
    auto it = at::TensorIteratorConfig()
                  .check_all_same_dtype(false)
                  .add_output(out)
                  .add_const_input(cond)
                  .add_const_input(self)
                  .add_const_input(other)
                  .build();
    Pw(INFINIOP_PW_WHERE).run(name, it, computeDtype(out.scalar_type()));
    return out;
}

Tensor where(const Tensor &cond, const Tensor &self, const Tensor &other) {
    if (!detail::familyArgs(cond, self, other)) {
        return detail::fallback<at::_ops::where_self, Tensor, const Tensor &, const Tensor &, const Tensor &>(
            cond, self, other);
    }
    Tensor out = at::empty({0}, self.options().dtype(at::result_type(self, other)));
    return whereImpl("aten::where.self", cond, self, other, out);
}

Tensor &whereOut(const Tensor &cond, const Tensor &self, const Tensor &other, Tensor &out) {
    if (!detail::familyArgs(cond, self, other, out)) {
        return detail::fallback<at::_ops::where_self_out, Tensor &, const Tensor &, const Tensor &, const Tensor &,
                                Tensor &>(cond, self, other, out);
    }
    TORCH_CHECK(out.scalar_type() == at::result_type(self, other), "where: expected out dtype ",
                at::result_type(self, other), ", got ", out.scalar_type());
    return whereImpl("aten::where.self_out", cond, self, other, out);
}

// masked_fill_(self, mask, value): self = mask ? value : self.
Tensor &maskedFillScalar(Tensor &self, const Tensor &mask, const Scalar &value) {
    if (!detail::familyArgs(self, mask, value)) {
        return detail::fallback<at::_ops::masked_fill__Scalar, Tensor &, Tensor &, const Tensor &, const Scalar &>(
            self, mask, value);
    }
    TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
                mask.scalar_type());
    TORCH_CHECK(self.device() == mask.device() || mask.dim() == 0, "masked_fill_: expected mask on ", self.device(),
                ", got ", mask.device());
    auto it = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self)
                  .add_const_input(mask)
                  .add_const_input(self)
                  .build();
    if (it.numel() == 0) return self;
    Pw p(INFINIOP_PW_WHERE);
    p.scalar(1, value);  // scratch for the constant below
    p.a.iter = iterOf(it);
    insertConstant(p.a, 2, p.a.f[1], p.a.i[1]);  // operands: self, mask, value, self
    p.a.compute = computeDtype(self.scalar_type());
    p.runIter("aten::masked_fill_.Scalar", self.device());
    return self;
}

Tensor &maskedFillTensor(Tensor &self, const Tensor &mask, const Tensor &value) {
    TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
                value.dim(), " dimension(s).");
    if (!value.device().is_cpu() && detail::familyArgs(self, mask, value)) {
        TORCH_CHECK(mask.scalar_type() == at::kBool,
                    "masked_fill_ only supports boolean masks, but got mask with "
                    "dtype ",
                    mask.scalar_type());
        auto it = at::TensorIteratorConfig()
                      .set_check_mem_overlap(false)
                      .check_all_same_dtype(false)
                      .resize_outputs(false)
                      .add_output(self)
                      .add_const_input(mask)
                      .add_const_input(value)
                      .add_const_input(self)
                      .build();
        Pw(INFINIOP_PW_WHERE).run("aten::masked_fill_.Tensor", it, computeDtype(self.scalar_type()));
        return self;
    }
    return maskedFillScalar(self, mask, value.item());
}

// nan_to_num(self, nan, posinf, neginf): the defaults are 0 and the dtype's largest / lowest finite values.
Tensor &nanToNumImpl(const char *name, const Tensor &self, std::optional<double> nan, std::optional<double> posinf,
                     std::optional<double> neginf, Tensor &out) {
    auto it = at::TensorIterator::unary_op(out, self);
    if (!at::isFloatingType(self.scalar_type())) {
        Pw(INFINIOP_PW_COPY).run(name, it);
        return out;
    }
    double big = 0, low = 0;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "nan_to_num", [&] {
        big = static_cast<double>(std::numeric_limits<scalar_t>::max());
        low = static_cast<double>(std::numeric_limits<scalar_t>::lowest());
    });
    Pw p(INFINIOP_PW_NAN_TO_NUM);
    p.a.f[0] = nan.value_or(0.0);
    p.a.f[1] = posinf.value_or(big);
    p.a.f[2] = neginf.value_or(low);
    p.run(name, it);
    return out;
}

Tensor nanToNum(const Tensor &self, std::optional<double> nan, std::optional<double> posinf,
                std::optional<double> neginf) {
    if (!isFamilyDtype(self.scalar_type())) {
        return detail::fallback<at::_ops::nan_to_num, Tensor, const Tensor &, std::optional<double>,
                                std::optional<double>, std::optional<double>>(self, nan, posinf, neginf);
    }
    Tensor out = at::empty({0}, self.options());
    return nanToNumImpl("aten::nan_to_num", self, nan, posinf, neginf, out);
}

Tensor &nanToNumOut(const Tensor &self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf, Tensor &out) {
    if (!detail::familyArgs(self, out)) {
        return detail::fallback<at::_ops::nan_to_num_out, Tensor &, const Tensor &, std::optional<double>,
                                std::optional<double>, std::optional<double>, Tensor &>(self, nan, posinf, neginf, out);
    }
    return nanToNumImpl("aten::nan_to_num.out", self, nan, posinf, neginf, out);
}

// hardtanh_backward(grad, self, min, max)
Tensor hardtanhBackwardInto(const Tensor &grad, const Tensor &self, const Scalar &min, const Scalar &max,
                            const Tensor &out) {
    auto it = at::TensorIterator::borrowing_binary_op(out, grad, self);
    Pw(INFINIOP_PW_HARDTANH_BWD).scalar(0, min).scalar(1, max).run("aten::hardtanh_backward", it);
    return it.output();
}

Tensor &hardtanhBackwardOut(const Tensor &grad, const Tensor &self, const Scalar &min, const Scalar &max, Tensor &out) {
    if (!detail::familyArgs(grad, self, out)) {
        return detail::fallback<at::_ops::hardtanh_backward_grad_input, Tensor &, const Tensor &, const Tensor &,
                                const Scalar &, const Scalar &, Tensor &>(grad, self, min, max, out);
    }
    hardtanhBackwardInto(grad, self, min, max, out);
    return out;
}

Tensor hardtanhBackward(const Tensor &grad, const Tensor &self, const Scalar &min, const Scalar &max) {
    if (!detail::familyArgs(grad, self)) {
        return detail::fallback<at::_ops::hardtanh_backward, Tensor, const Tensor &, const Tensor &, const Scalar &,
                                const Scalar &>(grad, self, min, max);
    }
    return hardtanhBackwardInto(grad, self, min, max, Tensor());
}

}  // namespace

void insertConstant(infiniopPointwiseArgs_t &a, int position, double f, int64_t i) {
    TORCH_CHECK(a.iter.noperands < INFINIOP_MAX_OPERANDS, "infini: too many operands");
    for (int k = a.iter.noperands; k > position; --k) {
        a.iter.data[k] = a.iter.data[k - 1];
        a.iter.dtype[k] = a.iter.dtype[k - 1];
        a.cf[k] = a.cf[k - 1];
        a.ci[k] = a.ci[k - 1];
        for (int d = 0; d < a.iter.ndim; ++d) a.iter.strides[k][d] = a.iter.strides[k - 1][d];
    }
    a.iter.data[position] = nullptr;
    a.iter.dtype[position] = a.iter.dtype[0];
    a.cf[position] = f;
    a.ci[position] = i;
    for (int d = 0; d < a.iter.ndim; ++d) a.iter.strides[position][d] = 0;
    a.iter.noperands += 1;
}

}  // namespace infini_torch::aten

using namespace infini_torch::aten;

#define UNARY(m, NAME, OP) \
    INFINI_STRUCTURED3(m, #NAME, #NAME "_", #NAME ".out", NAME, NAME##_, NAME##_out, structured_##NAME, &unary<OP>)
#define BINARY(m, NAME, OVL, OP)                                                                                  \
    INFINI_STRUCTURED3(m, #NAME "." #OVL, #NAME "_." #OVL, #NAME ".out", NAME##_##OVL, NAME##__##OVL, NAME##_out, \
                       structured_##NAME##_##OVL, &binary<OP>)
#define BINARY_PLAIN(m, NAME, OP) \
    INFINI_STRUCTURED3(m, #NAME, #NAME "_", #NAME ".out", NAME, NAME##_, NAME##_out, structured_##NAME, &binary<OP>)
#define COMPARE(m, NAME, OP)                                                                                     \
    INFINI_STRUCTURED3(m, #NAME ".Tensor", #NAME "_.Tensor", #NAME ".Tensor_out", NAME##_Tensor, NAME##__Tensor, \
                       NAME##_Tensor_out, structured_##NAME##_Tensor, &binary<OP>);                              \
    INFINI_STRUCTURED3(m, #NAME ".Scalar", #NAME "_.Scalar", #NAME ".Scalar_out", NAME##_Scalar, NAME##__Scalar, \
                       NAME##_Scalar_out, structured_##NAME##_Scalar, &binaryWithScalar<OP>)
#define BITWISE(m, NAME, OP)                                                                                     \
    INFINI_STRUCTURED3(m, #NAME ".Tensor", #NAME "_.Tensor", #NAME ".Tensor_out", NAME##_Tensor, NAME##__Tensor, \
                       NAME##_Tensor_out, structured_##NAME##_Tensor, &binary<OP>)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    // unary arithmetic and math
    UNARY(m, neg, INFINIOP_PW_NEG);
    UNARY(m, sign, INFINIOP_PW_SIGN);
    UNARY(m, sgn, INFINIOP_PW_SIGN);
    UNARY(m, reciprocal, INFINIOP_PW_RECIPROCAL);
    UNARY(m, sqrt, INFINIOP_PW_SQRT);
    UNARY(m, rsqrt, INFINIOP_PW_RSQRT);
    UNARY(m, exp, INFINIOP_PW_EXP);
    UNARY(m, exp2, INFINIOP_PW_EXP2);
    UNARY(m, expm1, INFINIOP_PW_EXPM1);
    UNARY(m, log, INFINIOP_PW_LOG);
    UNARY(m, log2, INFINIOP_PW_LOG2);
    UNARY(m, log10, INFINIOP_PW_LOG10);
    UNARY(m, log1p, INFINIOP_PW_LOG1P);
    UNARY(m, sin, INFINIOP_PW_SIN);
    UNARY(m, cos, INFINIOP_PW_COS);
    UNARY(m, tan, INFINIOP_PW_TAN);
    UNARY(m, asin, INFINIOP_PW_ASIN);
    UNARY(m, acos, INFINIOP_PW_ACOS);
    UNARY(m, atan, INFINIOP_PW_ATAN);
    UNARY(m, sinh, INFINIOP_PW_SINH);
    UNARY(m, cosh, INFINIOP_PW_COSH);
    UNARY(m, tanh, INFINIOP_PW_TANH);
    UNARY(m, asinh, INFINIOP_PW_ASINH);
    UNARY(m, acosh, INFINIOP_PW_ACOSH);
    UNARY(m, atanh, INFINIOP_PW_ATANH);
    UNARY(m, sigmoid, INFINIOP_PW_SIGMOID);
    UNARY(m, erf, INFINIOP_PW_ERF);
    UNARY(m, erfc, INFINIOP_PW_ERFC);
    UNARY(m, erfinv, INFINIOP_PW_ERFINV);
    UNARY(m, lgamma, INFINIOP_PW_LGAMMA);
    UNARY(m, digamma, INFINIOP_PW_DIGAMMA);
    UNARY(m, floor, INFINIOP_PW_FLOOR);
    UNARY(m, ceil, INFINIOP_PW_CEIL);
    UNARY(m, round, INFINIOP_PW_ROUND);
    UNARY(m, trunc, INFINIOP_PW_TRUNC);
    UNARY(m, frac, INFINIOP_PW_FRAC);
    UNARY(m, silu, INFINIOP_PW_SILU);
    UNARY(m, mish, INFINIOP_PW_MISH);
    UNARY(m, hardsigmoid, INFINIOP_PW_HARDSIGMOID);
    INFINI_STRUCTURED3(m, "bitwise_not", "bitwise_not_", "bitwise_not.out", bitwise_not, bitwise_not_, bitwise_not_out,
                       structured_bitwise_not, &bitwiseNot);
    INFINI_STRUCTURED2(m, "signbit", "signbit.out", signbit, signbit_out, structured_signbit,
                       &unary<INFINIOP_PW_SIGNBIT>);
    INFINI_STRUCTURED2(m, "isposinf", "isposinf.out", isposinf, isposinf_out, structured_isposinf,
                       &unary<INFINIOP_PW_ISPOSINF>);
    INFINI_STRUCTURED2(m, "isneginf", "isneginf.out", isneginf, isneginf_out, structured_isneginf,
                       &unary<INFINIOP_PW_ISNEGINF>);
    INFINI_STRUCTURED3(m, "round.decimals", "round_.decimals", "round.decimals_out", round_decimals, round__decimals,
                       round_decimals_out, structured_round_decimals, &roundDecimals);
    m.impl("abs", TORCH_FN(AbsOps::functional));
    m.impl("abs_", TORCH_FN(AbsOps::inplace));
    m.impl("abs.out", TORCH_FN(AbsOps::out));
    m.impl("relu", TORCH_FN(ReluOps::functional));
    m.impl("relu_", TORCH_FN(ReluOps::inplace));
    m.impl("logical_not", TORCH_FN(logicalNot));
    m.impl("logical_not_", TORCH_FN(logicalNotInplace));
    m.impl("logical_not.out", TORCH_FN(logicalNotOut));
    m.impl("nan_to_num", TORCH_FN(nanToNum));
    m.impl("nan_to_num.out", TORCH_FN(nanToNumOut));

    // binary arithmetic
    INFINI_STRUCTURED3(m, "add.Tensor", "add_.Tensor", "add.out", add_Tensor, add__Tensor, add_out,
                       structured_add_Tensor, &binaryAlpha<INFINIOP_PW_ADD>);
    INFINI_STRUCTURED3(m, "sub.Tensor", "sub_.Tensor", "sub.out", sub_Tensor, sub__Tensor, sub_out,
                       structured_sub_Tensor, &binaryAlpha<INFINIOP_PW_SUB>);
    BINARY(m, mul, Tensor, INFINIOP_PW_MUL);
    BINARY(m, div, Tensor, INFINIOP_PW_DIV);
    INFINI_STRUCTURED3(m, "div.Tensor_mode", "div_.Tensor_mode", "div.out_mode", div_Tensor_mode, div__Tensor_mode,
                       div_out_mode, structured_div_Tensor_mode, &divMode);
    INFINI_STRUCTURED3(m, "remainder.Tensor", "remainder_.Tensor", "remainder.Tensor_out", remainder_Tensor,
                       remainder__Tensor, remainder_Tensor_out, structured_remainder_Tensor,
                       &binary<INFINIOP_PW_REMAINDER>);
    INFINI_STRUCTURED3(m, "fmod.Tensor", "fmod_.Tensor", "fmod.Tensor_out", fmod_Tensor, fmod__Tensor, fmod_Tensor_out,
                       structured_fmod_Tensor, &binary<INFINIOP_PW_FMOD>);
    INFINI_STRUCTURED3(m, "pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out", pow_Tensor_Tensor, pow__Tensor,
                       pow_Tensor_Tensor_out, structured_pow_Tensor_Tensor, &binary<INFINIOP_PW_POW>);
    INFINI_STRUCTURED3(m, "pow.Tensor_Scalar", "pow_.Scalar", "pow.Tensor_Scalar_out", pow_Tensor_Scalar, pow__Scalar,
                       pow_Tensor_Scalar_out, structured_pow_Tensor_Scalar, &powScalar);
    BINARY_PLAIN(m, atan2, INFINIOP_PW_ATAN2);
    BINARY_PLAIN(m, hypot, INFINIOP_PW_HYPOT);
    INFINI_STRUCTURED3(m, "copysign.Tensor", "copysign_.Tensor", "copysign.out", copysign_Tensor, copysign__Tensor,
                       copysign_out, structured_copysign_Tensor, &binary<INFINIOP_PW_COPYSIGN>);
    INFINI_STRUCTURED3(m, "xlogy.Tensor", "xlogy_.Tensor", "xlogy.OutTensor", xlogy_Tensor, xlogy__Tensor,
                       xlogy_OutTensor, structured_xlogy_Tensor, &binary<INFINIOP_PW_XLOGY>);
    INFINI_STRUCTURED2(m, "maximum", "maximum.out", maximum, maximum_out, structured_maximum,
                       &binary<INFINIOP_PW_MAXIMUM>);
    INFINI_STRUCTURED2(m, "minimum", "minimum.out", minimum, minimum_out, structured_minimum,
                       &binary<INFINIOP_PW_MINIMUM>);
    INFINI_STRUCTURED2(m, "fmax", "fmax.out", fmax, fmax_out, structured_fmax, &binary<INFINIOP_PW_FMAX>);
    INFINI_STRUCTURED2(m, "fmin", "fmin.out", fmin, fmin_out, structured_fmin, &binary<INFINIOP_PW_FMIN>);

    // comparisons, logical and bitwise
    COMPARE(m, eq, INFINIOP_PW_EQ);
    COMPARE(m, ne, INFINIOP_PW_NE);
    COMPARE(m, lt, INFINIOP_PW_LT);
    COMPARE(m, le, INFINIOP_PW_LE);
    COMPARE(m, gt, INFINIOP_PW_GT);
    COMPARE(m, ge, INFINIOP_PW_GE);
    BITWISE(m, bitwise_and, INFINIOP_PW_BITWISE_AND);
    BITWISE(m, bitwise_or, INFINIOP_PW_BITWISE_OR);
    BITWISE(m, bitwise_xor, INFINIOP_PW_BITWISE_XOR);
    BITWISE(m, bitwise_left_shift, INFINIOP_PW_LSHIFT);
    BITWISE(m, bitwise_right_shift, INFINIOP_PW_RSHIFT);
    using LogicalAnd =
        Logical<INFINIOP_PW_LOGICAL_AND, at::_ops::logical_and, at::_ops::logical_and_, at::_ops::logical_and_out>;
    using LogicalOr =
        Logical<INFINIOP_PW_LOGICAL_OR, at::_ops::logical_or, at::_ops::logical_or_, at::_ops::logical_or_out>;
    using LogicalXor =
        Logical<INFINIOP_PW_LOGICAL_XOR, at::_ops::logical_xor, at::_ops::logical_xor_, at::_ops::logical_xor_out>;
    m.impl("logical_and", TORCH_FN(LogicalAnd::functional));
    m.impl("logical_and_", TORCH_FN(LogicalAnd::inplace));
    m.impl("logical_and.out", TORCH_FN(LogicalAnd::out));
    m.impl("logical_or", TORCH_FN(LogicalOr::functional));
    m.impl("logical_or_", TORCH_FN(LogicalOr::inplace));
    m.impl("logical_or.out", TORCH_FN(LogicalOr::out));
    m.impl("logical_xor", TORCH_FN(LogicalXor::functional));
    m.impl("logical_xor_", TORCH_FN(LogicalXor::inplace));
    m.impl("logical_xor.out", TORCH_FN(LogicalXor::out));

    // activations and their backward forms
    INFINI_STRUCTURED3(m, "gelu", "gelu_", "gelu.out", gelu, gelu_, gelu_out, structured_gelu, &geluImpl);
    INFINI_STRUCTURED3(m, "leaky_relu", "leaky_relu_", "leaky_relu.out", leaky_relu, leaky_relu_, leaky_relu_out,
                       structured_leaky_relu, &leakyRelu);
    INFINI_STRUCTURED3(m, "elu", "elu_", "elu.out", elu, elu_, elu_out, structured_elu, &eluImpl);
    INFINI_STRUCTURED3(m, "threshold", "threshold_", "threshold.out", threshold, threshold_, threshold_out,
                       structured_threshold, &thresholdImpl);
    INFINI_STRUCTURED2(m, "softplus", "softplus.out", softplus, softplus_out, structured_softplus, &softplusImpl);
#define BACKWARD2(NAME, META, IMPL) \
    INFINI_STRUCTURED2(m, #NAME, #NAME ".grad_input", NAME, NAME##_grad_input, META, IMPL)
    // silu_backward / mish_backward are CompositeImplicitAutograd in torch: registering them trades their double
    // backward (torch's decomposition) for one kernel in every training step's backward
    BACKWARD2(silu_backward, structured_silu_backward, &binary<INFINIOP_PW_SILU_BWD>);
    BACKWARD2(gelu_backward, structured_gelu_backward, &geluBackward);
    BACKWARD2(tanh_backward, structured_tanh_backward, &binary<INFINIOP_PW_TANH_BWD>);
    BACKWARD2(sigmoid_backward, structured_sigmoid_backward, &binary<INFINIOP_PW_SIGMOID_BWD>);
    BACKWARD2(threshold_backward, structured_threshold_backward, &thresholdBackward);
    BACKWARD2(leaky_relu_backward, structured_leaky_relu_backward, &leakyReluBackward);
    BACKWARD2(elu_backward, structured_elu_backward, &eluBackward);
    BACKWARD2(softplus_backward, structured_softplus_backward, &softplusBackward);
    BACKWARD2(hardsigmoid_backward, structured_hardsigmoid_backward, &binary<INFINIOP_PW_HARDSIGMOID_BWD>);
    BACKWARD2(logit_backward, structured_logit_backward, &logitBackward);
#undef BACKWARD2
    m.impl("hardtanh_backward", TORCH_FN(hardtanhBackward));
    m.impl("hardtanh", TORCH_FN(hardtanh));
    m.impl("isnan", TORCH_FN(isnan));
    m.impl("floor_divide", TORCH_FN(floorDivide));
    m.impl("floor_divide_.Tensor", TORCH_FN(floorDivideInplace));
    m.impl("floor_divide.out", TORCH_FN(floorDivideOut));

    m.impl("__lshift__.Tensor", TORCH_FN((shiftTensor<INFINIOP_PW_LSHIFT, at::_ops::__lshift___Tensor>)));
    m.impl("__lshift__.Scalar", TORCH_FN((shiftScalar<INFINIOP_PW_LSHIFT, at::_ops::__lshift___Tensor>)));
    m.impl("__rshift__.Tensor", TORCH_FN((shiftTensor<INFINIOP_PW_RSHIFT, at::_ops::__rshift___Tensor>)));
    m.impl("__rshift__.Scalar", TORCH_FN((shiftScalar<INFINIOP_PW_RSHIFT, at::_ops::__rshift___Tensor>)));
    m.impl("__ilshift__.Tensor", TORCH_FN((shiftTensorInplace<INFINIOP_PW_LSHIFT, at::_ops::__ilshift___Tensor>)));
    m.impl("__ilshift__.Scalar", TORCH_FN((shiftScalarInplace<INFINIOP_PW_LSHIFT, at::_ops::__ilshift___Scalar>)));
    m.impl("__irshift__.Tensor", TORCH_FN((shiftTensorInplace<INFINIOP_PW_RSHIFT, at::_ops::__irshift___Tensor>)));
    m.impl("__irshift__.Scalar", TORCH_FN((shiftScalarInplace<INFINIOP_PW_RSHIFT, at::_ops::__irshift___Scalar>)));
    INFINI_STRUCTURED2(m, "pow.Scalar", "pow.Scalar_out", pow_Scalar, pow_Scalar_out, structured_pow_Scalar,
                       &powScalarBase);
    m.impl("hardtanh_", TORCH_FN(hardtanhInplace));
    m.impl("hardtanh.out", TORCH_FN(hardtanhOut));
    m.impl("hardswish", TORCH_FN(HardswishOps::functional));
    m.impl("hardswish_", TORCH_FN(HardswishOps::inplace));
    m.impl("hardswish.out", TORCH_FN(HardswishOps::out));
    m.impl("hardswish_backward", TORCH_FN((plainBackward<INFINIOP_PW_HARDSWISH_BWD, at::_ops::hardswish_backward>)));
    m.impl("mish_backward", TORCH_FN((plainBackward<INFINIOP_PW_MISH_BWD, at::_ops::mish_backward>)));
    m.impl("hardtanh_backward.grad_input", TORCH_FN(hardtanhBackwardOut));

    // clamp, lerp, addcmul / addcdiv, where, masked_fill
    INFINI_STRUCTURED3(m, "clamp", "clamp_", "clamp.out", clamp, clamp_, clamp_out, structured_clamp, &clampScalars);
    INFINI_STRUCTURED3(m, "clamp.Tensor", "clamp_.Tensor", "clamp.Tensor_out", clamp_Tensor, clamp__Tensor,
                       clamp_Tensor_out, structured_clamp_Tensor, &clampTensors);
    INFINI_STRUCTURED3(m, "clamp_min", "clamp_min_", "clamp_min.out", clamp_min, clamp_min_, clamp_min_out,
                       structured_clamp_min, &clampMin);
    INFINI_STRUCTURED3(m, "clamp_max", "clamp_max_", "clamp_max.out", clamp_max, clamp_max_, clamp_max_out,
                       structured_clamp_max, &clampMax);
    INFINI_STRUCTURED3(m, "clamp_min.Tensor", "clamp_min_.Tensor", "clamp_min.Tensor_out", clamp_min_Tensor,
                       clamp_min__Tensor, clamp_min_Tensor_out, structured_clamp_min_Tensor, &clampMinTensor);
    INFINI_STRUCTURED3(m, "clamp_max.Tensor", "clamp_max_.Tensor", "clamp_max.Tensor_out", clamp_max_Tensor,
                       clamp_max__Tensor, clamp_max_Tensor_out, structured_clamp_max_Tensor, &clampMaxTensor);
    INFINI_STRUCTURED3(m, "lerp.Scalar", "lerp_.Scalar", "lerp.Scalar_out", lerp_Scalar, lerp__Scalar, lerp_Scalar_out,
                       structured_lerp_Scalar, &lerpScalar);
    INFINI_STRUCTURED3(m, "lerp.Tensor", "lerp_.Tensor", "lerp.Tensor_out", lerp_Tensor, lerp__Tensor, lerp_Tensor_out,
                       structured_lerp_Tensor, &lerpTensor);
    INFINI_STRUCTURED3(m, "addcmul", "addcmul_", "addcmul.out", addcmul, addcmul_, addcmul_out, structured_addcmul,
                       &addcOp<INFINIOP_PW_ADDCMUL>);
    INFINI_STRUCTURED3(m, "addcdiv", "addcdiv_", "addcdiv.out", addcdiv, addcdiv_, addcdiv_out, structured_addcdiv,
                       &addcOp<INFINIOP_PW_ADDCDIV>);
    m.impl("where.self", TORCH_FN(where));
    m.impl("where.self_out", TORCH_FN(whereOut));
    m.impl("masked_fill_.Scalar", TORCH_FN(maskedFillScalar));
    m.impl("masked_fill_.Tensor", TORCH_FN(maskedFillTensor));
}
