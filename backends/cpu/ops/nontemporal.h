// nontemporal.h: non-temporal (streaming) stores for ops whose output is too large to stay in the caches.
#pragma once

#include <cstddef>

#include "isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

// The ops that write each output byte once from inputs they read once write their output with
// streaming stores where the bytes they move (inputs read and output written) reach this many: a
// quarter of the last-level cache, the threshold glibc's memcpy takes for its own streaming stores
// (2.38+). Traffic that large mostly evicts what is still to be read, and the output goes to memory
// anyway; streaming stores skip reading each destination line before it is written (a quarter less
// traffic for add). The inputs count too, so that 16-bit add/mul of 2M elements (12 MiB moved, 4 MiB
// written) stream. (embedding counts its output alone against 4x this: gather.cpp.)
// The size is the L3 of cpu0 as sysfs gives it, else sysconf's, else 32 MiB.
size_t streamingStoreBytes();

// Copies n bytes to dst with streaming stores (any alignment; a store fence at the end).
void streamCopy(void *dst, const void *src, size_t n);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
