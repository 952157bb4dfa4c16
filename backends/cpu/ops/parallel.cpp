#include "parallel.h"

#include <omp.h>

#include <algorithm>

namespace infini::cpu::ops::INFINI_CPU_ISA {

size_t parallelism() { return static_cast<size_t>(omp_get_max_threads()); }

// OpenMP, on purpose: linked as libgomp.so.1, it resolves to the copy torch has already loaded (same
// soname), so torch's kernels and ours share one team of threads. A pool of our own would make two
// teams spin against each other: an op right after a torch op would wait for a core that torch's
// spinning threads hold (several times slower when small ops alternate with torch's).
void parallelFor(size_t n, size_t cost_per_item, const std::function<void(size_t, size_t)> &body) {
    constexpr size_t kMinWorkPerThread = 32768;  // elements: below this, threads cost more than they save
    int threads = omp_get_max_threads();
    size_t useful = (n * cost_per_item) / kMinWorkPerThread;
    if (threads <= 1 || useful < 2 || n < 2 || omp_in_parallel()) {
        body(0, n);
        return;
    }
    int team = static_cast<int>(std::min<size_t>({static_cast<size_t>(threads), useful, n}));
#pragma omp parallel num_threads(team)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t begin = n * t / nt, end = n * (t + 1) / nt;
        if (begin < end) body(begin, end);
    }
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
