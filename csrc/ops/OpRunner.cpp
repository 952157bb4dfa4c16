#include "OpRunner.h"

#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/hash.h>

#include <algorithm>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "../runtime/InfiniFunctions.h"
#include "../runtime/InfiniStream.h"

namespace infini_torch::ops {

infiniDtype_t toInfiniDtype(at::ScalarType t) {
    switch (t) {
        case at::kFloat: return INFINI_DTYPE_F32;
        case at::kHalf: return INFINI_DTYPE_F16;
        case at::kBFloat16: return INFINI_DTYPE_BF16;
        case at::kDouble: return INFINI_DTYPE_F64;
        case at::kInt: return INFINI_DTYPE_I32;
        case at::kLong: return INFINI_DTYPE_I64;
        case at::kByte: return INFINI_DTYPE_U8;
        case at::kChar: return INFINI_DTYPE_I8;
        case at::kBool: return INFINI_DTYPE_BOOL;
        default: TORCH_CHECK(false, "infini: dtype ", t, " has no infini equivalent");
    }
}

namespace {

using Key = std::vector<int64_t>;

struct KeyHash {
    size_t operator()(const Key &k) const {
        size_t h = k.size();
        for (int64_t v : k) h = c10::hash_combine(h, static_cast<size_t>(v));
        return h;
    }
};

// Owns a descriptor; shared with running calls so that eviction never destroys one in use.
struct Owned {
    InfiniopDescriptor *desc;
    size_t workspace_size = 0;
    explicit Owned(InfiniopDescriptor *d) : desc(d) {
        INFINI_CHECK(infiniopGetOperatorWorkspaceSize(d, &workspace_size));
    }
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned() { infiniopDestroyOperator(desc); }
};

struct Entry {
    std::shared_ptr<Owned> owned;
    std::list<const Key *>::iterator age;  // position in Cache::lru
};

struct Cache {
    std::mutex mu;
    std::unordered_map<Key, Entry, KeyHash> descriptors;
    std::list<const Key *> lru;                             // most recently used first
    std::unordered_map<int64_t, infiniopHandle_t> handles;  // by (backend type << 16 | device)
};

Cache &cache() {
    static auto *c = new Cache();  // descriptors live for the process, as torch's kernels do
    return *c;
}

// A handle for (type, device), made with that device current on this thread.
infiniopHandle_t handleFor(Cache &c, infiniDevice_t type, int device) {
    int64_t key = (static_cast<int64_t>(type) << 16) | device;
    auto it = c.handles.find(key);
    if (it != c.handles.end()) return it->second;
    infiniDevice_t old_type;
    int old_id;
    INFINI_CHECK(infinirtGetDevice(&old_type, &old_id));
    INFINI_CHECK(infinirtSetDevice(type, device));
    infiniopHandle_t h = nullptr;
    infiniStatus_t s = infiniopCreateHandle(&h);
    INFINI_CHECK(infinirtSetDevice(old_type, old_id));
    INFINI_CHECK(s);
    c.handles.emplace(key, h);
    return h;
}

struct TensorDescriptor {
    infiniopTensorDescriptor_t desc = nullptr;
    ~TensorDescriptor() {
        if (desc) infiniopDestroyTensorDescriptor(desc);
    }
};

// Where runOp sends work for tensors on `device`: the backend's device type and index, and the stream.
struct Place {
    infiniDevice_t type;
    int index;
    infinirtStream_t stream;
};

Place placeOf(c10::Device device, c10::OptionalDeviceGuard &guard) {
    if (device.is_cpu()) return {INFINI_DEVICE_CPU, 0, INFINIRT_STREAM_CALLER};
    if (device.is_cuda()) {  // torch's CUDA tensors: the nvidia backend, on torch's current stream
        static const int count = [] {
            int n = 0;
            return infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &n) == INFINI_STATUS_SUCCESS ? n : 0;
        }();
        TORCH_CHECK(count > device.index(),
                    "infini: CUDA tensors need the nvidia backend, which is not loaded in this process (see "
                    "infinicore_torch.backends())");
        return {INFINI_DEVICE_NVIDIA, device.index(),
                c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getStream(device).native_handle()};
    }
    TORCH_CHECK(device.type() == c10::DeviceType::PrivateUse1, "infini: tensors on ", device, " are not supported");
    // the backend resolves a default-stream handle to its current device's stream: make that the tensors' device
    guard.reset_device(device);
    return {backendType(), device.index(), native_stream(getCurrentStream(device.index()))};
}

}  // namespace

OpTarget targetOf(c10::Device device, c10::OptionalDeviceGuard &guard) {
    const Place p = placeOf(device, guard);
    Cache &c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    return {handleFor(c, p.type, p.index), p.stream};
}

void runOp(infiniopOp_t op, std::initializer_list<const at::Tensor *> tensors, std::initializer_list<double> f,
           std::initializer_list<int64_t> i) {
    const at::Tensor *first = nullptr;
    for (const at::Tensor *t : tensors) {
        if (t->defined()) {
            first = t;
            break;
        }
    }
    TORCH_INTERNAL_ASSERT(first != nullptr);
    c10::OptionalDeviceGuard guard;
    const Place place = placeOf(first->device(), guard);
    const infiniDevice_t type = place.type;
    const int index = place.index;
    const infinirtStream_t stream = place.stream;

    thread_local Key key;  // reused: no allocation per call
    key.clear();
    key.push_back(op);
    key.push_back(type);
    key.push_back(index);
    for (const at::Tensor *t : tensors) {
        if (!t->defined()) {
            key.push_back(-1);
            continue;
        }
        key.push_back(static_cast<int64_t>(t->scalar_type()));
        key.push_back(t->dim());
        for (int64_t s : t->sizes()) key.push_back(s);
        for (int64_t s : t->strides()) key.push_back(s);
    }
    for (double v : f) {
        int64_t bits;
        std::memcpy(&bits, &v, sizeof(bits));
        key.push_back(bits);
    }
    for (int64_t v : i) key.push_back(v);

    Cache &c = cache();
    std::shared_ptr<Owned> owned;
    {
        std::lock_guard<std::mutex> lock(c.mu);
        auto it = c.descriptors.find(key);
        if (it != c.descriptors.end()) {
            owned = it->second.owned;
            c.lru.splice(c.lru.begin(), c.lru, it->second.age);
        } else {
            infiniopHandle_t handle = handleFor(c, type, index);
            std::vector<TensorDescriptor> descs(tensors.size());
            infiniopOpParams_t params{};
            params.op = op;
            size_t k = 0;
            for (const at::Tensor *t : tensors) {
                if (t->defined()) {
                    std::vector<size_t> shape(t->sizes().begin(), t->sizes().end());
                    std::vector<ptrdiff_t> strides(t->strides().begin(), t->strides().end());
                    INFINI_CHECK(infiniopCreateTensorDescriptor(&descs[k].desc, shape.size(), shape.data(),
                                                                strides.data(), toInfiniDtype(t->scalar_type())));
                }
                params.tensors[k] = descs[k].desc;
                ++k;
            }
            params.ntensors = static_cast<int>(k);
            std::copy(f.begin(), f.end(), params.f);
            std::copy(i.begin(), i.end(), params.i);
            InfiniopDescriptor *created = nullptr;
            INFINI_CHECK(infiniopCreateOperator(handle, &params, &created));
            owned = std::make_shared<Owned>(created);
            if (c.descriptors.size() >= kMaxCachedDescriptors) {
                const Key *oldest = c.lru.back();
                c.lru.pop_back();
                c.descriptors.erase(c.descriptors.find(*oldest));  // destroyed when its last user is done
            }
            auto [pos, inserted] = c.descriptors.emplace(key, Entry{owned, {}});
            c.lru.push_front(&pos->first);
            pos->second.age = c.lru.begin();
        }
    }
    InfiniopDescriptor *desc = owned->desc;
    const size_t workspace_size = owned->workspace_size;
    void *data[INFINIOP_MAX_TENSORS] = {};
    size_t k = 0;
    for (const at::Tensor *t : tensors) data[k++] = t->defined() ? const_cast<void *>(t->data_ptr()) : nullptr;
    at::Tensor workspace;  // from the caching allocator, released in stream order
    if (workspace_size > 0) {
        workspace = at::empty({static_cast<int64_t>(workspace_size)}, first->options().dtype(at::kByte));
    }
    INFINI_CHECK(
        infiniopRunOperator(desc, workspace.defined() ? workspace.data_ptr() : nullptr, workspace_size, data, stream));
}

size_t cachedDescriptorCount() {
    Cache &c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    return c.descriptors.size();
}

}  // namespace infini_torch::ops
