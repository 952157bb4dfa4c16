/* infiniop.h: operator handles and tensor descriptors; the operators themselves are declared in
 * ops/<op>.h, each with the four calls infiniopCreate<Op>Descriptor, infiniopGet<Op>WorkspaceSize,
 * infiniop<Op>(desc, workspace, workspace_size, outputs..., inputs..., stream) and
 * infiniopDestroy<Op>Descriptor. */
#ifndef INFINI_INFINIOP_H_
#define INFINI_INFINIOP_H_

#include "infinirt.h"

struct InfiniopHandle;
typedef struct InfiniopHandle *infiniopHandle_t;

struct InfiniopTensorDescriptor;
typedef struct InfiniopTensorDescriptor *infiniopTensorDescriptor_t;

/* Creates an operator handle bound to the calling thread's current device. */
INFINI_API infiniStatus_t infiniopCreateHandle(infiniopHandle_t *handle_ptr);
/* Destroys a handle; descriptors made from it must be destroyed first. */
INFINI_API infiniStatus_t infiniopDestroyHandle(infiniopHandle_t handle);
/* extension: the device a handle is bound to. */
INFINI_API infiniStatus_t infiniopGetHandleDevice(infiniopHandle_t handle, infiniDevice_t *device, int *device_id);

/* Describes a tensor: ndim sizes, strides in elements (NULL: contiguous row-major), and dtype. */
INFINI_API infiniStatus_t infiniopCreateTensorDescriptor(infiniopTensorDescriptor_t *desc_ptr, size_t ndim,
                                                         const size_t *shape, const ptrdiff_t *strides,
                                                         infiniDtype_t dtype);
/* Destroys a tensor descriptor (operator descriptors keep their own copy of what they need). */
INFINI_API infiniStatus_t infiniopDestroyTensorDescriptor(infiniopTensorDescriptor_t desc);
/* extension: reads back a tensor descriptor; shape/strides may be NULL, else hold ndim entries. */
INFINI_API infiniStatus_t infiniopGetTensorDescriptor(infiniopTensorDescriptor_t desc, size_t *ndim,
                                                      size_t *shape, ptrdiff_t *strides, infiniDtype_t *dtype);

/* The operators. */
#include "ops/add.h"
#include "ops/mul.h"
#include "ops/silu.h"
#include "ops/relu.h"
#include "ops/gelu.h"
#include "ops/swiglu.h"
#include "ops/silu_and_mul.h"
#include "ops/rms_norm.h"
#include "ops/add_rms_norm.h"
#include "ops/layer_norm.h"
#include "ops/softmax.h"
#include "ops/causal_softmax.h"
#include "ops/embedding.h"
#include "ops/rope.h"

#endif /* INFINI_INFINIOP_H_ */
