// Fallback.h: aten ops without an infini kernel run on the CPU: the inputs are copied to the CPU,
// the CPU kernel runs, and the outputs (and mutated inputs) are copied back. Each op's calls are
// counted; the first call of each op warns; INFINI_FALLBACK=error makes any fallback an error.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdint>
#include <map>
#include <string>

namespace infini_torch {

std::map<std::string, int64_t> fallbackStats();
void resetFallbackStats();

// The boxed fallback itself: infini kernels call it (through at::native::call_fallback_fn) for dtypes or
// arguments their kernel family does not take.
void cpuFallback(const c10::OperatorHandle &op, torch::jit::Stack *stack);

}  // namespace infini_torch
