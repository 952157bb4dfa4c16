// layout.h: a tensor's layout copied out of its descriptor, and the checks every backend's operator
// factories make with it (messages name the op and the tensor). Header-only, torch-free.
#pragma once

#include <infini/backend.h>

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "error.h"

namespace infini {

struct Layout {
    infiniDtype_t dtype = INFINI_DTYPE_INVALID;
    std::vector<size_t> shape;
    std::vector<ptrdiff_t> strides;
    size_t ndim() const { return shape.size(); }
    size_t numel() const {
        size_t n = 1;
        for (size_t s : shape) n *= s;
        return n;
    }
    size_t last() const { return shape.empty() ? 1 : shape.back(); }
    size_t rows() const { return last() == 0 ? 0 : numel() / last(); }
    bool lastContiguous() const { return shape.empty() || shape.back() <= 1 || strides.back() == 1; }
    bool contiguous() const {
        ptrdiff_t expected = 1;
        for (size_t d = ndim(); d-- > 0;) {
            if (shape[d] != 1 && strides[d] != expected) return false;
            expected *= static_cast<ptrdiff_t>(shape[d]);
        }
        return true;
    }
    // Element offset of row r (all dims but the last, row-major).
    ptrdiff_t rowOffset(size_t r) const {
        ptrdiff_t off = 0;
        if (ndim() < 2) return 0;  // one row (a 0-d tensor included)
        for (size_t d = ndim() - 1; d-- > 0;) {
            off += static_cast<ptrdiff_t>(r % shape[d]) * strides[d];
            r /= shape[d];
        }
        return off;
    }
    // The same tensor with dimension dim moved last (a line along dim becomes a row).
    Layout movedLast(size_t dim) const {
        Layout l = *this;
        if (l.ndim() == 0) return l;
        std::rotate(l.shape.begin() + dim, l.shape.begin() + dim + 1, l.shape.end());
        std::rotate(l.strides.begin() + dim, l.strides.begin() + dim + 1, l.strides.end());
        return l;
    }
    std::string str() const {
        std::ostringstream s;
        s << "[";
        for (size_t d = 0; d < ndim(); ++d) s << (d ? ", " : "") << shape[d];
        s << "]";
        return s.str();
    }
};

inline Layout layoutOf(infiniopTensorDescriptor_t t) {
    Layout l;
    if (t == nullptr) return l;
    l.dtype = t->dtype;
    l.shape.assign(t->shape, t->shape + t->ndim);
    l.strides.assign(t->strides, t->strides + t->ndim);
    return l;
}

inline infiniStatus_t expectSameShape(const char *op, const char *name, const Layout &t, const Layout &ref,
                                      const char *ref_name) {
    if (t.shape != ref.shape) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: %s has shape %s but %s has %s", op, name, t.str().c_str(),
                    ref_name, ref.str().c_str());
    }
    return INFINI_STATUS_SUCCESS;
}

inline infiniStatus_t expectSameDtype(const char *op, const char *name, const Layout &t, const Layout &ref,
                                      const char *ref_name) {
    if (t.dtype != ref.dtype) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: %s has dtype %d but %s has %d", op, name, t.dtype, ref_name,
                    ref.dtype);
    }
    return INFINI_STATUS_SUCCESS;
}

inline infiniStatus_t expectLastContiguous(const char *op, const char *name, const Layout &t) {
    if (!t.lastContiguous()) {
        return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "%s: %s must have stride 1 in its last dimension", op, name);
    }
    return INFINI_STATUS_SUCCESS;
}

inline bool isFloatType(infiniDtype_t t) {
    return t == INFINI_DTYPE_F32 || t == INFINI_DTYPE_F16 || t == INFINI_DTYPE_BF16;
}
inline bool isIndexType(infiniDtype_t t) { return t == INFINI_DTYPE_I32 || t == INFINI_DTYPE_I64; }

}  // namespace infini
