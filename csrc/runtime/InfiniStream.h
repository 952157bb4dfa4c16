// InfiniStream.h: torch streams over infinirt streams.
//
// Stream ids: 0 is a device's default stream (the NULL infinirt stream); 1..kPoolSize are a pool
// of streams per device, created on first use and handed out round-robin (as torch.cuda does).
// Each thread has a current stream per device, initially the default stream.
#pragma once

#include <c10/core/Stream.h>

#include <infini/infinirt.h>

namespace infini_torch {

constexpr int kStreamPoolSize = 8;

// The infinirt handle of a torch stream of the infini device type.
infinirtStream_t native_stream(const c10::Stream &stream);

c10::Stream getCurrentStream(c10::DeviceIndex device = -1);
c10::Stream getDefaultStream(c10::DeviceIndex device = -1);
c10::Stream getStreamFromPool(c10::DeviceIndex device = -1);
// Makes stream current for its device on this thread; returns the previous one.
c10::Stream exchangeStream(const c10::Stream &stream);

void synchronizeStream(const c10::Stream &stream);
bool queryStream(const c10::Stream &stream);

}  // namespace infini_torch
