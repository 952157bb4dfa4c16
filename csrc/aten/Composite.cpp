// Composite.cpp: aten ops composed of ops that already run on the device, so no element leaves it: isin, histc and
// bincount (comparisons, reductions, scatter_add; only bincount's output length needs the input's maximum on the
// host, as on CUDA), equal, rsub.Tensor, log_sigmoid with its backward, reflection / replication padding (a gather of
// source indices along each padded dim), and weight normalization's fused interface with its backward.
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace infini_torch::aten {
namespace {

using at::Tensor;

// Elements compared against the test values at a time: bounds the [chunk, tests] boolean matrix to ~64 MiB.
constexpr int64_t kIsinCells = int64_t(1) << 26;

void isinInto(const Tensor &elements, const Tensor &test, bool invert, const Tensor &out) {
    TORCH_CHECK(out.device() == elements.device() && test.device() == elements.device(),
                "isin: expected elements, test_elements and out on one device, got ", elements.device(), ", ",
                test.device(), " and ", out.device());
    TORCH_CHECK(out.scalar_type() == at::kBool, "isin: out must be bool, got ", out.scalar_type());
    at::native::resize_output(out, elements.sizes());
    if (out.numel() == 0) return;
    c10::DeviceGuard guard(elements.device());
    const Tensor flat = elements.reshape({-1, 1});
    const Tensor tests = test.reshape({1, -1});
    Tensor found = at::empty({flat.size(0)}, out.options());
    if (tests.size(1) == 0) {
        found.fill_(false);
    } else {
        const int64_t chunk = std::max<int64_t>(1, kIsinCells / tests.size(1));
        for (int64_t start = 0; start < flat.size(0); start += chunk) {
            const int64_t n = std::min(chunk, flat.size(0) - start);
            Tensor part = found.narrow(0, start, n);
            at::any_out(part, at::eq(flat.narrow(0, start, n), tests), 1);
        }
    }
    if (invert) found.logical_not_();
    out.copy_(found.view(elements.sizes()));
}

Tensor &isinOut(const Tensor &elements, const Tensor &test, bool /*assume_unique*/, bool invert, Tensor &out) {
    isinInto(elements, test, invert, out);
    return out;
}

Tensor isin(const Tensor &elements, const Tensor &test, bool assume_unique, bool invert) {
    Tensor out = at::empty(elements.sizes(), elements.options().dtype(at::kBool));
    return isinOut(elements, test, assume_unique, invert, out);
}

Tensor &isinScalarOut(const Tensor &elements, const at::Scalar &test, bool /*assume_unique*/, bool invert,
                      Tensor &out) {
    isinInto(elements, at::scalar_tensor(test, elements.options().dtype(at::result_type(elements, test))), invert, out);
    return out;
}

Tensor isinScalar(const Tensor &elements, const at::Scalar &test, bool assume_unique, bool invert) {
    Tensor out = at::empty(elements.sizes(), elements.options().dtype(at::kBool));
    return isinScalarOut(elements, test, assume_unique, invert, out);
}

Tensor &isinScalarTensorOut(const at::Scalar &element, const Tensor &test, bool /*assume_unique*/, bool invert,
                            Tensor &out) {
    isinInto(at::scalar_tensor(element, test.options().dtype(at::result_type(test, element))), test, invert, out);
    return out;
}

Tensor isinScalarTensor(const at::Scalar &element, const Tensor &test, bool assume_unique, bool invert) {
    Tensor out = at::empty({}, test.options().dtype(at::kBool));
    return isinScalarTensorOut(element, test, assume_unique, invert, out);
}

// histc as torch's CUDA kernel defines it: bins of equal width over [min, max] (both 0: the input's own range,
// widened by 1 each way if that is one value), x == max in the last bin, values outside ignored; counts in the
// input's dtype. The bin of x is (x - min) * bins / (max - min), each step in the input's float dtype (float64 for
// integers), as the CPU kernel computes it.
Tensor &histcOut(const Tensor &self, int64_t bins, const at::Scalar &min_s, const at::Scalar &max_s, Tensor &out) {
    TORCH_CHECK(bins > 0, "torch.histc: bins must be > 0, but got ", bins, " for bins");
    TORCH_CHECK(out.device() == self.device(), "torch.histc: expected out on ", self.device(), ", got ", out.device());
    TORCH_CHECK(out.scalar_type() == self.scalar_type(),
                "torch.histc: input tensor and hist should have the same dtype", ", but got input ", self.scalar_type(),
                " and hist ", out.scalar_type());
    double lo = min_s.toDouble(), hi = max_s.toDouble();
    TORCH_CHECK(!(std::isinf(lo) || std::isinf(hi) || std::isnan(lo) || std::isnan(hi)), "torch.histc: range of [", lo,
                ", ", hi, "] is not finite");
    TORCH_CHECK(lo <= hi, "torch.histc: max must be larger than min");
    c10::DeviceGuard guard(self.device());
    if (lo == hi && self.numel() > 0) {
        lo = self.min().item<double>();
        hi = self.max().item<double>();
        TORCH_CHECK(!(std::isinf(lo) || std::isinf(hi) || std::isnan(lo) || std::isnan(hi)), "torch.histc: range of [",
                    lo, ", ", hi, "] is not finite");
    }
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    at::native::resize_output(out, {bins});
    const at::ScalarType work = at::isFloatingType(self.scalar_type()) ? self.scalar_type() : at::kDouble;
    const Tensor x = self.reshape({-1}).to(work);
    const Tensor pos = x.sub(lo).mul_(static_cast<double>(bins)).div_(hi - lo);
    Tensor bin = pos.to(at::kLong).clamp_max_(bins - 1);
    const Tensor inside = x.ge(lo).logical_and_(x.le(hi));
    bin = at::where(inside, bin, bins);  // bin `bins` collects what is outside and is dropped
    // counted in int64 and cast once: a count in a narrow float dtype would stop growing (256 + 1 in bfloat16)
    Tensor counts = at::zeros({bins + 1}, out.options().dtype(at::kLong));
    counts.scatter_add_(0, bin, at::ones({bin.numel()}, counts.options()));
    out.copy_(counts.narrow(0, 0, bins));
    return out;
}

Tensor histc(const Tensor &self, int64_t bins, const at::Scalar &min_s, const at::Scalar &max_s) {
    Tensor out = at::empty({0}, self.options());
    return histcOut(self, bins, min_s, max_s, out);
}

// bincount: counts (or summed weights, float for float weights, double otherwise) of each value of a 1-d
// non-negative integer tensor, max(self.max() + 1, minlength) of them.
Tensor bincount(const Tensor &self, const std::optional<Tensor> &weights_opt, int64_t minlength) {
    const Tensor weights = weights_opt.has_value() ? *weights_opt : Tensor();
    TORCH_CHECK(minlength >= 0, "bincount: minlength should be >= 0");
    TORCH_CHECK(self.dim() == 1 && at::isIntegralType(self.scalar_type(), /*includeBool=*/false),
                "bincount only supports 1-d non-negative integral inputs.");
    TORCH_CHECK(!weights.defined() || (weights.dim() == 1 && weights.size(0) == self.size(0)),
                "weights should be 1-d and have the same length as input");
    TORCH_CHECK(!weights.defined() || weights.device() == self.device(), "bincount: expected weights on ",
                self.device(), ", got ", weights.device());
    c10::DeviceGuard guard(self.device());
    const at::ScalarType dtype =
        !weights.defined() ? at::kLong : (weights.scalar_type() == at::kFloat ? at::kFloat : at::kDouble);
    int64_t n = minlength;
    if (self.numel() > 0) {
        TORCH_CHECK(self.min().item<int64_t>() >= 0, "bincount only supports 1-d non-negative integral inputs.");
        n = std::max(n, self.max().item<int64_t>() + 1);
    }
    Tensor out = at::zeros({n}, self.options().dtype(dtype));
    if (self.numel() == 0) return out;
    const Tensor src = weights.defined() ? weights.to(dtype) : at::ones({self.numel()}, out.options());
    out.scatter_add_(0, self.to(at::kLong), src);
    return out;
}

// torch.equal: the same sizes and equal elements (compared after type promotion; NaN equals nothing).
bool equal(const Tensor &self, const Tensor &other) {
    if (self.sizes() != other.sizes()) return false;
    if (self.numel() == 0) return true;
    c10::DeviceGuard guard(self.device());
    return at::eq(self, other).all().item<bool>();
}

// rsub.Tensor: other - alpha * self.
Tensor rsub(const Tensor &self, const Tensor &other, const at::Scalar &alpha) { return at::sub(other, self, alpha); }

// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)) (no overflow for large |x|), in float32 for 16-bit inputs; no
// buffer for the backward (as on CUDA).
std::tuple<Tensor, Tensor> logSigmoidForward(const Tensor &self) {
    TORCH_CHECK(at::isFloatingType(self.scalar_type()), "log_sigmoid_forward: expected a floating point input, got ",
                self.scalar_type());
    c10::DeviceGuard guard(self.device());
    const Tensor x = at::isReducedFloatingType(self.scalar_type()) ? self.to(at::kFloat) : self;
    const Tensor out = at::clamp_max(x, 0).sub_(at::log1p(at::exp(at::neg(at::abs(x)))));
    return {out.to(self.scalar_type()), at::empty({0}, self.options())};
}

// d/dx log(sigmoid(x)) = sigmoid(-x).
Tensor logSigmoidBackward(const Tensor &grad, const Tensor &self, const Tensor & /*buffer*/) {
    c10::DeviceGuard guard(self.device());
    const bool reduced = at::isReducedFloatingType(self.scalar_type());
    const Tensor x = reduced ? self.to(at::kFloat) : self;
    const Tensor g = reduced ? grad.to(at::kFloat) : grad;
    return g.mul(at::sigmoid(at::neg(x))).to(grad.scalar_type());
}

// Reflection or replication padding of the last `dims` dims: torch's own checks and output shape (its kernel run on
// a meta tensor), then one index_select a dim with the source index of each output position (a reflection does not
// repeat the edge; negative padding crops).
template <Tensor (*Op)(const Tensor &, c10::SymIntArrayRef)>
Tensor padByIndex(const Tensor &self, c10::SymIntArrayRef padding, bool reflect, int dims) {
    const Tensor shape = Op(at::empty(self.sizes(), self.options().device(at::kMeta)), padding);
    const at::IntArrayRef pad = C10_AS_INTARRAYREF_SLOW(padding);
    c10::DeviceGuard guard(self.device());
    Tensor out = self;
    for (int k = 0; k < dims; ++k) {
        const int64_t dim = self.dim() - 1 - k, n = self.size(dim), before = pad[2 * k], after = pad[2 * k + 1];
        std::vector<int64_t> index(static_cast<size_t>(std::max<int64_t>(n + before + after, 0)));
        for (int64_t o = 0; o < static_cast<int64_t>(index.size()); ++o) {
            int64_t i = o - before;
            if (reflect) {
                if (i < 0) i = -i;
                if (i >= n) i = 2 * (n - 1) - i;
            } else {
                i = std::clamp<int64_t>(i, 0, n - 1);
            }
            index[static_cast<size_t>(o)] = i;
        }
        out = out.index_select(dim, at::tensor(index, at::kLong).to(self.device()));
    }
    TORCH_INTERNAL_ASSERT(out.sizes() == shape.sizes(), "padding: output ", out.sizes(), " vs ", shape.sizes());
    return out;
}

// reflection_pad{1,2,3}d and replication_pad{1,2,3}d
template <auto Self, bool kReflect, int kDims>
Tensor pad(const Tensor &self, c10::SymIntArrayRef padding) {
    return padByIndex<Self>(self, padding, kReflect, kDims);
}

// ---- weight normalization: w = v * g / ||v||, the norm over every dim but `dim` ----
// torch's _weight_norm takes this fused form for dim 0 or the last dim (as its CPU and CUDA kernels do). Work and the
// returned norms are in float32 for 16-bit v (as torch's kernels keep them), else in v's dtype.

struct WeightNormShape {
    std::vector<int64_t> reduced;  // every dim but `dim`
    std::vector<int64_t> kept;     // v's sizes with 1 in every reduced dim
    at::ScalarType acc;
};

WeightNormShape weightNormShape(const char *name, const Tensor &v, const Tensor &g, int64_t dim) {
    TORCH_CHECK(v.device() == g.device(), name, ": v and g must be on one device, got ", v.device(), " and ",
                g.device());
    TORCH_CHECK(at::isFloatingType(v.scalar_type()) && at::isFloatingType(g.scalar_type()), name,
                ": v and g must be floating point, got ", v.scalar_type(), " and ", g.scalar_type());
    const int64_t nd = v.dim();
    TORCH_CHECK(nd > 0 && (dim == 0 || dim == nd - 1), name, ": dim must be the first or the last of v's ", nd,
                " dims, got ", dim);
    TORCH_CHECK(g.numel() == v.size(dim), name, ": g must hold one value for each of v's ", v.size(dim),
                " slices along dim ", dim, ", got ", g.numel());
    WeightNormShape w;
    w.kept.assign(nd, 1);
    w.kept[dim] = v.size(dim);
    for (int64_t d = 0; d < nd; ++d) {
        if (d != dim) w.reduced.push_back(d);
    }
    w.acc = at::isReducedFloatingType(v.scalar_type()) ? at::kFloat : v.scalar_type();
    return w;
}

std::tuple<Tensor, Tensor> weightNorm(const Tensor &v, const Tensor &g, int64_t dim) {
    const WeightNormShape w = weightNormShape("_weight_norm_interface", v, g, dim);
    c10::DeviceGuard guard(v.device());
    const Tensor v_acc = v.to(w.acc);
    const Tensor norms = w.reduced.empty() ? v_acc.abs() : at::linalg_vector_norm(v_acc, 2, w.reduced, true);
    const Tensor out = (v_acc * (g.to(w.acc).reshape(w.kept) / norms)).to(v.scalar_type());
    return {out, norms.reshape(g.sizes())};
}

// d/dv and d/dg of w = g v / n: grad_g = (grad_w . v) / n, grad_v = (g / n) (grad_w - v grad_g / n).
std::tuple<Tensor, Tensor> weightNormBackward(const Tensor &grad_w, const Tensor &saved_v, const Tensor &saved_g,
                                              const Tensor &saved_norms, int64_t dim) {
    const char *name = "_weight_norm_interface_backward";
    const WeightNormShape w = weightNormShape(name, saved_v, saved_g, dim);
    TORCH_CHECK(grad_w.sizes() == saved_v.sizes(), name, ": grad_w ", grad_w.sizes(), " must have v's shape ",
                saved_v.sizes());
    c10::DeviceGuard guard(saved_v.device());
    const Tensor v = saved_v.to(w.acc), gw = grad_w.to(w.acc);
    const Tensor g = saved_g.to(w.acc).reshape(w.kept), n = saved_norms.to(w.acc).reshape(w.kept);
    const Tensor prod = gw * v;
    const Tensor grad_g = (w.reduced.empty() ? prod : at::sum(prod, w.reduced, true)) / n;
    const Tensor grad_v = (g / n) * (gw - v * (grad_g / n));
    return {grad_v.to(saved_v.scalar_type()), grad_g.reshape(saved_g.sizes()).to(saved_g.scalar_type())};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("_weight_norm_interface", TORCH_FN(weightNorm));
    m.impl("_weight_norm_interface_backward", TORCH_FN(weightNormBackward));
    m.impl("reflection_pad1d", TORCH_FN((pad<&at::reflection_pad1d_symint, true, 1>)));
    m.impl("reflection_pad2d", TORCH_FN((pad<&at::reflection_pad2d_symint, true, 2>)));
    m.impl("reflection_pad3d", TORCH_FN((pad<&at::reflection_pad3d_symint, true, 3>)));
    m.impl("replication_pad1d", TORCH_FN((pad<&at::replication_pad1d_symint, false, 1>)));
    m.impl("replication_pad2d", TORCH_FN((pad<&at::replication_pad2d_symint, false, 2>)));
    m.impl("replication_pad3d", TORCH_FN((pad<&at::replication_pad3d_symint, false, 3>)));
    m.impl("log_sigmoid_forward", TORCH_FN(logSigmoidForward));
    m.impl("log_sigmoid_backward", TORCH_FN(logSigmoidBackward));
    m.impl("equal", TORCH_FN(equal));
    m.impl("rsub.Tensor", TORCH_FN(rsub));
    m.impl("isin.Tensor_Tensor", TORCH_FN(isin));
    m.impl("isin.Tensor_Tensor_out", TORCH_FN(isinOut));
    m.impl("isin.Tensor_Scalar", TORCH_FN(isinScalar));
    m.impl("isin.Tensor_Scalar_out", TORCH_FN(isinScalarOut));
    m.impl("isin.Scalar_Tensor", TORCH_FN(isinScalarTensor));
    m.impl("isin.Scalar_Tensor_out", TORCH_FN(isinScalarTensorOut));
    m.impl("histc", TORCH_FN(histc));
    m.impl("histc.out", TORCH_FN(histcOut));
    m.impl("bincount", TORCH_FN(bincount));
}

}  // namespace infini_torch::aten
