// InfiniGenerator.h: per-device random generators for "infini" tensors.
//
// A counter-based generator: its whole state is (seed, offset). A random kernel reserves the values it draws
// (`reserve(n)`: values offset .. offset + n - 1 of the seed's Philox stream, families.h) and the offset moves past
// them, so a seed reproduces a sequence of random ops on each backend whatever the kernels' thread split.
// get_state / set_state: 16 bytes, the seed then the offset (uint64, native byte order), as torch's CUDA generator.
// Random ops without an infini kernel run on the CPU with a CPU generator seeded from this state (`lendToCpu`).
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

#include <utility>

namespace infini_torch {

class InfiniGeneratorImpl : public c10::GeneratorImpl {
   public:
    explicit InfiniGeneratorImpl(c10::DeviceIndex device, uint64_t seed = c10::default_rng_seed_val);
    static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

    void set_current_seed(uint64_t seed) override;  // also restarts the offset at 0
    uint64_t current_seed() const override { return seed_; }
    uint64_t seed() override;  // a nondeterministic seed, set and returned
    void set_offset(uint64_t offset) override { offset_ = offset; }
    uint64_t get_offset() const override { return offset_; }
    void set_state(const c10::TensorImpl &new_state) override;
    c10::intrusive_ptr<c10::TensorImpl> get_state() const override;

    // The (seed, first offset) of n values, the offset moved past them. The caller holds mutex_.
    std::pair<uint64_t, uint64_t> reserve(uint64_t n) {
        const uint64_t first = offset_;
        offset_ += n;
        return {seed_, first};
    }

   private:
    InfiniGeneratorImpl *clone_impl() const override;
    uint64_t seed_;
    uint64_t offset_ = 0;
};

const at::Generator &getDefaultGenerator(c10::DeviceIndex device = -1);
at::Generator createGenerator(c10::DeviceIndex device = -1);

// The generator a random op on `device` draws from: gen when given (it must be an infini generator), else the
// device's default.
InfiniGeneratorImpl *generatorFor(const std::optional<at::Generator> &gen, c10::DeviceIndex device);

// (seed, first offset) of n values of the generator, under its lock.
std::pair<uint64_t, uint64_t> reserveRandom(const std::optional<at::Generator> &gen, c10::DeviceIndex device,
                                            uint64_t n);

// A CPU generator seeded from gen's (seed, offset) for a CPU kernel; gen's offset moves on by one block of
// values, so the next op (native or through the CPU fallback) draws fresh numbers.
at::Generator lendToCpu(const at::Generator &gen);

}  // namespace infini_torch
