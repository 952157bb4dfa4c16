#include "memory.h"

#include <cstdlib>
#include <cstring>

#include "runtime.h"

namespace infini::cpu {
namespace {

constexpr size_t kDeviceAlignment = 256;
constexpr size_t kHostAlignment = 4096;
constexpr int kPinned = -1;

// Where one side of a copy lies.
struct Side {
    bool device = false;  // inside a device allocation
    bool pinned = false;  // inside an infinirtMallocHost allocation
    int device_id = -1;
};

// Classifies [p, p + size) and checks it against what the copy kind says it is (mem_mu held).
infiniStatus_t classify(Runtime &rt, const char *name, const void *p, size_t size, bool want_device, Side *out) {
    const auto *a = rt.findContaining(p);
    if (a != nullptr) {
        size_t offset = reinterpret_cast<uintptr_t>(p) - a->first;
        if (size > a->second.size - offset) {
            return fail(INFINI_STATUS_BAD_PARAM,
                        "%s range of %zu bytes at offset %zu runs past the end of its %zu-byte allocation", name, size,
                        offset, a->second.size);
        }
        out->device = a->second.device != kPinned;
        out->pinned = a->second.device == kPinned;
        out->device_id = a->second.device;
    }
    if (want_device && !out->device) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s %p is not device memory from infinirtMalloc", name, p);
    }
    if (!want_device && out->device) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s %p is device memory of cpu:%d, but the copy kind says host", name, p,
                    out->device_id);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t classifyCopy(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, Side *d, Side *s) {
    Runtime &rt = Runtime::get();
    bool dst_device = kind == INFINIRT_MEMCPY_H2D || kind == INFINIRT_MEMCPY_D2D;
    bool src_device = kind == INFINIRT_MEMCPY_D2H || kind == INFINIRT_MEMCPY_D2D;
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    INFINI_RETURN_IF_ERROR(classify(rt, "dst", dst, size, dst_device, d));
    return classify(rt, "src", src, size, src_device, s);
}

// Removes a live allocation from the table (so that nobody else frees it) and returns its record.
infiniStatus_t claim(void *ptr, bool want_pinned, Allocation *out) {
    Runtime &rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    auto it = rt.allocations.find(reinterpret_cast<uintptr_t>(ptr));
    bool pinned = it != rt.allocations.end() && it->second.device == kPinned;
    if (it == rt.allocations.end() || pinned != want_pinned) {
        const char *from = want_pinned ? "infinirtMallocHost" : "infinirtMalloc";
        if (rt.findContaining(ptr) != nullptr && it == rt.allocations.end()) {
            return fail(INFINI_STATUS_BAD_PARAM, "%p points inside an allocation, not at the start of one from %s", ptr,
                        from);
        }
        return fail(INFINI_STATUS_BAD_PARAM, "%p is not a live allocation from %s (freed twice, or never allocated)",
                    ptr, from);
    }
    *out = it->second;
    rt.allocations.erase(it);
    return INFINI_STATUS_SUCCESS;
}

// Puts back an allocation claimed by a free that was refused (the memory stays allocated).
void unclaim(void *ptr, const Allocation &a) {
    Runtime &rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    rt.allocations.emplace(reinterpret_cast<uintptr_t>(ptr), a);
}

void release(void *ptr, const Allocation &a) {
    std::free(ptr);
    if (a.device == kPinned) return;
    Runtime &rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    rt.device(a.device).allocated -= a.size;
}

infiniStatus_t allocateOn(int device, void **ptr, size_t size) {
    *ptr = nullptr;
    if (size == 0) return INFINI_STATUS_SUCCESS;
    Runtime &rt = Runtime::get();
    Device &d = rt.device(device);
    size_t bytes = (size + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    size_t free_bytes = d.capacity - d.allocated;
    if (bytes < size || bytes > free_bytes) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY,
                    "out of memory on cpu:%d: tried to allocate %zu bytes; %zu bytes free of %zu total", device, size,
                    free_bytes, d.capacity);
    }
    void *p = std::aligned_alloc(kDeviceAlignment, bytes);
    if (p == nullptr) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "out of memory on cpu:%d: the host could not provide %zu bytes",
                    device, bytes);
    }
    rt.allocations.emplace(reinterpret_cast<uintptr_t>(p), Allocation{bytes, device});
    d.allocated += bytes;
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

infiniStatus_t mallocDevice(void **ptr, size_t size) { return allocateOn(Runtime::currentDevice(), ptr, size); }

infiniStatus_t mallocHost(void **ptr, size_t size) {
    *ptr = nullptr;
    if (size == 0) return INFINI_STATUS_SUCCESS;
    size_t bytes = (size + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    void *p = bytes < size ? nullptr : std::aligned_alloc(kHostAlignment, bytes);
    if (p == nullptr) return fail(INFINI_STATUS_OUT_OF_MEMORY, "the host could not provide %zu pinned bytes", size);
    Runtime &rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    rt.allocations.emplace(reinterpret_cast<uintptr_t>(p), Allocation{bytes, kPinned});
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t freeDevice(void *ptr) {
    if (ptr == nullptr) return INFINI_STATUS_SUCCESS;
    Allocation a;
    INFINI_RETURN_IF_ERROR(claim(ptr, false, &a));
    infiniStatus_t s = Runtime::get().synchronizeDevice(a.device);  // as a device frees only when idle
    if (s == INFINI_STATUS_CAPTURE_UNSUPPORTED) {                   // not synchronized: queued work may still use it
        unclaim(ptr, a);
        return s;
    }
    release(ptr, a);
    return s;
}

infiniStatus_t freeHost(void *ptr) {
    if (ptr == nullptr) return INFINI_STATUS_SUCCESS;
    Allocation a;
    INFINI_RETURN_IF_ERROR(claim(ptr, true, &a));
    Runtime &rt = Runtime::get();
    infiniStatus_t s = INFINI_STATUS_SUCCESS;
    for (int d = 0; d < rt.deviceCount(); ++d) {  // queued copies may still read or write it
        if (infiniStatus_t st = rt.synchronizeDevice(d); st != INFINI_STATUS_SUCCESS) s = st;
    }
    if (s == INFINI_STATUS_CAPTURE_UNSUPPORTED) {
        unclaim(ptr, a);
        return s;
    }
    release(ptr, a);
    return s;
}

infiniStatus_t mallocAsync(void **ptr, size_t size, infinirtStream_t stream) {
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    INFINI_RETURN_IF_ERROR(refuseIfCapturing(*s, "a stream-ordered allocation on a capturing stream"));
    return allocateOn(s->device(), ptr, size);  // ready at once, so ready for later work on the stream
}

infiniStatus_t freeAsync(void *ptr, infinirtStream_t stream) {
    if (ptr == nullptr) return INFINI_STATUS_SUCCESS;
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    INFINI_RETURN_IF_ERROR(refuseIfCapturing(*s, "a stream-ordered free on a capturing stream"));
    Allocation a;
    INFINI_RETURN_IF_ERROR(claim(ptr, false, &a));
    s->enqueue([ptr, a] { release(ptr, a); });
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memcpySync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    if (size == 0) return INFINI_STATUS_SUCCESS;
    Side d, s;
    INFINI_RETURN_IF_ERROR(classifyCopy(dst, src, size, kind, &d, &s));
    Runtime &rt = Runtime::get();
    if (d.device) INFINI_RETURN_IF_ERROR(rt.synchronizeDevice(d.device_id));
    if (s.device && s.device_id != d.device_id) INFINI_RETURN_IF_ERROR(rt.synchronizeDevice(s.device_id));
    std::memmove(dst, src, size);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                           infinirtStream_t stream) {
    std::shared_ptr<Stream> st;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &st));
    if (size == 0) return INFINI_STATUS_SUCCESS;
    Side d, s;
    INFINI_RETURN_IF_ERROR(classifyCopy(dst, src, size, kind, &d, &s));
    // Pageable host memory may be reused as soon as the call returns, so the copy must be done by then.
    bool pageable = (!d.device && !d.pinned) || (!s.device && !s.pinned);
    if (pageable) INFINI_RETURN_IF_ERROR(refuseIfCapturing(*st, "a copy through pageable host memory"));
    uint64_t seq = st->enqueue([dst, src, size] { std::memmove(dst, src, size); });
    if (pageable) {
        st->waitFor(seq);
        return takeStreamError(*st);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memsetSync(void *ptr, int value, size_t size) {
    if (size == 0) return INFINI_STATUS_SUCCESS;
    Runtime &rt = Runtime::get();
    Side d;
    {
        std::lock_guard<std::mutex> lock(rt.mem_mu);
        INFINI_RETURN_IF_ERROR(classify(rt, "ptr", ptr, size, true, &d));
    }
    INFINI_RETURN_IF_ERROR(rt.synchronizeDevice(d.device_id));
    std::memset(ptr, value, size);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memsetAsync(void *ptr, int value, size_t size, infinirtStream_t stream) {
    Runtime &rt = Runtime::get();
    std::shared_ptr<Stream> st;
    INFINI_RETURN_IF_ERROR(rt.findStream(stream, &st));
    if (size == 0) return INFINI_STATUS_SUCCESS;
    Side d;
    {
        std::lock_guard<std::mutex> lock(rt.mem_mu);
        INFINI_RETURN_IF_ERROR(classify(rt, "ptr", ptr, size, true, &d));
    }
    st->enqueue([ptr, value, size] { std::memset(ptr, value, size); });
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t pointerGetAttributes(infinirtPointerAttributes_t *attr, const void *ptr) {
    Runtime &rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    *attr = infinirtPointerAttributes_t{};
    const auto *a = rt.findContaining(ptr);
    if (a == nullptr) return INFINI_STATUS_SUCCESS;
    attr->type = a->second.device == kPinned ? INFINIRT_MEMORY_HOST : INFINIRT_MEMORY_DEVICE;
    attr->device = INFINI_DEVICE_CPU;
    attr->device_id = a->second.device == kPinned ? 0 : a->second.device;
    attr->base = reinterpret_cast<void *>(a->first);
    attr->size = a->second.size;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getMemInfo(int device, size_t *free_bytes, size_t *total_bytes) {
    Runtime &rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    const Device &d = rt.device(device);
    *free_bytes = d.capacity - d.allocated;
    *total_bytes = d.capacity;
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::cpu
