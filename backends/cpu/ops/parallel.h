// parallel.h: the kernels' parallel loops. Work is split across the threads by rows or blocks, and only
// where there is enough of it to pay for the threads; the innermost loop of each piece stays contiguous
// so that it vectorizes.
#pragma once

#include <cstddef>
#include <functional>

#include "isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

// Threads parallelFor can use (the backend's thread pool, caller included).
size_t parallelism();

// Runs body(begin, end) over [0, n) items, in parallel when n * cost_per_item is large enough.
void parallelFor(size_t n, size_t cost_per_item, const std::function<void(size_t, size_t)> &body);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
