// Random.cpp: the random aten ops on the random family (infiniopRandom): uniform_, normal_ and the normal
// overloads with tensor mean / std, bernoulli_ / bernoulli.out, random_, exponential_, geometric_, cauchy_,
// log_normal_, native_dropout and its backward, randperm and multinomial.
//
// torch's DistributionTemplates.h does each op's argument checks and builds its iterator exactly as for CUDA; the
// kernels below reserve the values they draw from the infini generator (InfiniGenerator.h: one value a element)
// and queue one family call. Dtypes the families do not take (complex, uint16..64) go to the CPU fallback, which
// lends the generator too.
#include <ATen/ATen.h>
#include <ATen/native/DistributionTemplates.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/ops/bernoulli_ops.h>
#include <ATen/ops/cauchy_ops.h>
#include <ATen/ops/exponential_ops.h>
#include <ATen/ops/geometric_ops.h>
#include <ATen/ops/log_normal_ops.h>
#include <ATen/ops/multinomial_ops.h>
#include <ATen/ops/normal_ops.h>
#include <ATen/ops/random_ops.h>
#include <ATen/ops/randperm_ops.h>
#include <ATen/ops/uniform_ops.h>
#include <torch/library.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "../runtime/InfiniGenerator.h"
#include "Family.h"
#include "Structured.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;
using Gen = std::optional<at::Generator>;
using RNG = InfiniGeneratorImpl;  // the templates' generator parameter (only a type tag here)

// Queues one random call over iter's output (and the probabilities for BERNOULLI_TENSOR), drawing
// iter.numel() values from the generator.
void runRandom(const char *name, at::TensorIteratorBase &iter, infiniopRandomOp_t op, const Gen &gen, double f0 = 0,
               double f1 = 0, int64_t i0 = 0, int64_t i1 = 0) {
    if (iter.numel() == 0) return;
    infiniopRandomArgs_t a{};
    a.op = op;
    a.f[0] = f0;
    a.f[1] = f1;
    a.i[0] = i0;
    a.i[1] = i1;
    a.iter = iterOf(iter);
    const c10::Device device = iter.device(0);
    auto [seed, offset] = reserveRandom(gen, device.index(), static_cast<uint64_t>(iter.numel()));
    a.seed = seed;
    a.offset = offset;
    runFamily(name, infiniopRandom, device, a);
}

// ---- kernels in the shape DistributionTemplates.h calls them ----

template <typename>
struct UniformKernel {
    void operator()(at::TensorIteratorBase &iter, double from, double to, Gen gen) {
        runRandom("aten::uniform_", iter, INFINIOP_RANDOM_UNIFORM, gen, from, to);
    }
};

template <typename>
struct NormalKernel {
    void operator()(const Tensor &self, double mean, double std, Gen gen) {
        auto iter = at::TensorIterator::borrowing_nullary_op(self);
        runRandom("aten::normal_", iter, INFINIOP_RANDOM_NORMAL, gen, mean, std);
    }
};

template <typename>
struct LogNormalKernel {
    void operator()(at::TensorIteratorBase &iter, double mean, double std, Gen gen) {
        runRandom("aten::log_normal_", iter, INFINIOP_RANDOM_LOG_NORMAL, gen, mean, std);
    }
};

template <typename>
struct ExponentialKernel {
    void operator()(at::TensorIteratorBase &iter, double lambda, Gen gen) {
        runRandom("aten::exponential_", iter, INFINIOP_RANDOM_EXPONENTIAL, gen, lambda);
    }
};

template <typename>
struct GeometricKernel {
    void operator()(at::TensorIteratorBase &iter, double p, Gen gen) {
        runRandom("aten::geometric_", iter, INFINIOP_RANDOM_GEOMETRIC, gen, p);
    }
};

template <typename>
struct CauchyKernel {
    void operator()(at::TensorIteratorBase &iter, double median, double sigma, Gen gen) {
        runRandom("aten::cauchy_", iter, INFINIOP_RANDOM_CAUCHY, gen, median, sigma);
    }
};

// random_ with [base, base + range) (range as uint64: i1 - i0 wraps to it), or the whole 64-bit range.
template <typename>
struct RandomFromToKernel {
    void operator()(at::TensorIteratorBase &iter, uint64_t range, int64_t base, Gen gen) {
        runRandom("aten::random_", iter, INFINIOP_RANDOM_RANDINT, gen, 0, 0, base,
                  static_cast<int64_t>(static_cast<uint64_t>(base) + range));
    }
    void operator()(at::TensorIteratorBase &iter, Gen gen) {
        runRandom("aten::random_", iter, INFINIOP_RANDOM_RANDINT, gen, 0, 0, 0, 0);  // range 0: all 2^64 values
    }
};

// random_() without bounds: [0, 2^mantissa digits] for floats, [0, max] for integers, {0, 1} for bool.
template <typename>
struct RandomKernel {
    void operator()(at::TensorIteratorBase &iter, Gen gen) {
        int64_t to_inclusive = 0;
        switch (iter.dtype()) {
            case at::kHalf: to_inclusive = int64_t(1) << std::numeric_limits<at::Half>::digits; break;
            case at::kBFloat16: to_inclusive = int64_t(1) << std::numeric_limits<at::BFloat16>::digits; break;
            case at::kFloat: to_inclusive = int64_t(1) << std::numeric_limits<float>::digits; break;
            case at::kDouble: to_inclusive = int64_t(1) << std::numeric_limits<double>::digits; break;
            case at::kBool: to_inclusive = 1; break;
            default:
                AT_DISPATCH_INTEGRAL_TYPES(iter.dtype(), "random_", [&] {
                    to_inclusive = static_cast<int64_t>(std::numeric_limits<scalar_t>::max());
                });
        }
        runRandom("aten::random_", iter, INFINIOP_RANDOM_RANDINT, gen, 0, 0, 0,
                  static_cast<int64_t>(static_cast<uint64_t>(to_inclusive) + 1));
    }
};

template <typename>
struct BernoulliScalarKernel {
    void operator()(const Tensor &self, double p, Gen gen) {
        auto iter = at::TensorIterator::borrowing_nullary_op(self);
        runRandom("aten::bernoulli_.float", iter, INFINIOP_RANDOM_BERNOULLI, gen, p);
    }
};

template <typename>
struct BernoulliTensorKernel {
    void operator()(const Tensor &self, const Tensor &p_, Gen gen) {
        Tensor p = p_.device() == self.device() ? p_ : p_.to(self.device());
        TORCH_CHECK(at::isFloatingType(p.scalar_type()) && isFamilyDtype(p.scalar_type()),
                    "bernoulli_: expected a floating point probability tensor, got ", p.scalar_type());
        Tensor expanded = p.expand(self.sizes());  // raises as torch's expand_inplace for a mismatched shape
        auto iter = at::TensorIteratorConfig()
                        .check_all_same_dtype(false)
                        .resize_outputs(false)
                        .add_output(self)
                        .add_const_input(expanded)
                        .build();
        runRandom("aten::bernoulli_.Tensor", iter, INFINIOP_RANDOM_BERNOULLI_TENSOR, gen);
    }
};

namespace tpl = at::native::templates;

bool native(const Tensor &t) { return isFamilyDtype(t.scalar_type()); }

// ---- the registered overloads ----

Tensor &uniform_(Tensor &self, double from, double to, Gen gen) {
    if (!native(self)) {
        return detail::fallback<at::_ops::uniform_, Tensor &, Tensor &, double, double, Gen>(self, from, to, gen);
    }
    return tpl::uniform_impl_<UniformKernel, RNG>(self, from, to, gen);
}

Tensor &normal_(Tensor &self, double mean, double std, Gen gen) {
    if (!native(self)) {
        return detail::fallback<at::_ops::normal_, Tensor &, Tensor &, double, double, Gen>(self, mean, std, gen);
    }
    return tpl::normal_impl_<NormalKernel, RNG>(self, mean, std, gen);
}

Tensor normalTensorFloat(const Tensor &mean, double std, Gen gen) {
    if (!native(mean)) {
        return detail::fallback<at::_ops::normal_Tensor_float, Tensor, const Tensor &, double, Gen>(mean, std, gen);
    }
    return tpl::normal_impl<NormalKernel, RNG>(mean, std, gen);
}
Tensor &normalTensorFloatOut(const Tensor &mean, double std, Gen gen, Tensor &out) {
    if (!native(mean) || !native(out)) {
        return detail::fallback<at::_ops::normal_Tensor_float_out, Tensor &, const Tensor &, double, Gen, Tensor &>(
            mean, std, gen, out);
    }
    return tpl::normal_out_impl<NormalKernel, RNG>(out, mean, std, gen);
}
Tensor normalFloatTensor(double mean, const Tensor &std, Gen gen) {
    if (!native(std)) {
        return detail::fallback<at::_ops::normal_float_Tensor, Tensor, double, const Tensor &, Gen>(mean, std, gen);
    }
    return tpl::normal_impl<NormalKernel, RNG>(mean, std, gen);
}
Tensor &normalFloatTensorOut(double mean, const Tensor &std, Gen gen, Tensor &out) {
    if (!native(std) || !native(out)) {
        return detail::fallback<at::_ops::normal_float_Tensor_out, Tensor &, double, const Tensor &, Gen, Tensor &>(
            mean, std, gen, out);
    }
    return tpl::normal_out_impl<NormalKernel, RNG>(out, mean, std, gen);
}
Tensor normalTensorTensor(const Tensor &mean, const Tensor &std, Gen gen) {
    if (!native(mean) || !native(std)) {
        return detail::fallback<at::_ops::normal_Tensor_Tensor, Tensor, const Tensor &, const Tensor &, Gen>(mean, std,
                                                                                                             gen);
    }
    return tpl::normal_impl<NormalKernel, RNG>(mean, std, gen);
}
Tensor &normalTensorTensorOut(const Tensor &mean, const Tensor &std, Gen gen, Tensor &out) {
    if (!native(mean) || !native(std) || !native(out)) {
        return detail::fallback<at::_ops::normal_Tensor_Tensor_out, Tensor &, const Tensor &, const Tensor &, Gen,
                                Tensor &>(mean, std, gen, out);
    }
    return tpl::normal_out_impl<NormalKernel, RNG>(out, mean, std, gen);
}

Tensor &logNormal_(Tensor &self, double mean, double std, Gen gen) {
    if (!native(self)) {
        return detail::fallback<at::_ops::log_normal_, Tensor &, Tensor &, double, double, Gen>(self, mean, std, gen);
    }
    return tpl::log_normal_impl_<LogNormalKernel, RNG>(self, mean, std, gen);
}

Tensor &exponential_(Tensor &self, double lambda, Gen gen) {
    if (!native(self)) {
        return detail::fallback<at::_ops::exponential_, Tensor &, Tensor &, double, Gen>(self, lambda, gen);
    }
    return tpl::exponential_impl_<ExponentialKernel, RNG>(self, lambda, gen);
}

Tensor &geometric_(Tensor &self, double p, Gen gen) {
    if (!native(self)) return detail::fallback<at::_ops::geometric_, Tensor &, Tensor &, double, Gen>(self, p, gen);
    return tpl::geometric_impl_<GeometricKernel, RNG>(self, p, gen);
}

Tensor &cauchy_(Tensor &self, double median, double sigma, Gen gen) {
    if (!native(self)) {
        return detail::fallback<at::_ops::cauchy_, Tensor &, Tensor &, double, double, Gen>(self, median, sigma, gen);
    }
    return tpl::cauchy_impl_<CauchyKernel, RNG>(self, median, sigma, gen);
}

Tensor &random_(Tensor &self, Gen gen) {
    if (!native(self)) return detail::fallback<at::_ops::random_, Tensor &, Tensor &, Gen>(self, gen);
    return tpl::random_impl<RandomKernel, RNG>(self, gen);
}
Tensor &randomFrom_(Tensor &self, int64_t from, std::optional<int64_t> to, Gen gen) {
    if (!native(self)) {
        return detail::fallback<at::_ops::random__from, Tensor &, Tensor &, int64_t, std::optional<int64_t>, Gen>(
            self, from, to, gen);
    }
    return tpl::random_from_to_impl<RandomFromToKernel, RNG>(self, from, to, gen);
}
Tensor &randomTo_(Tensor &self, int64_t to, Gen gen) { return randomFrom_(self, 0, to, gen); }

Tensor &bernoulliFloat_(Tensor &self, double p, Gen gen) {
    if (!native(self)) {
        return detail::fallback<at::_ops::bernoulli__float, Tensor &, Tensor &, double, Gen>(self, p, gen);
    }
    return tpl::bernoulli_impl_<BernoulliScalarKernel, RNG>(self, p, gen);
}
Tensor &bernoulliTensor_(Tensor &self, const Tensor &p, Gen gen) {
    if (!native(self) || !native(p)) {
        return detail::fallback<at::_ops::bernoulli__Tensor, Tensor &, Tensor &, const Tensor &, Gen>(self, p, gen);
    }
    return tpl::bernoulli_impl_<BernoulliTensorKernel, RNG>(self, p, gen);
}
Tensor &bernoulliOut(const Tensor &self, Gen gen, Tensor &out) {
    if (!native(self) || !native(out)) {
        return detail::fallback<at::_ops::bernoulli_out, Tensor &, const Tensor &, Gen, Tensor &>(self, gen, out);
    }
    return tpl::bernoulli_out_impl<BernoulliTensorKernel, RNG>(out, self, gen);
}

// native_dropout as torch's CPU kernel: mask ~ bernoulli(1 - p) (bool), output = input * mask * 1 / (1 - p).
std::tuple<Tensor, Tensor> nativeDropout(const Tensor &input, double p, std::optional<bool> train) {
    if (input.numel() == 0) return std::make_tuple(input, at::empty_like(input, input.options()));
    if (train.has_value() && !*train) {
        return std::make_tuple(input.clone(), at::ones_like(input, input.options().dtype(at::kBool)));
    }
    const double p1m = 1. - p;
    const double scale = p1m == 0 ? 0. : 1. / p1m;  // p = 1 drops everything without dividing by zero
    Tensor mask = at::empty_like(input, input.options().dtype(at::kBool));
    mask.bernoulli_(p1m);
    Tensor output = input.mul(mask).mul_(scale);
    return std::make_tuple(output, mask);
}

Tensor nativeDropoutBackward(const Tensor &grad, const Tensor &mask, double scale) { return grad * mask * scale; }

// randperm: random 64-bit keys on the device, a Fisher-Yates shuffle on the host driven by them (one key a step).
Tensor &randpermOut(c10::SymInt n_sym, Gen gen, Tensor &out) {
    const int64_t n = n_sym.expect_int();
    TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
    if (!native(out)) {
        return detail::fallback<at::_ops::randperm_generator_out, Tensor &, int64_t, Gen, Tensor &>(n, gen, out);
    }
    at::native::check_supported_max_int_with_precision(n, out);
    out.resize_({n});
    if (n == 0) return out;
    Tensor keys = at::empty({n}, out.options().dtype(at::kLong));
    tpl::random_from_to_impl<RandomFromToKernel, RNG>(keys, std::numeric_limits<int64_t>::lowest(), std::nullopt, gen);
    Tensor host_keys = keys.cpu();
    const auto *k = host_keys.data_ptr<int64_t>();
    Tensor perm = at::empty({n}, at::TensorOptions().dtype(at::kLong));
    int64_t *r = perm.data_ptr<int64_t>();
    std::iota(r, r + n, int64_t(0));
    for (int64_t i = n - 1; i > 0; --i) {
        const int64_t j = static_cast<int64_t>(static_cast<uint64_t>(k[i]) % static_cast<uint64_t>(i + 1));
        std::swap(r[i], r[j]);
    }
    out.copy_(perm);
    return out;
}

// multinomial as torch's: without replacement (or one sample) by the exponential trick, argmax / topk of p / q
// with q ~ Exp(1); with replacement by inverse transform sampling, a uniform against the normalized cumulative
// distribution (the first category whose cumulative probability reaches it).
Tensor &multinomialOut(const Tensor &self, c10::SymInt n_sym, bool replacement, Gen gen, Tensor &result) {
    const int64_t n_sample = n_sym.expect_int();
    TORCH_CHECK(result.device() == self.device(), "multinomial arguments must have the same device");
    TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
    TORCH_CHECK(at::isFloatingType(self.scalar_type()),
                "multinomial only supports floating-point dtypes for input, got: ", self.scalar_type());
    TORCH_CHECK(result.scalar_type() == at::kLong, "multinomial expects Long tensor out, got: ", result.scalar_type());
    TORCH_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples");
    const int64_t n_categories = self.size(-1);
    TORCH_CHECK(replacement || (n_sample <= n_categories),
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    TORCH_CHECK(n_categories <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
    if (self.dim() == 1) {
        result.resize_({n_sample});
    } else {
        result.resize_({self.size(0), n_sample});
    }
    if (result.numel() == 0) return result;
    const bool valid = ((self.max() < INFINITY) & (self.min() >= 0)).item().to<bool>();
    TORCH_CHECK(valid, "probability tensor contains either `inf`, `nan` or element < 0");
    const bool zero =
        self.dim() == 1 ? (self.sum() == 0).item().to<bool>() : (self.sum(1) == 0).sum().item().to<bool>();
    TORCH_CHECK(!zero, "invalid multinomial distribution (sum of probabilities <= 0)");
    if (!replacement || n_sample == 1) {
        Tensor q = at::empty_like(self).exponential_(1, gen);
        at::div_out(q, self, q);
        if (n_sample == 1) {
            at::argmax_out(result, q, /*dim=*/-1, /*keepdim=*/true);
        } else {
            Tensor vals = at::empty(result.sizes(), self.options());
            at::topk_out(vals, result, q, n_sample);
        }
        return result;
    }
    Tensor p = self.dim() == 1 ? self.unsqueeze(0) : self;
    Tensor cdf = p.to(at::kDouble).cumsum(-1);
    cdf = cdf / cdf.narrow(-1, n_categories - 1, 1);
    Tensor u = at::empty({p.size(0), n_sample}, p.options().dtype(at::kDouble)).uniform_(0, 1, gen);
    Tensor out = self.dim() == 1 ? result.unsqueeze(0) : result;
    // the number of categories whose cumulative probability is below u: the first one reaching it. Samples go in
    // chunks, so the comparison's temporary stays near 2^24 elements.
    const int64_t chunk = std::max<int64_t>(1, (int64_t(1) << 24) / std::max<int64_t>(1, p.size(0) * n_categories));
    for (int64_t s = 0; s < n_sample; s += chunk) {
        const int64_t len = std::min(chunk, n_sample - s);
        Tensor below = cdf.unsqueeze(1) < u.narrow(1, s, len).unsqueeze(-1);
        out.narrow(1, s, len).copy_(below.sum(-1).clamp_max_(n_categories - 1));
    }
    return result;
}

Tensor multinomial(const Tensor &self, c10::SymInt n_sample, bool replacement, Gen gen) {
    Tensor result = at::empty({0}, self.options().dtype(at::kLong));
    multinomialOut(self, std::move(n_sample), replacement, gen, result);
    return result;
}

}  // namespace
}  // namespace infini_torch::aten

using namespace infini_torch::aten;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("uniform_", TORCH_FN(uniform_));
    m.impl("normal_", TORCH_FN(normal_));
    m.impl("normal.Tensor_float", TORCH_FN(normalTensorFloat));
    m.impl("normal.Tensor_float_out", TORCH_FN(normalTensorFloatOut));
    m.impl("normal.float_Tensor", TORCH_FN(normalFloatTensor));
    m.impl("normal.float_Tensor_out", TORCH_FN(normalFloatTensorOut));
    m.impl("normal.Tensor_Tensor", TORCH_FN(normalTensorTensor));
    m.impl("normal.Tensor_Tensor_out", TORCH_FN(normalTensorTensorOut));
    m.impl("log_normal_", TORCH_FN(logNormal_));
    m.impl("exponential_", TORCH_FN(exponential_));
    m.impl("geometric_", TORCH_FN(geometric_));
    m.impl("cauchy_", TORCH_FN(cauchy_));
    m.impl("random_", TORCH_FN(random_));
    m.impl("random_.from", TORCH_FN(randomFrom_));
    m.impl("random_.to", TORCH_FN(randomTo_));
    m.impl("bernoulli_.float", TORCH_FN(bernoulliFloat_));
    m.impl("bernoulli_.Tensor", TORCH_FN(bernoulliTensor_));
    m.impl("bernoulli.out", TORCH_FN(bernoulliOut));
    m.impl("native_dropout", TORCH_FN(nativeDropout));
    m.impl("native_dropout_backward", TORCH_FN(nativeDropoutBackward));
    m.impl("randperm.generator_out", TORCH_FN(randpermOut));
    m.impl("multinomial", TORCH_FN(multinomial));
    m.impl("multinomial.out", TORCH_FN(multinomialOut));
}
