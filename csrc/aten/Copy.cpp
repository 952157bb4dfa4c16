#include "Copy.h"

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "../runtime/InfiniFunctions.h"
#include "../runtime/InfiniHostAllocator.h"
#include "../runtime/InfiniStream.h"
#include "Pointwise.h"

namespace infini_torch {
namespace {

bool isInfini(const at::Tensor &t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

// The byte range [offset, offset + bytes) of the storage that a strided view can touch.
struct Span {
    size_t offset;  // in bytes, from the storage's start
    size_t bytes;
};

Span spanOf(const at::Tensor &t) {
    int64_t lo = t.storage_offset(), hi = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) {
        if (t.size(d) == 0) return {static_cast<size_t>(t.storage_offset() * t.element_size()), 0};
        int64_t reach = (t.size(d) - 1) * t.stride(d);
        (reach < 0 ? lo : hi) += reach;
    }
    return {static_cast<size_t>(lo * t.element_size()), static_cast<size_t>((hi - lo + 1) * t.element_size())};
}

const char *storageBase(const at::Tensor &t) { return static_cast<const char *>(t.storage().data()); }

void deviceSync(const at::Tensor &t) { synchronizeStream(getCurrentStream(t.device().index())); }

// A CPU tensor holding the values of an infini tensor (same sizes and strides), read synchronously.
at::Tensor stageToCpu(const at::Tensor &src) {
    Span span = spanOf(src);
    at::Tensor buffer = at::empty({static_cast<int64_t>(span.bytes)}, src.options().device(at::kCPU).dtype(at::kByte));
    if (span.bytes > 0) {
        c10::DeviceGuard guard(src.device());
        c10::Stream stream = getCurrentStream(src.device().index());
        INFINI_CHECK(infinirtMemcpyAsync(buffer.data_ptr(), storageBase(src) + span.offset, span.bytes,
                                         INFINIRT_MEMCPY_D2H, native_stream(stream)));
        synchronizeStream(stream);
    }
    int64_t first = static_cast<int64_t>(span.offset / src.element_size());
    return at::empty({0}, src.options().device(at::kCPU))
        .set_(buffer.storage(), src.storage_offset() - first, src.sizes(), src.strides());
}

// Writes the span of a CPU tensor laid out like dst (same sizes, strides and offset) into dst.
void uploadSpan(const at::Tensor &cpu_view, const at::Tensor &dst, bool non_blocking) {
    Span span = spanOf(dst);
    if (span.bytes == 0) return;
    int64_t first = static_cast<int64_t>(span.offset / dst.element_size());
    const char *src = static_cast<const char *>(cpu_view.storage().data()) +
                      (cpu_view.storage_offset() - dst.storage_offset() + first) * dst.element_size();
    c10::DeviceGuard guard(dst.device());
    c10::Stream stream = getCurrentStream(dst.device().index());
    bool pinned = isPinnedPtr(src);
    INFINI_CHECK(infinirtMemcpyAsync(const_cast<char *>(storageBase(dst)) + span.offset, src, span.bytes,
                                     INFINIRT_MEMCPY_H2D, native_stream(stream)));
    if (pinned && non_blocking) {
        recordPinnedUse(src, stream);
    } else if (!pinned) {
        // the CPU buffer may be a temporary: make sure the copy no longer reads it
        synchronizeStream(stream);
    }
}

// Same dtype, same strides, and no gaps or overlaps: the whole span is one memcpy.
bool sameDenseLayout(const at::Tensor &a, const at::Tensor &b) {
    return a.dtype() == b.dtype() && a.sizes() == b.sizes() && a.strides() == b.strides() &&
           a.is_non_overlapping_and_dense() && b.is_non_overlapping_and_dense();
}

// dst = src on one infini device, any dtypes and strides: the pointwise family's COPY (a cast where dtypes
// differ), on the device's current stream.
void copyOnDevice(const at::Tensor &src, const at::Tensor &dst) {
    auto iter = at::TensorIteratorConfig()
                    .add_output(dst)
                    .add_const_input(src)
                    .resize_outputs(false)
                    .check_all_same_dtype(false)
                    .check_all_same_device(false)
                    .build();
    aten::Pw(INFINIOP_PW_COPY).run("aten::copy_", iter, aten::computeDtype(src.scalar_type()));
}

// Whether the pointwise family can take the copy (its dtypes and dims).
bool familyCopy(const at::Tensor &src, const at::Tensor &dst) {
    return aten::isFamilyDtype(src.scalar_type()) && aten::isFamilyDtype(dst.scalar_type()) &&
           dst.dim() <= INFINIOP_MAX_DIMS;
}

void copyToCpu(const at::Tensor &src, const at::Tensor &dst, bool non_blocking) {
    if (!sameDenseLayout(src, dst) && dst.is_non_overlapping_and_dense() && familyCopy(src, dst) &&
        (src.scalar_type() != dst.scalar_type() || !src.is_non_overlapping_and_dense())) {
        // lay the values out as dst has them, on the device, then one download
        at::Tensor staged = at::empty_strided(dst.sizes(), dst.strides(), src.options().dtype(dst.scalar_type()));
        {
            c10::DeviceGuard guard(src.device());
            copyOnDevice(src, staged);
        }
        copyToCpu(staged, dst, non_blocking);
        return;
    }
    if (sameDenseLayout(src, dst)) {
        Span s = spanOf(src), d = spanOf(dst);
        c10::DeviceGuard guard(src.device());
        c10::Stream stream = getCurrentStream(src.device().index());
        char *out = const_cast<char *>(storageBase(dst)) + d.offset;
        INFINI_CHECK(
            infinirtMemcpyAsync(out, storageBase(src) + s.offset, s.bytes, INFINIRT_MEMCPY_D2H, native_stream(stream)));
        if (non_blocking && isPinnedPtr(out)) {
            recordPinnedUse(out, stream);
        } else {
            synchronizeStream(stream);
        }
        return;
    }
    dst.copy_(stageToCpu(src));
}

void copyToInfini(const at::Tensor &src, const at::Tensor &dst, bool non_blocking) {
    if (src.device().is_cpu() && sameDenseLayout(src, dst)) {
        uploadSpan(src, dst, non_blocking);
        return;
    }
    if (isInfini(src) && sameDenseLayout(src, dst)) {
        Span s = spanOf(src), d = spanOf(dst);
        if (src.device() != dst.device()) deviceSync(src);  // the source's pending writes land first
        c10::DeviceGuard guard(dst.device());
        c10::Stream stream = getCurrentStream(dst.device().index());
        INFINI_CHECK(infinirtMemcpyAsync(const_cast<char *>(storageBase(dst)) + d.offset, storageBase(src) + s.offset,
                                         s.bytes, INFINIRT_MEMCPY_D2D, native_stream(stream)));
        if (src.device() != dst.device()) synchronizeStream(stream);
        return;
    }
    if (isInfini(src) && src.device() == dst.device() && familyCopy(src, dst)) {
        c10::DeviceGuard guard(dst.device());
        copyOnDevice(src, dst);
        return;
    }
    if (src.device().is_cpu() && dst.is_non_overlapping_and_dense() && familyCopy(src, dst) &&
        src.scalar_type() != dst.scalar_type()) {
        // upload in the source's dtype, cast on the device
        at::Tensor staged = at::empty_strided(dst.sizes(), dst.strides(), dst.options().dtype(src.scalar_type()));
        at::Tensor host = at::empty_strided(dst.sizes(), dst.strides(), src.options());
        host.copy_(src);
        uploadSpan(host, staged, false);
        c10::DeviceGuard guard(dst.device());
        copyOnDevice(staged, dst);
        return;
    }
    if (isInfini(src) && src.device() != dst.device()) {
        // between devices: a dense copy in dst's dtype on the source, then one memcpy, then the layout
        at::Tensor dense = at::empty(dst.sizes(), src.options().dtype(dst.scalar_type()));
        dense.copy_(src);
        at::Tensor moved = at::empty(dst.sizes(), dst.options());
        copyToInfini(dense, moved, false);
        dst.copy_(moved);
        return;
    }
    // General case: build dst's layout on the CPU, keeping dst's other elements when it has gaps.
    at::Tensor cpu_src = isInfini(src) ? stageToCpu(src) : src;
    at::Tensor cpu_dst = dst.is_non_overlapping_and_dense()
                             ? at::empty_strided(dst.sizes(), dst.strides(), dst.options().device(at::kCPU))
                             : stageToCpu(dst);
    cpu_dst.copy_(cpu_src);
    uploadSpan(cpu_dst, dst, false);
}

// An infini event (no timing) that is destroyed with this object; CUDA lets a pending event be destroyed.
struct BridgeEvent {
    infinirtEvent_t event = nullptr;
    BridgeEvent() { INFINI_CHECK(infinirtEventCreateWithFlags(&event, INFINIRT_EVENT_DISABLE_TIMING)); }
    ~BridgeEvent() { infinirtEventDestroy(event); }
};

// A copy between torch's "cuda" and "infini" on the nvidia backend: both are memory of the GPUs of one process,
// so it is one device-to-device memcpy. It runs on torch's current CUDA stream (which orders the CUDA tensor's
// uses, as torch's allocator assumes), fenced both ways against the infini tensor's current stream with events.
void copyCudaInfini(const at::Tensor &src, const at::Tensor &dst) {
    TORCH_CHECK(backendType() == INFINI_DEVICE_NVIDIA, "infini: copies between ", src.device(), " and ", dst.device(),
                " need the nvidia backend (this process runs the ", backendName(), " backend); go through the CPU");
    const at::Tensor &cuda = isInfini(src) ? dst : src;
    const at::Tensor &inf = isInfini(src) ? src : dst;
    if (!sameDenseLayout(src, dst)) {
        // the layout and dtype work on dst's own device, the transfer dense in between
        if (isInfini(dst)) {
            at::Tensor dense = src.contiguous();
            at::Tensor moved = at::empty(dense.sizes(), dst.options().dtype(dense.scalar_type()));
            copyCudaInfini(dense, moved);
            dst.copy_(moved);
        } else {
            at::Tensor dense = at::empty(dst.sizes(), src.options().dtype(dst.scalar_type()));
            dense.copy_(src);
            at::Tensor moved = at::empty(dst.sizes(), dst.options().dtype(dst.scalar_type()));
            copyCudaInfini(dense, moved);
            dst.copy_(moved);
        }
        return;
    }
    c10::DeviceGuard guard(inf.device());
    auto *cuda_impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
    infinirtStream_t cs =
        static_cast<infinirtStream_t>(reinterpret_cast<void *>(cuda_impl->getStream(cuda.device()).native_handle()));
    infinirtStream_t is = native_stream(getCurrentStream(inf.device().index()));
    BridgeEvent before, after;
    INFINI_CHECK(infinirtEventRecord(before.event, is));  // the infini tensor's earlier work
    INFINI_CHECK(infinirtStreamWaitEvent(cs, before.event));
    Span s = spanOf(src), d = spanOf(dst);
    INFINI_CHECK(infinirtMemcpyAsync(const_cast<char *>(storageBase(dst)) + d.offset, storageBase(src) + s.offset,
                                     s.bytes, INFINIRT_MEMCPY_D2D, cs));
    INFINI_CHECK(infinirtEventRecord(after.event, cs));
    INFINI_CHECK(infinirtStreamWaitEvent(is, after.event));  // the infini tensor's later work
}

}  // namespace

at::Tensor copy_from(const at::Tensor &self, const at::Tensor &dst, bool non_blocking) {
    TORCH_CHECK(isInfini(self) || isInfini(dst), "infini: _copy_from needs an infini tensor");
    if (dst.numel() == 0) return dst;
    at::Tensor src = self.sizes() == dst.sizes() ? self : self.expand(dst.sizes());  // copy_ broadcasts
    if (isInfini(src) && isInfini(dst) && src.device() == dst.device()) {            // as torch's own copy_ checks
        if (at::get_overlap_status(src, dst) == at::MemOverlapStatus::Full) return dst;
        at::assert_no_internal_overlap(dst);
        at::assert_no_partial_overlap(dst, src);
    }
    if (src.device().is_cuda() || dst.device().is_cuda()) {
        copyCudaInfini(src, dst);
        return dst;
    }
    TORCH_CHECK((isInfini(self) || self.device().is_cpu()) && (isInfini(dst) || dst.device().is_cpu()),
                "infini: cannot copy between ", self.device(), " and ", dst.device(), " directly; go through the CPU");
    if (isInfini(dst)) {
        copyToInfini(src, dst, non_blocking);
    } else {
        copyToCpu(src, dst, non_blocking);
    }
    return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor &self, const at::Tensor &dst) {
    dst.resize_(self.sizes());
    return copy_from(self, dst, false);
}

}  // namespace infini_torch
