// ccl_timeout.h: the collectives' default timeout, shared by the backends' infiniccl.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace infini {

// A new communicator's timeout in ms: INFINICCL_TIMEOUT_MS when it is a positive integer, else 30 minutes (torch's
// default for process groups); infinicclCommSetTimeout changes it per communicator.
inline uint64_t cclDefaultTimeoutMs() {
    if (const char *env = std::getenv("INFINICCL_TIMEOUT_MS")) {
        char *end = nullptr;
        const unsigned long long v = std::strtoull(env, &end, 10);
        if (end != env && v > 0) return v;
    }
    return 30ull * 60 * 1000;
}

}  // namespace infini
