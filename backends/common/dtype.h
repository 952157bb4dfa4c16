// dtype.h: element sizes of infini dtypes (header-only: backends do not link the core).
#pragma once

#include <infini/infinicore.h>

namespace infini {

inline size_t dtypeSize(infiniDtype_t dtype) {
    switch (dtype) {
        case INFINI_DTYPE_BYTE:
        case INFINI_DTYPE_BOOL:
        case INFINI_DTYPE_I8:
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_F8: return 1;
        case INFINI_DTYPE_I16:
        case INFINI_DTYPE_U16:
        case INFINI_DTYPE_F16:
        case INFINI_DTYPE_BF16:
        case INFINI_DTYPE_C16: return 2;
        case INFINI_DTYPE_I32:
        case INFINI_DTYPE_U32:
        case INFINI_DTYPE_F32:
        case INFINI_DTYPE_C32: return 4;
        case INFINI_DTYPE_I64:
        case INFINI_DTYPE_U64:
        case INFINI_DTYPE_F64:
        case INFINI_DTYPE_C64: return 8;
        case INFINI_DTYPE_C128: return 16;
        default: return 0;
    }
}

}  // namespace infini
