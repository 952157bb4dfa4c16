// Minimal.cpp: the aten ops every device must provide itself (creation, views, resize, copies,
// scalars, fill); every other aten op goes through the CPU fallback (Fallback.cpp).
#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "../runtime/InfiniAllocator.h"
#include "../runtime/InfiniFunctions.h"
#include "../runtime/InfiniHostAllocator.h"
#include "../runtime/InfiniStorage.h"
#include "../runtime/InfiniStream.h"
#include "Copy.h"
#include "Pointwise.h"

namespace infini_torch {
namespace {

constexpr c10::DispatchKeySet kKeys{c10::DispatchKey::PrivateUse1};

c10::Device targetDevice(std::optional<c10::Device> device) {
    c10::Device d = device.value_or(c10::Device(c10::DeviceType::PrivateUse1));
    TORCH_CHECK(d.type() == c10::DeviceType::PrivateUse1, "infini: cannot create a tensor on ", d);
    lazy_init();
    if (!d.has_index()) return c10::Device(c10::DeviceType::PrivateUse1, current_device());
    check_device_index(d.index());
    return d;
}

void checkLayout(std::optional<c10::Layout> layout, std::optional<bool> pin_memory) {
    TORCH_CHECK(layout.value_or(c10::kStrided) == c10::kStrided, "infini: only strided tensors are supported, not ",
                *layout);
    TORCH_CHECK(!pin_memory.value_or(false), "infini: only CPU tensors can be pinned");
}

at::Tensor empty_memory_format(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                               std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                               std::optional<bool> pin_memory, std::optional<c10::MemoryFormat> memory_format) {
    checkLayout(layout, pin_memory);
    c10::DeviceGuard guard(targetDevice(device));
    return at::detail::empty_generic(size, getDeviceAllocator(), kKeys, c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<c10::ScalarType> dtype,
                         std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                         std::optional<bool> pin_memory) {
    checkLayout(layout, pin_memory);
    c10::DeviceGuard guard(targetDevice(device));
    return at::detail::empty_strided_generic(size, stride, getDeviceAllocator(), kKeys, c10::dtype_or_default(dtype));
}

at::Tensor as_strided(const at::Tensor &self, c10::IntArrayRef size, c10::IntArrayRef stride,
                      std::optional<int64_t> storage_offset) {
    return at::native::as_strided_tensorimpl(self, size, stride, storage_offset);
}

at::Tensor view(const at::Tensor &self, c10::IntArrayRef size) { return at::native::view(self, size); }

at::Tensor reshape_alias(const at::Tensor &self, c10::IntArrayRef size, c10::IntArrayRef stride) {
    return at::native::_reshape_alias(self, size, stride);
}

const at::Tensor &resize_(const at::Tensor &self, c10::IntArrayRef size,
                          std::optional<c10::MemoryFormat> memory_format) {
    if (self.sizes() == size && !memory_format.has_value()) return self;  // keeps views' strides, as torch
    auto *impl = self.unsafeGetTensorImpl();
    int64_t itemsize = static_cast<int64_t>(self.dtype().itemsize());
    impl->set_sizes_contiguous(size);
    auto format = memory_format.value_or(c10::MemoryFormat::Contiguous);
    if (format != c10::MemoryFormat::Preserve) impl->empty_tensor_restride(format);
    size_t needed =
        at::detail::computeStorageNbytes(self.sizes(), self.strides(), itemsize, self.storage_offset() * itemsize);
    if (needed > self.storage().nbytes()) {
        c10::DeviceGuard guard(self.device());
        resizeStorageBytes(self.storage().unsafeGetStorageImpl(), needed);
    }
    return self;
}

at::Tensor &set_source_storage(at::Tensor &self, c10::Storage source) {
    int64_t itemsize = static_cast<int64_t>(self.dtype().itemsize());
    int64_t n = static_cast<int64_t>(source.nbytes()) / itemsize;
    return self.set_(std::move(source), 0, {n}, {1});
}

at::Tensor &set_source_storage_offset(at::Tensor &self, c10::Storage source, int64_t offset, c10::IntArrayRef size,
                                      c10::IntArrayRef stride) {
    TORCH_CHECK(source.device().type() == c10::DeviceType::PrivateUse1 || source.nbytes() == 0,
                "infini: set_ with a storage on ", source.device());
    auto *impl = self.unsafeGetTensorImpl();
    if (!self.storage().is_alias_of(source)) impl->set_storage_keep_dtype(std::move(source));
    impl->set_storage_offset(offset);
    if (stride.empty()) {
        impl->set_sizes_contiguous(size);
    } else {
        impl->set_sizes_and_strides(size, stride);
    }
    int64_t itemsize = static_cast<int64_t>(self.dtype().itemsize());
    size_t needed = at::detail::computeStorageNbytes(self.sizes(), self.strides(), itemsize, offset * itemsize);
    if (needed > self.storage().nbytes()) {
        c10::DeviceGuard guard(self.device());
        resizeStorageBytes(self.storage().unsafeGetStorageImpl(), needed);
    }
    return self;
}

at::Tensor &set_source_tensor(at::Tensor &self, const at::Tensor &source) {
    if (self.is_same(source)) return self;
    return set_source_storage_offset(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor &set_empty(at::Tensor &self) {
    c10::DeviceGuard guard(self.device());
    c10::Storage storage(c10::Storage::use_byte_size_t(), 0, getDeviceAllocator(), true);
    return set_source_storage_offset(self, std::move(storage), 0, {0}, {});
}

c10::Scalar local_scalar_dense(const at::Tensor &self) {
    at::Tensor cpu = at::empty({}, self.options().device(at::kCPU));
    copy_from(self, cpu, false);
    return cpu.item();
}

at::Tensor &zero_(at::Tensor &self) {
    if (self.numel() == 0) return self;
    if (self.is_contiguous()) {  // zero bits are zero in every dtype
        c10::DeviceGuard guard(self.device());
        c10::Stream stream = getCurrentStream(self.device().index());
        INFINI_CHECK(infinirtMemsetAsync(self.data_ptr(), 0, self.nbytes(), native_stream(stream)));
        return self;
    }
    return self.fill_(0);
}

at::Tensor &fill_scalar(at::Tensor &self, const c10::Scalar &value) {
    if (self.numel() == 0) return self;
    if (!aten::isFamilyDtype(self.scalar_type()) || value.isComplex() || self.dim() > INFINIOP_MAX_DIMS) {
        // dtypes the families do not take: build the values on the host and upload them
        at::Tensor cpu =
            at::detail::empty_strided_generic(self.sizes(), self.strides(), getPinnedAllocator(),
                                              c10::DispatchKeySet(c10::DispatchKey::CPU), self.scalar_type());
        cpu.fill_(value);
        copy_from(cpu, self, true);
        return self;
    }
    auto iter = at::TensorIteratorConfig()
                    .set_check_mem_overlap(false)
                    .check_all_same_dtype(false)
                    .add_output(self)
                    .resize_outputs(false)
                    .build();
    c10::DeviceGuard guard(self.device());
    aten::Pw(INFINIOP_PW_FILL).scalar(0, value).run("aten::fill_", iter, aten::computeDtype(self.scalar_type()));
    return self;
}

at::Tensor &fill_tensor(at::Tensor &self, const at::Tensor &value) {
    TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
                " dimensions.");
    if (value.device().is_cpu()) return fill_scalar(self, value.item());
    if (self.numel() == 0) return self;
    self.copy_(value.expand(self.sizes()));  // on the device: no host round trip for the value
    return self;
}

void record_stream(at::Tensor &self, c10::Stream stream) {
    TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1,
                "infini: record_stream needs an infini stream, got ", stream);
    getDeviceAllocator()->recordStream(self.storage().data_ptr(), stream);
}

// Whether `from`'s TensorImpl may replace `self`'s (param.data = t): torch's own rule lists dense CPU and CUDA but
// not PrivateUse1, which made module.to("infini") replace each parameter by a new one and untie shared weights.
// Dense tensors of the CPU, CUDA and infini devices are interchangeable, as dense CPU and CUDA ones are.
bool has_compatible_shallow_copy_type(const at::Tensor &self, const at::Tensor &from) {
    const auto dense = [](const c10::DispatchKeySet ks) {
        constexpr auto backends = c10::DispatchKeySet(
            {c10::BackendComponent::CPUBit, c10::BackendComponent::CUDABit, c10::BackendComponent::PrivateUse1Bit});
        return ks.has_any(c10::DispatchKeySet(c10::DispatchKey::Dense)) && ks.has_any(backends) &&
               !ks.has_any(c10::DispatchKeySet({c10::DispatchKey::Sparse, c10::DispatchKey::SparseCsr}));
    };
    if (dense(self.key_set()) && dense(from.key_set())) return true;
    return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set());
}

// _copy_from of a tensor with the conjugate or negative bit. Torch's fallback for those bits materializes the
// source by clone, which copies through _copy_from again, without end: here the bits are taken off the source
// (views) and the conjugation or negation applied on the host, where every dtype has it.
at::Tensor copy_from_with_bits(const at::Tensor &self, const at::Tensor &dst, bool /*non_blocking*/) {
    const bool conj = self.is_conj(), neg = self.is_neg();
    at::Tensor plain = conj ? self.conj() : self;  // (conj of a conjugate view clears the bit)
    if (neg) plain = plain._neg_view();
    at::Tensor host = plain.device().is_cpu() ? plain.clone() : plain.cpu();
    if (conj) host.conj_physical_();
    if (neg) host.neg_();
    if (dst.device().is_cpu()) {
        dst.copy_(host);
    } else {
        copy_from(host, dst, false);
    }
    return dst;
}

at::Tensor copy_from_and_resize_with_bits(const at::Tensor &self, const at::Tensor &dst) {
    dst.resize_(self.sizes());
    return copy_from_with_bits(self, dst, false);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
    m.impl("_copy_from", copy_from_with_bits);
    m.impl("_copy_from_and_resize", copy_from_and_resize_with_bits);
}

TORCH_LIBRARY_IMPL(aten, Negative, m) {
    m.impl("_copy_from", copy_from_with_bits);
    m.impl("_copy_from_and_resize", copy_from_and_resize_with_bits);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    m.impl("empty.memory_format", empty_memory_format);
    m.impl("empty_strided", empty_strided);
    m.impl("as_strided", as_strided);
    m.impl("view", view);
    m.impl("unfold", TORCH_FN(at::native::unfold));
    m.impl("_reshape_alias", reshape_alias);
    m.impl("resize_", resize_);
    m.impl("set_.source_Storage", set_source_storage);
    m.impl("set_.source_Storage_storage_offset", set_source_storage_offset);
    m.impl("set_.source_Tensor", set_source_tensor);
    m.impl("set_", set_empty);
    m.impl("_copy_from", copy_from);
    m.impl("_copy_from_and_resize", copy_from_and_resize);
    m.impl("_local_scalar_dense", local_scalar_dense);
    m.impl("zero_", zero_);
    m.impl("fill_.Scalar", fill_scalar);
    m.impl("fill_.Tensor", fill_tensor);
    m.impl("record_stream", record_stream);
    m.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type);
}

}  // namespace infini_torch
