// nvidia.h: what the nvidia backend's runtime (backend.cpp) and its operators (ops/) share.
#pragma once

#include <cuda_runtime.h>
#include <infini/backend.h>

#include <cstdint>

#include "../common/error.h"

namespace infini::nvidia {

// Fills the collective entries of the backend's table (ccl.cpp: infiniccl over NCCL).
void fillCclTable(infiniBackend_t &table);

// A failing CUDA call as a status with the call's name and CUDA's message.
infiniStatus_t cudaFail(cudaError_t err, const char *what);

// Called by cudaFail for a call a stream capture refused: the captures that call spoiled remember its message.
void noteRefusedCall();

// Keeps the current device's default memory pool (cudaMallocAsync's scratch) from handing its memory back at each
// synchronization, so that the next call's scratch is not mapped anew. Cheap after the first call on a device.
void retainPoolMemory();

#define INFINI_CUDA_RETURN(expr)                                                 \
    do {                                                                         \
        cudaError_t err_ = (expr);                                               \
        if (err_ != cudaSuccess) return ::infini::nvidia::cudaFail(err_, #expr); \
    } while (0)

// Data-dependent errors found by kernels (an index out of range): the first one per device is written
// into mapped pinned memory that the host reads at synchronization and before each launch, so that it
// surfaces as a status with a message at the next synchronization or operator call.
enum DeviceErrorKind : int32_t {
    kErrNone = 0,
    kErrIndex = 1,        // "<op>: index <a> in <arg> is out of range [0, <b>)"
    kErrSeqLen = 2,       // "<op>: seq_lens[<a>] = <b> is out of range [<c>, <d>]" (c < 0: "q_len")
    kErrCuSeqlens = 3,    // "<op>: cu_seqlens_q must rise from 0 to <a>"
    kErrFamilyIndex = 4,  // "<family>: index out of range: <a> is not in [0, <b>) (index operand <c>)"; d = 1: [-b, b)
    kErrTarget = 5        // "<family>: index out of range: Target <a> is out of bounds (<b> classes)", torch's words
};

enum DeviceErrorArg : int32_t { kArgIndices, kArgPosIds, kArgSlotMapping, kArgBlockTables, kArgSeqLens, kArgCuSeqlens };

// Lives in mapped pinned host memory, written by kernels with plain stores only (system-scope atomics
// on host memory are not allowed on every system); the first kernel to report claims `claim`, a word
// of device memory, with a device atomic.
struct DeviceError {
    int32_t kind;  // DeviceErrorKind; 0 while no error is pending (published last)
    int32_t op;    // infiniopOp_t
    int32_t arg;   // DeviceErrorArg
    int32_t pad;
    long long a, b, c, d;
    int *claim;  // device memory: 0 while unclaimed
};

// The device-side pointer of device id's error record (mapped pinned memory); nullptr on failure.
DeviceError *deviceErrorSlot(int device);
// Takes (and clears) device id's pending error: returns it as a failing status with its message.
infiniStatus_t takeDeviceError(int device);

}  // namespace infini::nvidia
