// op_api.h: the generic half of every operator entry point: checks handles and descriptors, then
// forwards to the backend that made the handle. ops.cpp holds the typed entry points.
#pragma once

#include <infini/backend.h>

#include <initializer_list>

namespace infini::core {

infiniStatus_t createOp(const char *api, infiniopOp_t op, infiniopHandle_t handle, InfiniopDescriptor **desc_ptr,
                        std::initializer_list<infiniopTensorDescriptor_t> tensors, std::initializer_list<double> f,
                        std::initializer_list<int64_t> i);
infiniStatus_t opWorkspaceSize(const char *api, infiniopOp_t op, InfiniopDescriptor *desc, size_t *size);
infiniStatus_t runOp(const char *api, infiniopOp_t op, InfiniopDescriptor *desc, void *workspace, size_t workspace_size,
                     std::initializer_list<const void *> data, infinirtStream_t stream);
infiniStatus_t destroyOp(const char *api, infiniopOp_t op, InfiniopDescriptor *desc);

}  // namespace infini::core
