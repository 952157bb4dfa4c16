// InfiniGenerator.h: per-device default random generators for "infini" tensors.
//
// The generator is torch's CPU generator (mt19937) reporting the infini device: random kernels run
// through the CPU path (aten/Fallback.cpp lends the generator's state to the CPU kernel and takes
// it back), so a seed gives the same numbers on infini as torch gives on the CPU.
#pragma once

#include <ATen/CPUGeneratorImpl.h>

namespace infini_torch {

class InfiniGeneratorImpl : public at::CPUGeneratorImpl {
   public:
    explicit InfiniGeneratorImpl(c10::DeviceIndex device, uint64_t seed = c10::default_rng_seed_val);
    static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

   private:
    InfiniGeneratorImpl *clone_impl() const override;
};

const at::Generator &getDefaultGenerator(c10::DeviceIndex device = -1);
at::Generator createGenerator(c10::DeviceIndex device = -1);

}  // namespace infini_torch
