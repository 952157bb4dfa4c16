// error.h: the per-thread error message every infini library keeps, and the helpers that set it.
// Header-only so that each library (core and every backend) carries its own thread-local copy.
#pragma once

#include <infini/infinicore.h>

#include <cstdarg>
#include <cstdio>
#include <string>

namespace infini {

// The message of the last failure on this thread.
inline std::string &lastErrorMessage() {
    thread_local std::string message;
    return message;
}

// Records a formatted message for this thread and returns status, so that callers write
// `return fail(INFINI_STATUS_BAD_PARAM, "infinirtFree: %p was not allocated here", p);`.
__attribute__((format(printf, 2, 3))) inline infiniStatus_t fail(infiniStatus_t status, const char *fmt, ...) {
    char buf[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    lastErrorMessage() = buf;
    return status;
}

}  // namespace infini

// Returns from the enclosing function with a NULL_POINTER status when ptr is NULL.
#define INFINI_CHECK_NOT_NULL(api, ptr)                                                                       \
    do {                                                                                                      \
        if ((ptr) == nullptr) return ::infini::fail(INFINI_STATUS_NULL_POINTER, "%s: %s is NULL", api, #ptr); \
    } while (0)

// Propagates a failing status.
#define INFINI_RETURN_IF_ERROR(expr)                          \
    do {                                                      \
        infiniStatus_t status_ = (expr);                      \
        if (status_ != INFINI_STATUS_SUCCESS) return status_; \
    } while (0)
