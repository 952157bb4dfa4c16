#include "InfiniGenerator.h"

#include <mutex>
#include <vector>

#include "InfiniFunctions.h"

namespace infini_torch {

InfiniGeneratorImpl::InfiniGeneratorImpl(c10::DeviceIndex device, uint64_t seed) : at::CPUGeneratorImpl(seed) {
    device_ = c10::Device(c10::DeviceType::PrivateUse1, device);
    key_set_ = c10::DispatchKeySet(c10::DispatchKey::PrivateUse1);
}

InfiniGeneratorImpl *InfiniGeneratorImpl::clone_impl() const {
    auto *gen = new InfiniGeneratorImpl(device_.index());
    gen->set_state(*get_state());
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

}  // namespace infini_torch
