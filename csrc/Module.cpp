// Module.cpp: the infinicore_torch._C extension module: the Python bindings of the torch glue.
// Everything here is a thin call into runtime/ and aten/; the Python package builds torch.infini on it.
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/version.h>

#include <infini/infinirt.h>

#include "aten/Fallback.h"
#include "aten/Interop.h"
#include "ops/OpRunner.h"
#include "runtime/InfiniAllocator.h"
#include "runtime/InfiniFunctions.h"
#include "runtime/InfiniGenerator.h"
#include "runtime/InfiniGraph.h"
#include "runtime/InfiniHostAllocator.h"
#include "runtime/InfiniStream.h"

namespace py = pybind11;

namespace infini_torch::distributed {
// distributed/ProcessGroupInfiniCCL.cpp: binds _create_infiniccl_backend.
void initDistributedBindings(PyObject *module);
}  // namespace infini_torch::distributed
namespace infini_torch::ops {
// ops/FastCall.cpp: binds _fast_op (infinicore_torch.ops' direct entry into the dispatcher).
void initFastCall(PyObject *module);
}  // namespace infini_torch::ops
using namespace infini_torch;

namespace {

// Wraps a binding so that c10 errors become the matching Python exceptions (RuntimeError,
// torch.OutOfMemoryError, IndexError) whatever pybind11 internals torch was built with.
template <typename R, typename... A>
auto guarded(R (*f)(A...)) {
    return [f](A... args) -> R {
        HANDLE_TH_ERRORS
        return f(args...);
        END_HANDLE_TH_ERRORS_PYBIND
    };
}

py::tuple packStream(const c10::Stream &s) {
    return py::make_tuple(s.id(), s.device_index(), static_cast<int>(s.device_type()));
}

c10::Stream unpackStream(int64_t id, c10::DeviceIndex device, int64_t type) {
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(static_cast<c10::DeviceType>(type), device), id);
}

// torch.cuda.memory_stats's layout: "<stat>.<all|small_pool|large_pool>.<current|peak|allocated|freed>".
py::dict memoryStats(c10::DeviceIndex device) {
    auto stats = getDeviceStats(device);
    py::dict out;
    const char *pools[] = {"all", "small_pool", "large_pool"};
    auto add = [&](const char *name, const c10::CachingDeviceAllocator::StatArray &a) {
        for (size_t p = 0; p < 3; ++p) {
            std::string prefix = std::string(name) + "." + pools[p] + ".";
            out[py::str(prefix + "current")] = a[p].current;
            out[py::str(prefix + "peak")] = a[p].peak;
            out[py::str(prefix + "allocated")] = a[p].allocated;
            out[py::str(prefix + "freed")] = a[p].freed;
        }
    };
    add("allocation", stats.allocation);
    add("segment", stats.segment);
    add("active", stats.active);
    add("inactive_split", stats.inactive_split);
    add("allocated_bytes", stats.allocated_bytes);
    add("reserved_bytes", stats.reserved_bytes);
    add("active_bytes", stats.active_bytes);
    add("inactive_split_bytes", stats.inactive_split_bytes);
    add("requested_bytes", stats.requested_bytes);
    out["num_alloc_retries"] = stats.num_alloc_retries;
    out["num_ooms"] = stats.num_ooms;
    out["num_device_alloc"] = stats.num_device_alloc;
    out["num_device_free"] = stats.num_device_free;
    return out;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
    infini_torch::distributed::initDistributedBindings(m.ptr());
    infini_torch::ops::initFastCall(m.ptr());
    m.doc() = "infinicore_torch native glue";
    m.attr("_torch_version") = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                               std::to_string(TORCH_VERSION_PATCH);

    // devices
    m.def("_backend_name", guarded(+[] { return std::string(backendName()); }));
    m.def("_infini_device_count", guarded(+[] { return device_count(); }));
    m.def("_lazy_init", guarded(+[] { lazy_init(); }));
    m.def("_is_initialized", guarded(+[] { return is_initialized(); }));
    m.def("_is_in_bad_fork", guarded(+[] { return is_in_bad_fork(); }));
    m.def("_get_device", guarded(+[] { return current_device(); }));
    m.def("_set_device", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              set_device(d);
          }));
    m.def("_exchange_device", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              if (d < 0) return static_cast<c10::DeviceIndex>(-1);
              return ExchangeDevice(d);
          }));
    m.def("_synchronize", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              c10::DeviceIndex target = d < 0 ? current_device() : d;
              c10::DeviceIndex previous = ExchangeDevice(target);
              infiniStatus_t status;
              {
                  py::gil_scoped_release no_gil;
                  status = infinirtDeviceSynchronize();
              }
              set_device(previous);
              INFINI_CHECK(status);
          }));
    m.def("_device_name", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              check_device_index(d);
              char name[256];
              INFINI_CHECK(infinirtGetDeviceName(backendType(), d, name, sizeof(name)));
              return std::string(name);
          }));
    m.def("_mem_get_info", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              check_device_index(d);
              size_t free_bytes = 0, total = 0;
              INFINI_CHECK(infinirtGetMemInfo(backendType(), d, &free_bytes, &total));
              return py::make_tuple(free_bytes, total);
          }));

    // streams
    m.def("_current_stream", guarded(+[](c10::DeviceIndex d) { return packStream(getCurrentStream(d)); }));
    m.def("_default_stream", guarded(+[](c10::DeviceIndex d) { return packStream(getDefaultStream(d)); }));
    m.def("_set_stream", guarded(+[](int64_t id, c10::DeviceIndex d, int64_t type) {
              c10::Stream s = unpackStream(id, d, type);
              exchangeStream(s);
          }));

    m.def(
        "_elapsed_time", guarded(+[](int64_t start, int64_t end) {
            TORCH_CHECK(start != 0 && end != 0, "infini: both events must be recorded before calculating elapsed time");
            current_device();  // routes the call to the infini backend on any thread
            float ms = 0;
            INFINI_CHECK(infinirtEventElapsedTime(&ms, reinterpret_cast<void *>(start), reinterpret_cast<void *>(end)));
            return ms;
        }));

    // memory
    m.def("_memory_stats", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              return memoryStats(d);
          }));
    m.def("_reset_peak_memory_stats", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              getDeviceAllocator()->resetPeakStats(d);
          }));
    m.def("_reset_accumulated_memory_stats", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              getDeviceAllocator()->resetAccumulatedStats(d);
          }));
    m.def("_empty_cache", guarded(+[] {
              emptyCache();
              emptyPinnedCache();
          }));

    // graphs
    py::class_<InfiniGraph>(m, "_InfiniGraph")
        .def(py::init<>())
        .def(
            "capture_begin",
            [](InfiniGraph &g, c10::MempoolId_t pool, const std::string &mode) {
                HANDLE_TH_ERRORS
                g.capture_begin(pool, mode);
                END_HANDLE_TH_ERRORS_PYBIND
            },
            py::arg("pool") = c10::MempoolId_t{0, 0}, py::arg("capture_error_mode") = "global")
        .def("capture_end",
             [](InfiniGraph &g) {
                 HANDLE_TH_ERRORS
                 g.capture_end();
                 END_HANDLE_TH_ERRORS_PYBIND
             })
        .def("replay",
             [](InfiniGraph &g) {
                 HANDLE_TH_ERRORS
                 py::gil_scoped_release no_gil;
                 g.replay();
                 END_HANDLE_TH_ERRORS_PYBIND
             })
        .def("reset",
             [](InfiniGraph &g) {
                 HANDLE_TH_ERRORS
                 g.reset();
                 END_HANDLE_TH_ERRORS_PYBIND
             })
        .def("pool", [](const InfiniGraph &g) {
            HANDLE_TH_ERRORS
            return g.pool();
            END_HANDLE_TH_ERRORS_PYBIND
        });
    m.def("_graph_pool_handle", guarded(+[] { return graphPoolHandle(); }));
    m.def("_pool_reserved_bytes", guarded(+[](c10::DeviceIndex d, c10::MempoolId_t pool) {
              lazy_init();
              check_device_index(d);
              return poolReservedBytes(d, pool);
          }));
    m.def("_is_current_stream_capturing", guarded(+[] {
              lazy_init();
              infinirtStreamCaptureStatus_t status;
              INFINI_CHECK(infinirtStreamIsCapturing(native_stream(getCurrentStream(-1)), &status));
              return status != INFINIRT_STREAM_CAPTURE_STATUS_NONE;
          }));

    // random
    m.def("_default_generator", guarded(+[](c10::DeviceIndex d) {
              lazy_init();
              return getDefaultGenerator(d);
          }));

    // operators
    m.def("_cached_descriptor_count", guarded(+[] { return infini_torch::ops::cachedDescriptorCount(); }));
    m.attr("_max_cached_descriptors") = infini_torch::ops::kMaxCachedDescriptors;

    // fallback
    m.def("_fallback_stats", guarded(+[] { return fallbackStats(); }));
    m.def("_alias_on_device", guarded(+[](const at::Tensor &t, c10::Device d) { return aten::aliasOnDevice(t, d); }));
    m.def("_reset_fallback_stats", guarded(+[] { resetFallbackStats(); }));
}
