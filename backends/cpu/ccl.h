// ccl.h: the CPU backend's collectives (infiniccl over shared memory; see ccl.cpp).
#pragma once

#include <infini/backend.h>

namespace infini::cpu {

// Fills the collective entries of the backend's table.
void fillCclTable(infiniBackend_t &table);

}  // namespace infini::cpu
