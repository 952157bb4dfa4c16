#include "Fallback.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "../runtime/InfiniFunctions.h"
#include "../runtime/InfiniGenerator.h"
#include "../runtime/InfiniGraph.h"

namespace infini_torch {
namespace {

std::mutex g_mu;
std::map<std::string, int64_t> g_counts;
std::set<std::string> g_warned;

bool fallbackIsError() {
    const char *env = std::getenv("INFINI_FALLBACK");
    return env != nullptr && std::strcmp(env, "error") == 0;
}

bool isGeneratorArgument(const c10::Argument &arg) {
    const auto &type = arg.type();
    if (type->kind() == c10::TypeKind::GeneratorType) return true;
    auto opt = type->cast<c10::OptionalType>();
    return opt && opt->getElementType()->kind() == c10::TypeKind::GeneratorType;
}

// The infini device of the first infini tensor argument, or -1.
c10::DeviceIndex firstInfiniDevice(const c10::FunctionSchema &schema, torch::jit::Stack *stack, size_t start) {
    for (size_t i = 0; i < schema.arguments().size(); ++i) {
        const c10::IValue &v = (*stack)[start + i];
        if (v.isTensor() && v.toTensor().device().type() == c10::DeviceType::PrivateUse1) {
            return v.toTensor().device().index();
        }
    }
    return -1;
}

}  // namespace

void cpuFallback(const c10::OperatorHandle &op, torch::jit::Stack *stack) {
    const auto &schema = op.schema();
    std::string name = schema.operator_name().name;
    if (!schema.operator_name().overload_name.empty()) name += "." + schema.operator_name().overload_name;
    TORCH_CHECK(!fallbackIsError(), "infini: ", name,
                " has no infini kernel, and INFINI_FALLBACK=error forbids running it on the CPU");
    size_t first = stack->size() - schema.arguments().size();
    c10::DeviceIndex on = firstInfiniDevice(schema, stack, first);
    TORCH_CHECK(!currentStreamCapturing(on < 0 ? current_device() : on), "infini: ", name,
                " has no infini kernel; it would run on the CPU with copies to and from the device, which cannot be "
                "captured into a graph");
    {
        std::lock_guard<std::mutex> lock(g_mu);
        g_counts[name] += 1;
        if (g_warned.insert(name).second) {
            TORCH_WARN("infini: ", name,
                       " has no infini kernel and runs on the CPU, with copies to and from the device (this "
                       "warning is shown once per op; infinicore_torch.fallback_stats() counts the calls)");
        }
    }
    // Random ops draw from a CPU generator seeded from the infini generator's state (InfiniGenerator.h).
    size_t start = stack->size() - schema.arguments().size();
    for (size_t i = 0; i < schema.arguments().size(); ++i) {
        if (!isGeneratorArgument(schema.arguments()[i])) continue;
        c10::IValue &v = (*stack)[start + i];
        at::Generator gen;
        if (v.isNone()) {
            c10::DeviceIndex device = firstInfiniDevice(schema, stack, start);
            if (device < 0) continue;
            gen = getDefaultGenerator(device);
        } else {
            gen = v.toGenerator();
        }
        if (gen.device().type() != c10::DeviceType::PrivateUse1) continue;
        v = c10::IValue(lendToCpu(gen));
    }
    at::native::cpu_fallback(op, stack);
}

std::map<std::string, int64_t> fallbackStats() {
    std::lock_guard<std::mutex> lock(g_mu);
    return g_counts;
}

void resetFallbackStats() {
    std::lock_guard<std::mutex> lock(g_mu);
    g_counts.clear();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) { m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpuFallback>()); }

}  // namespace infini_torch
