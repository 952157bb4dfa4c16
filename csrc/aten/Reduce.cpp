// Reduce.cpp: the reductions on the reduce family (infiniopReduce): sum, mean, prod, nansum, amax / amin, aminmax,
// max / min (along a dim with indices, and over everything), argmax / argmin, any / all, vector norms, var / std
// (and with the mean), logsumexp, count_nonzero, trace.
//
// Structured ops run torch's meta (dims, keepdim, dtype and shape checks, the outputs) and then build the reduction
// iterator as torch's impl does: the outputs viewed with the reduced dims kept at stride 0, over the input. Torch
// reads self.to(dtype) where the computation's dtype differs; the kernel converts on load instead where that gives
// the same values (familyInput). The other ops follow torch's own code for their checks and dtypes. An empty input
// fills the outputs with the reduction's identity, as torch does; the kernel sees only non-empty ones.
#include <ATen/ATen.h>
#include <ATen/Operators.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/all_meta.h>
#include <ATen/ops/amax_meta.h>
#include <ATen/ops/amin_meta.h>
#include <ATen/ops/aminmax_meta.h>
#include <ATen/ops/any_meta.h>
#include <ATen/ops/argmax_meta.h>
#include <ATen/ops/argmin_meta.h>
#include <ATen/ops/linalg_vector_norm_meta.h>
#include <ATen/ops/max_meta.h>
#include <ATen/ops/mean_meta.h>
#include <ATen/ops/min_meta.h>
#include <ATen/ops/norm_meta.h>
#include <ATen/ops/prod_meta.h>
#include <ATen/ops/sum_meta.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "Family.h"
#include "Reduce.h"
#include "Structured.h"

namespace infini_torch::aten {

at::Tensor familyInput(const at::Tensor &self, at::ScalarType dtype) {
    if (self.scalar_type() == dtype) return self;
    const bool widens_alike = dtype == at::kFloat || dtype == at::kDouble || dtype == at::kLong;
    if (widens_alike && isFamilyDtype(self.scalar_type())) return self;
    return self.to(dtype);
}

namespace {

using at::Scalar;
using at::ScalarType;
using at::Tensor;
using at::impl::MetaBase;
using at::native::DimMask;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// The reduced dims: those listed; all when the list is absent, or empty unless `empty_is_none`.
DimMask maskOf(const Tensor &self, at::OptionalIntArrayRef dims, bool empty_is_none = false) {
    if (empty_is_none && dims.has_value() && dims->empty()) return DimMask();
    return at::native::make_dim_mask(dims, self.dim());
}

DimMask maskOfDim(const Tensor &self, int64_t dim) { return maskOf(self, at::IntArrayRef(dim)); }

void checkDtype(const char *name, ScalarType t) {
    TORCH_CHECK(isFamilyDtype(t), name, ": dtype ", t, " is not supported on the infini device");
}

// Runs reduce `op` over self's `mask` dims into out0 (and out1), reading self as `in_dtype` (familyInput) and
// computing in its compute dtype. Returns false, having run nothing, when self is empty.
bool reduceInto(const char *name, infiniopReduceOp_t op, const Tensor &self, const DimMask &mask, bool keepdim,
                ScalarType in_dtype, const Tensor &out0, const Tensor *out1 = nullptr, double f0 = 0.0) {
    if (self.numel() == 0) return false;
    checkDtype(name, in_dtype);
    checkDtype(name, out0.scalar_type());
    const int64_t ndim = self.dim();
    const Tensor in = familyInput(self, in_dtype);
    at::TensorIteratorConfig config;
    config.set_check_mem_overlap(false).resize_outputs(false).is_reduction(true).check_all_same_dtype(false);
    config.add_owned_output(at::native::review_reduce_result(out0, static_cast<int>(ndim), mask, keepdim));
    if (out1 != nullptr) {
        config.add_owned_output(at::native::review_reduce_result(*out1, static_cast<int>(ndim), mask, keepdim));
    }
    config.add_owned_const_input(in);
    auto iter = config.build();
    infiniopReduceArgs_t a{};
    a.op = op;
    a.compute = computeDtype(in_dtype);
    a.noutputs = out1 != nullptr ? 2 : 1;
    a.f[0] = f0;
    a.iter = iterOf(iter);
    const c10::DeviceGuard guard(self.device());  // the family queues on the current device's stream
    runFamily(name, infiniopReduce, self.device(), a);
    return true;
}

// ---- structured reductions: impl(name, meta, meta args...) ----

void sumImpl(const char *name, MetaBase &m, const Tensor &self, at::OptionalIntArrayRef dim, bool keepdim,
             std::optional<ScalarType>) {
    const Tensor &out = m.maybe_get_output(0);
    if (!reduceInto(name, INFINIOP_REDUCE_SUM, self, maskOf(self, dim), keepdim, out.scalar_type(), out)) out.zero_();
}

void meanImpl(const char *name, MetaBase &m, const Tensor &self, at::OptionalIntArrayRef dim, bool keepdim,
              std::optional<ScalarType>) {
    const Tensor &out = m.maybe_get_output(0);
    if (!reduceInto(name, INFINIOP_REDUCE_MEAN, self, maskOf(self, dim), keepdim, out.scalar_type(), out)) {
        out.fill_(kNan);
    }
}

void prodImpl(const char *name, MetaBase &m, const Tensor &self, int64_t dim, bool keepdim, std::optional<ScalarType>) {
    const Tensor &out = m.maybe_get_output(0);
    if (!reduceInto(name, INFINIOP_REDUCE_PROD, self, maskOfDim(self, dim), keepdim, out.scalar_type(), out)) {
        out.fill_(1);
    }
}

template <infiniopReduceOp_t OP>
void extremeImpl(const char *name, MetaBase &m, const Tensor &self, at::IntArrayRef dim, bool keepdim) {
    reduceInto(name, OP, self, maskOf(self, dim), keepdim, self.scalar_type(), m.maybe_get_output(0));
}

// max.dim / min.dim: values and indices (first index of the extreme, or of the first NaN).
template <infiniopReduceOp_t OP>
void extremeDimImpl(const char *name, MetaBase &m, const Tensor &self, int64_t dim, bool keepdim) {
    const Tensor &values = m.maybe_get_output(0);
    const Tensor &indices = m.maybe_get_output(1);
    reduceInto(name, OP, self, maskOfDim(self, dim), keepdim, self.scalar_type(), values, &indices);
}

// argmax / argmin: along dim, or over the flattened input.
template <infiniopReduceOp_t OP>
void argImpl(const char *name, MetaBase &m, const Tensor &self, std::optional<int64_t> dim, bool keepdim) {
    const Tensor &out = m.maybe_get_output(0);
    if (dim.has_value()) {
        reduceInto(name, OP, self, maskOfDim(self, *dim), keepdim, self.scalar_type(), out);
        return;
    }
    const Tensor flat = self.reshape({-1});
    reduceInto(name, OP, flat, maskOf(flat, std::nullopt), false, self.scalar_type(), out.view(at::IntArrayRef()));
}

// any / all: the result is bool (uint8 for uint8 input, or the out tensor's of those two).
template <infiniopReduceOp_t OP>
void anyAllFill(const Tensor &out) {
    out.fill_(OP == INFINIOP_REDUCE_ALL ? 1 : 0);
}
template <infiniopReduceOp_t OP>
void anyAllDimImpl(const char *name, MetaBase &m, const Tensor &self, int64_t dim, bool keepdim) {
    const Tensor &out = m.maybe_get_output(0);
    if (!reduceInto(name, OP, self, maskOfDim(self, dim), keepdim, self.scalar_type(), out)) anyAllFill<OP>(out);
}
template <infiniopReduceOp_t OP>
void anyAllDimsImpl(const char *name, MetaBase &m, const Tensor &self, at::OptionalIntArrayRef dim, bool keepdim) {
    const Tensor &out = m.maybe_get_output(0);
    if (!reduceInto(name, OP, self, maskOf(self, dim, true), keepdim, self.scalar_type(), out)) anyAllFill<OP>(out);
}
template <infiniopReduceOp_t OP>
void anyAllAllImpl(const char *name, MetaBase &m, const Tensor &self) {
    const Tensor &out = m.maybe_get_output(0);
    if (!reduceInto(name, OP, self, maskOf(self, std::nullopt), false, self.scalar_type(), out)) anyAllFill<OP>(out);
}

void aminmaxImpl(const char *name, MetaBase &m, const Tensor &self, std::optional<int64_t> dim, bool keepdim) {
    const Tensor &mn = m.maybe_get_output(0);
    const Tensor &mx = m.maybe_get_output(1);
    const DimMask mask = dim.has_value() ? maskOfDim(self, *dim) : maskOf(self, std::nullopt);
    reduceInto(name, INFINIOP_REDUCE_MIN, self, mask, keepdim, self.scalar_type(), mn);
    reduceInto(name, INFINIOP_REDUCE_MAX, self, mask, keepdim, self.scalar_type(), mx);
}

// linalg_vector_norm: over extents of 1 only, |x| (or x != 0 for ord 0), as torch; else the NORM reduction.
void vectorNormImpl(const char *name, MetaBase &m, const Tensor &self, const Scalar &scalar_ord,
                    at::OptionalIntArrayRef opt_dim, bool keepdim, std::optional<ScalarType> opt_dtype) {
    Tensor &out = const_cast<Tensor &>(m.maybe_get_output(0));
    const double ord = scalar_ord.toDouble();
    const int64_t ndim = self.dim();
    std::vector<int64_t> reduce_dim;
    if (!opt_dim.has_value() || opt_dim->empty()) {
        reduce_dim.resize(static_cast<size_t>(ndim));
        std::iota(reduce_dim.begin(), reduce_dim.end(), int64_t(0));
    } else {
        reduce_dim = opt_dim->vec();
        at::maybe_wrap_dims(reduce_dim, ndim);
    }
    bool over_ones = true;
    for (int64_t d : reduce_dim) over_ones = over_ones && (ndim == 0 || self.size(d) == 1);
    if (over_ones) {
        const Tensor x = opt_dtype.has_value() ? self.to(*opt_dtype) : self;
        const Tensor src = keepdim ? x : x.squeeze(reduce_dim);
        if (ord != 0.0) {
            at::abs_outf(src, out);
        } else {
            at::ne_outf(src, 0, out);
        }
        return;
    }
    if (!reduceInto(name, INFINIOP_REDUCE_NORM, self, maskOf(self, opt_dim), keepdim, out.scalar_type(), out, nullptr,
                    ord)) {
        out.zero_();
    }
}

// norm.ScalarOpt_dim(_dtype): torch computes it as linalg_vector_norm.
void normImpl(const char *, MetaBase &m, const Tensor &self, at::OptionalScalarRef p, at::IntArrayRef dim,
              bool keepdim) {
    Tensor &out = const_cast<Tensor &>(m.maybe_get_output(0));
    at::linalg_vector_norm_outf(self, p.has_value() ? p.get() : Scalar(2.0), dim, keepdim, std::nullopt, out);
}
void normDtypeImpl(const char *, MetaBase &m, const Tensor &self, at::OptionalScalarRef p, at::IntArrayRef dim,
                   bool keepdim, ScalarType dtype) {
    Tensor &out = const_cast<Tensor &>(m.maybe_get_output(0));
    at::linalg_vector_norm_outf(self, p.has_value() ? p.get() : Scalar(2.0), dim, keepdim, dtype, out);
}

// ---- non-structured ops (their exact overloads) ----

Tensor prodAll(const Tensor &self, std::optional<ScalarType> dtype) {
    if (!detail::familyArgs(self))
        return detail::fallback<at::_ops::prod, Tensor, const Tensor &, std::optional<ScalarType>>(self, dtype);
    const ScalarType out_dtype = at::native::get_dtype_from_self(self, dtype, true);
    Tensor out = at::empty({}, self.options().dtype(out_dtype));
    if (!reduceInto("aten::prod", INFINIOP_REDUCE_PROD, self, maskOf(self, std::nullopt), false, out_dtype, out)) {
        out.fill_(1);
    }
    return out;
}

// max() / min() over everything: the identity for an empty input with out= (torch's CPU kernel), else an error.
template <bool kMax>
Scalar extremeIdentity(ScalarType t) {
    switch (t) {
        case at::kBool: return Scalar(!kMax);
        case at::kByte: return Scalar(int64_t(kMax ? 0 : 255));
        case at::kChar: return Scalar(int64_t(kMax ? -128 : 127));
        case at::kShort: return Scalar(int64_t(kMax ? -32768 : 32767));
        case at::kInt:
            return Scalar(int64_t(kMax ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max()));
        case at::kLong: return Scalar(kMax ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max());
        default:
            return Scalar(kMax ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
    }
}

template <bool kMax>
Tensor extremeAll(const Tensor &self) {
    using Op = std::conditional_t<kMax, at::_ops::max, at::_ops::min>;
    if (!detail::familyArgs(self)) return detail::fallback<Op, Tensor, const Tensor &>(self);
    TORCH_CHECK(self.numel() > 0, kMax ? "max(): " : "min(): ",
                "Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
                "'dim' argument.");
    Tensor out = at::empty({}, self.options());
    reduceInto(Op::name, kMax ? INFINIOP_REDUCE_MAX : INFINIOP_REDUCE_MIN, self, maskOf(self, std::nullopt), false,
               self.scalar_type(), out);
    return out;
}

template <bool kMax>
Tensor &extremeAllOut(const Tensor &self, Tensor &out) {
    using Op = std::conditional_t<kMax, at::_ops::max_unary_out, at::_ops::min_unary_out>;
    if (!detail::familyArgs(self, out)) return detail::fallback<Op, Tensor &, const Tensor &, Tensor &>(self, out);
    TORCH_CHECK(self.device() == out.device(), Op::name, ": expected out on ", self.device(), ", got ", out.device());
    TORCH_CHECK(at::canCast(self.scalar_type(), out.scalar_type()), Op::name, ": result type ", self.scalar_type(),
                " can't be cast to the desired output type ", out.scalar_type());
    at::native::resize_output(out, {});
    if (!reduceInto(Op::name, kMax ? INFINIOP_REDUCE_MAX : INFINIOP_REDUCE_MIN, self, maskOf(self, std::nullopt), false,
                    self.scalar_type(), out)) {
        out.fill_(extremeIdentity<kMax>(self.scalar_type()));
    }
    return out;
}

// trace: the sum of the diagonal (a view), integers summed as int64.
Tensor trace(const Tensor &self) {
    if (!detail::familyArgs(self)) return detail::fallback<at::_ops::trace, Tensor, const Tensor &>(self);
    TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
    const Tensor diagonal = self.diagonal();
    const ScalarType dtype = at::native::get_dtype_from_self(self, std::nullopt, true);
    Tensor out = at::empty({}, self.options().dtype(dtype));
    if (!reduceInto("aten::trace", INFINIOP_REDUCE_SUM, diagonal, maskOf(diagonal, std::nullopt), false, dtype, out)) {
        out.zero_();
    }
    return out;
}

Tensor countNonzero(const Tensor &self, at::IntArrayRef dims) {
    if (!detail::familyArgs(self)) {
        return detail::fallback<at::_ops::count_nonzero_dim_IntList, Tensor, const Tensor &, at::IntArrayRef>(self,
                                                                                                              dims);
    }
    const DimMask mask = maskOf(self, dims);
    Tensor out = at::empty(at::native::shape_from_dim_mask(self, mask, false), self.options().dtype(at::kLong));
    if (!reduceInto("aten::count_nonzero.dim_IntList", INFINIOP_REDUCE_COUNT_NONZERO, self, mask, false,
                    self.scalar_type(), out)) {
        out.zero_();
    }
    return out;
}

Tensor &nansumOut(const Tensor &self, at::OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> opt_dtype,
                  Tensor &result) {
    if (!detail::familyArgs(self, result)) {
        return detail::fallback<at::_ops::nansum_out, Tensor &, const Tensor &, at::OptionalIntArrayRef, bool,
                                std::optional<ScalarType>, Tensor &>(self, dim, keepdim, opt_dtype, result);
    }
    if (at::isIntegralType(self.scalar_type(), true)) return at::sum_out(result, self, dim, keepdim, opt_dtype);
    const ScalarType dtype = at::native::get_dtype_from_result(result, opt_dtype);
    TORCH_CHECK(result.scalar_type() == dtype, "nansum: provided dtype must match dtype of result. Got ",
                toString(result.scalar_type()), " and ", toString(dtype), ".");
    const DimMask mask = maskOf(self, dim);
    at::native::resize_output(result, at::native::shape_from_dim_mask(self, mask, keepdim));
    if (!reduceInto("aten::nansum.out", INFINIOP_REDUCE_NANSUM, self, mask, keepdim, dtype, result)) result.zero_();
    return result;
}

Tensor nansum(const Tensor &self, at::OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> opt_dtype) {
    if (!detail::familyArgs(self)) {
        return detail::fallback<at::_ops::nansum, Tensor, const Tensor &, at::OptionalIntArrayRef, bool,
                                std::optional<ScalarType>>(self, dim, keepdim, opt_dtype);
    }
    const ScalarType dtype = at::native::get_dtype_from_self(self, opt_dtype, true);
    Tensor result = at::native::create_reduction_result(self, dim, keepdim, dtype);
    return nansumOut(self, dim, keepdim, opt_dtype, result);
}

Tensor &logsumexpOut(const Tensor &self, at::IntArrayRef dims, bool keepdim, Tensor &result) {
    if (!detail::familyArgs(self, result)) {
        return detail::fallback<at::_ops::logsumexp_out, Tensor &, const Tensor &, at::IntArrayRef, bool, Tensor &>(
            self, dims, keepdim, result);
    }
    TORCH_CHECK(at::isFloatingType(result.scalar_type()) || at::isComplexType(result.scalar_type()),
                "logsumexp(): Expected floating point type for result tensor, but got: ", result.scalar_type());
    const Tensor in = at::isIntegralType(self.scalar_type(), true)
                          ? self.to(at::typeMetaToScalarType(c10::get_default_dtype()))
                          : self;
    const DimMask mask = maskOf(in, dims);
    at::native::resize_output(result, at::native::shape_from_dim_mask(in, mask, keepdim));
    if (!reduceInto("aten::logsumexp.out", INFINIOP_REDUCE_LOGSUMEXP, in, mask, keepdim, result.scalar_type(),
                    result)) {
        result.fill_(-std::numeric_limits<double>::infinity());
    }
    return result;
}

// var / std (and with the mean), as torch's std_var_out / std_var_mean_out.
void warnDegreesOfFreedom(const char *fname, const at::TensorIterator &iter, double correction) {
    const int64_t per_output = iter.num_output_elements() == 0 ? 0 : iter.numel() / iter.num_output_elements();
    if (static_cast<double>(per_output) - correction <= 0) {
        TORCH_WARN(fname,
                   "(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                   "factor (input numel divided by output numel).");
    }
}

void checkStdVar(const char *fname, const Tensor &self) {
    TORCH_CHECK(self.layout() == at::Layout::Strided, fname, " only supports strided layout, got: ", self.layout());
    TORCH_CHECK(at::isFloatingType(self.scalar_type()), "std and var only support floating point and complex dtypes");
}

void runMoments(const char *name, at::TensorIterator &iter, bool take_sqrt, double correction, ScalarType dtype,
                int noutputs, c10::Device device) {
    infiniopReduceArgs_t a{};
    a.op = take_sqrt ? INFINIOP_REDUCE_STD : INFINIOP_REDUCE_VAR;
    a.compute = computeDtype(dtype);
    a.noutputs = noutputs;
    a.f[0] = correction;
    a.iter = iterOf(iter);
    const c10::DeviceGuard guard(device);  // the family queues on the current device's stream
    runFamily(name, infiniopReduce, device, a);
}

Tensor &stdVarOut(const char *fname, const char *name, Tensor &result, const Tensor &self, at::OptionalIntArrayRef dim,
                  const std::optional<Scalar> &correction_opt, bool keepdim, bool take_sqrt) {
    checkStdVar(fname, self);
    const double correction = correction_opt.value_or(1).toDouble();
    const ScalarType dtype = at::native::get_dtype_from_result(result, {});
    auto iter = at::native::make_reduction(fname, result, self, dim, keepdim, dtype);
    TORCH_CHECK(at::canCast(self.scalar_type(), result.scalar_type()), "result type ", self.scalar_type(),
                " can't be cast to the desired output type ", result.scalar_type());
    warnDegreesOfFreedom(fname, iter, correction);
    if (iter.numel() == 0) {
        result.fill_(kNan);
    } else {
        runMoments(name, iter, take_sqrt, correction, dtype, 1, self.device());
    }
    return result;
}

template <bool kStd>
Tensor stdVar(const Tensor &self, at::OptionalIntArrayRef dim, const std::optional<Scalar> &correction, bool keepdim) {
    using Op = std::conditional_t<kStd, at::_ops::std_correction, at::_ops::var_correction>;
    if (!detail::familyArgs(self, correction)) {
        return detail::fallback<Op, Tensor, const Tensor &, at::OptionalIntArrayRef, const std::optional<Scalar> &,
                                bool>(self, dim, correction, keepdim);
    }
    Tensor result = at::empty({0}, self.options().dtype(c10::toRealValueType(self.scalar_type())));
    return stdVarOut(kStd ? "std" : "var", Op::name, result, self, dim, correction, keepdim, kStd);
}

template <bool kStd>
Tensor &stdVarOutForm(const Tensor &self, at::OptionalIntArrayRef dim, const std::optional<Scalar> &correction,
                      bool keepdim, Tensor &result) {
    using Op = std::conditional_t<kStd, at::_ops::std_correction_out, at::_ops::var_correction_out>;
    if (!detail::familyArgs(self, correction, result)) {
        return detail::fallback<Op, Tensor &, const Tensor &, at::OptionalIntArrayRef, const std::optional<Scalar> &,
                                bool, Tensor &>(self, dim, correction, keepdim, result);
    }
    return stdVarOut(kStd ? "std" : "var", Op::name, result, self, dim, correction, keepdim, kStd);
}

template <bool kStd>
std::tuple<Tensor, Tensor> stdVarMean(const Tensor &self, at::OptionalIntArrayRef dim,
                                      const std::optional<Scalar> &correction_opt, bool keepdim) {
    using Op = std::conditional_t<kStd, at::_ops::std_mean_correction, at::_ops::var_mean_correction>;
    using R = std::tuple<Tensor, Tensor>;
    if (!detail::familyArgs(self, correction_opt)) {
        return detail::fallback<Op, R, const Tensor &, at::OptionalIntArrayRef, const std::optional<Scalar> &, bool>(
            self, dim, correction_opt, keepdim);
    }
    const char *fname = kStd ? "std_mean" : "var_mean";
    checkStdVar(fname, self);
    Tensor result1 = at::empty({0}, self.options().dtype(c10::toRealValueType(self.scalar_type())));
    Tensor result2 = at::empty({0}, self.options());
    const double correction = correction_opt.value_or(1).toDouble();
    const ScalarType dtype = at::native::get_dtype_from_result(result1, {});
    auto iter = at::native::make_reduction(fname, result1, result2, self, dim, keepdim, dtype);
    warnDegreesOfFreedom(fname, iter, correction);
    if (iter.numel() == 0) {
        result1.fill_(kNan);
        result2.fill_(kNan);
    } else {
        runMoments(Op::name, iter, kStd, correction, dtype, 2, self.device());
    }
    return R(result1, result2);
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    INFINI_STRUCTURED2(m, "sum.dim_IntList", "sum.IntList_out", sum_dim_IntList, sum_IntList_out,
                       structured_sum_dim_IntList, &sumImpl);
    INFINI_STRUCTURED2(m, "mean.dim", "mean.out", mean_dim, mean_out, structured_mean_dim, &meanImpl);
    INFINI_STRUCTURED2(m, "prod.dim_int", "prod.int_out", prod_dim_int, prod_int_out, structured_prod_dim_int,
                       &prodImpl);
    m.impl("prod", TORCH_FN(prodAll));
    INFINI_STRUCTURED2(m, "amax", "amax.out", amax, amax_out, structured_amax, &extremeImpl<INFINIOP_REDUCE_MAX>);
    INFINI_STRUCTURED2(m, "amin", "amin.out", amin, amin_out, structured_amin, &extremeImpl<INFINIOP_REDUCE_MIN>);
    INFINI_STRUCTURED_PAIR(m, "aminmax", "aminmax.out", aminmax, aminmax_out, structured_aminmax, &aminmaxImpl);
    INFINI_STRUCTURED_PAIR(m, "max.dim", "max.dim_max", max_dim, max_dim_max, structured_max_dim,
                           &extremeDimImpl<INFINIOP_REDUCE_MAX_INDEX>);
    INFINI_STRUCTURED_PAIR(m, "min.dim", "min.dim_min", min_dim, min_dim_min, structured_min_dim,
                           &extremeDimImpl<INFINIOP_REDUCE_MIN_INDEX>);
    m.impl("max", TORCH_FN(extremeAll<true>));
    m.impl("min", TORCH_FN(extremeAll<false>));
    m.impl("max.unary_out", TORCH_FN(extremeAllOut<true>));
    m.impl("min.unary_out", TORCH_FN(extremeAllOut<false>));
    INFINI_STRUCTURED2(m, "argmax", "argmax.out", argmax, argmax_out, structured_argmax,
                       &argImpl<INFINIOP_REDUCE_ARGMAX>);
    INFINI_STRUCTURED2(m, "argmin", "argmin.out", argmin, argmin_out, structured_argmin,
                       &argImpl<INFINIOP_REDUCE_ARGMIN>);

    INFINI_STRUCTURED2(m, "any.dim", "any.out", any_dim, any_out, structured_any_dim,
                       &anyAllDimImpl<INFINIOP_REDUCE_ANY>);
    INFINI_STRUCTURED2(m, "any.dims", "any.dims_out", any_dims, any_dims_out, structured_any_dims,
                       &anyAllDimsImpl<INFINIOP_REDUCE_ANY>);
    INFINI_STRUCTURED2(m, "any", "any.all_out", any, any_all_out, structured_any, &anyAllAllImpl<INFINIOP_REDUCE_ANY>);
    INFINI_STRUCTURED2(m, "all.dim", "all.out", all_dim, all_out, structured_all_dim,
                       &anyAllDimImpl<INFINIOP_REDUCE_ALL>);
    INFINI_STRUCTURED2(m, "all.dims", "all.dims_out", all_dims, all_dims_out, structured_all_dims,
                       &anyAllDimsImpl<INFINIOP_REDUCE_ALL>);
    INFINI_STRUCTURED2(m, "all", "all.all_out", all, all_all_out, structured_all, &anyAllAllImpl<INFINIOP_REDUCE_ALL>);

    INFINI_STRUCTURED2(m, "linalg_vector_norm", "linalg_vector_norm.out", linalg_vector_norm, linalg_vector_norm_out,
                       structured_linalg_vector_norm, &vectorNormImpl);
    INFINI_STRUCTURED2(m, "norm.ScalarOpt_dim", "norm.out", norm_ScalarOpt_dim, norm_out, structured_norm_ScalarOpt_dim,
                       &normImpl);
    INFINI_STRUCTURED2(m, "norm.ScalarOpt_dim_dtype", "norm.dtype_out", norm_ScalarOpt_dim_dtype, norm_dtype_out,
                       structured_norm_ScalarOpt_dim_dtype, &normDtypeImpl);

    m.impl("std.correction", TORCH_FN(stdVar<true>));
    m.impl("var.correction", TORCH_FN(stdVar<false>));
    m.impl("std.correction_out", TORCH_FN(stdVarOutForm<true>));
    m.impl("var.correction_out", TORCH_FN(stdVarOutForm<false>));
    m.impl("std_mean.correction", TORCH_FN(stdVarMean<true>));
    m.impl("var_mean.correction", TORCH_FN(stdVarMean<false>));

    m.impl("logsumexp.out", TORCH_FN(logsumexpOut));
    m.impl("nansum", TORCH_FN(nansum));
    m.impl("nansum.out", TORCH_FN(nansumOut));
    m.impl("count_nonzero.dim_IntList", TORCH_FN(countNonzero));
    m.impl("trace", TORCH_FN(trace));
}
