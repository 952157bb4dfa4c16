#include "InfiniGenerator.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "InfiniFunctions.h"
#include "InfiniGraph.h"

namespace infini_torch {

namespace {

constexpr size_t kStateBytes = 2 * sizeof(uint64_t);

// splitmix64's finalizer: a well-mixed 64-bit function of x.
uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace

InfiniGeneratorImpl::InfiniGeneratorImpl(c10::DeviceIndex device, uint64_t seed)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, device),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
      seed_(seed) {}

void InfiniGeneratorImpl::set_current_seed(uint64_t seed) {
    seed_ = seed;
    offset_ = 0;
}

uint64_t InfiniGeneratorImpl::seed() {
    const uint64_t s = c10::detail::getNonDeterministicRandom();
    set_current_seed(s);
    return s;
}

c10::intrusive_ptr<c10::TensorImpl> InfiniGeneratorImpl::get_state() const {
    at::Tensor state = at::detail::empty_cpu({static_cast<int64_t>(kStateBytes)}, at::kByte, std::nullopt, std::nullopt,
                                             std::nullopt, std::nullopt);
    auto *p = state.data_ptr<uint8_t>();
    std::memcpy(p, &seed_, sizeof(uint64_t));
    std::memcpy(p + sizeof(uint64_t), &offset_, sizeof(uint64_t));
    return state.getIntrusivePtr();
}

void InfiniGeneratorImpl::set_state(const c10::TensorImpl &new_state) {
    at::detail::check_rng_state(new_state);
    TORCH_CHECK(new_state.numel() == static_cast<int64_t>(kStateBytes), "infini: RNG state must have ", kStateBytes,
                " bytes (seed, offset), got ", new_state.numel());
    const auto *p = static_cast<const uint8_t *>(new_state.data());
    std::memcpy(&seed_, p, sizeof(uint64_t));
    std::memcpy(&offset_, p + sizeof(uint64_t), sizeof(uint64_t));
}

InfiniGeneratorImpl *InfiniGeneratorImpl::clone_impl() const {
    auto *gen = new InfiniGeneratorImpl(device_.index(), seed_);
    gen->offset_ = offset_;
    return gen;
}

const at::Generator &getDefaultGenerator(c10::DeviceIndex device) {
    static std::vector<at::Generator> generators = [] {
        std::vector<at::Generator> v;
        for (c10::DeviceIndex d = 0; d < device_count(); ++d) v.push_back(at::make_generator<InfiniGeneratorImpl>(d));
        return v;
    }();
    if (device < 0) device = current_device();
    check_device_index(device);
    return generators[device];
}

at::Generator createGenerator(c10::DeviceIndex device) {
    if (device < 0) device = current_device();
    check_device_index(device);
    return at::make_generator<InfiniGeneratorImpl>(device);
}

InfiniGeneratorImpl *generatorFor(const std::optional<at::Generator> &gen, c10::DeviceIndex device) {
    if (gen.has_value() && gen->defined()) {
        TORCH_CHECK(gen->device().type() == c10::DeviceType::PrivateUse1,
                    "Expected a generator of the infini device, but got one of ", gen->device());
        return gen->get<InfiniGeneratorImpl>();
    }
    return getDefaultGenerator(device).get<InfiniGeneratorImpl>();
}

void checkNotCapturing(c10::DeviceIndex device) {
    TORCH_CHECK(!currentStreamCapturing(device < 0 ? current_device() : device),
                "infini: random ops cannot be captured into a graph: the infini generator gives a kernel its "
                "(seed, offset) at launch, so every replay would draw the same numbers. Draw them outside the "
                "graph into a static tensor that the graph reads.");
}

std::pair<uint64_t, uint64_t> reserveRandom(const std::optional<at::Generator> &gen, c10::DeviceIndex device,
                                            uint64_t n) {
    checkNotCapturing(device);
    InfiniGeneratorImpl *g = generatorFor(gen, device);
    std::lock_guard<std::mutex> lock(g->mutex_);
    return g->reserve(n);
}

at::Generator lendToCpu(const at::Generator &gen) {
    auto *g = gen.get<InfiniGeneratorImpl>();
    checkNotCapturing(g->device().index());
    uint64_t seed;
    {
        std::lock_guard<std::mutex> lock(g->mutex_);
        auto [s, offset] = g->reserve(1);
        seed = mix(s ^ mix(offset));
    }
    return at::make_generator<at::CPUGeneratorImpl>(seed);
}

}  // namespace infini_torch
