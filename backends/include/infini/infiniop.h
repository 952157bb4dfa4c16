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
INFINI_API infiniStatus_t infiniopGetTensorDescriptor(infiniopTensorDescriptor_t desc, size_t *ndim, size_t *shape,
                                                      ptrdiff_t *strides, infiniDtype_t *dtype);

/* extension: the operators, for the generic entry points below and the backends' create_op. */
#include "ops/list.h" /* infiniopOp_t */

#define INFINIOP_MAX_TENSORS 8

/* What an operator descriptor is made from: its tensors (outputs first, then inputs, in the order
 * of the op's infiniopCreate<Op>Descriptor call; NULL for an absent optional tensor) and scalars. */
typedef struct {
    infiniopOp_t op;
    int ntensors;
    infiniopTensorDescriptor_t tensors[INFINIOP_MAX_TENSORS];
    double f[4];  /* float parameters (epsilon, ...) */
    int64_t i[4]; /* integer parameters (dim, algorithm, ...) */
} infiniopOpParams_t;

/* An operator descriptor: opaque here; backends see its layout in backend.h. */
struct InfiniopDescriptor;

/* extension: the generic form of every infiniopCreate<Op>Descriptor. */
INFINI_API infiniStatus_t infiniopCreateOperator(infiniopHandle_t handle, const infiniopOpParams_t *params,
                                                 struct InfiniopDescriptor **desc_ptr);
/* extension: the generic form of every infiniop<Op>; data holds params.tensors' pointers in order. */
INFINI_API infiniStatus_t infiniopRunOperator(struct InfiniopDescriptor *desc, void *workspace, size_t workspace_size,
                                              void *const *data, infinirtStream_t stream);
/* extension: the generic form of every infiniopGet<Op>WorkspaceSize. */
INFINI_API infiniStatus_t infiniopGetOperatorWorkspaceSize(struct InfiniopDescriptor *desc, size_t *size);
/* extension: the generic form of every infiniopDestroy<Op>Descriptor. */
INFINI_API infiniStatus_t infiniopDestroyOperator(struct InfiniopDescriptor *desc);

/* The operators. */
#include "ops/all.h"

/* The generic kernel families. */
#include "families.h"

#endif /* INFINI_INFINIOP_H_ */
