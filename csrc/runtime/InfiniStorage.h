// InfiniStorage.h: resizing the bytes of an infini storage (used by resize_ and storage.resize_).
#pragma once

#include <c10/core/StorageImpl.h>

namespace infini_torch {

// Reallocates storage to nbytes on its device, keeping the first min(old, new) bytes.
void resizeStorageBytes(c10::StorageImpl *storage, size_t nbytes);

}  // namespace infini_torch
