// Module.cpp: the infinicore_torch._C extension module. It links libinfinicore.so (found through
// the rpath $ORIGIN/lib) and is where the torch glue of later layers registers itself.
#include <pybind11/pybind11.h>
#include <torch/version.h>

#include <infini/infinirt.h>

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace {

// Raises a Python RuntimeError carrying the library's message when status is not SUCCESS.
void check(infiniStatus_t status) {
    if (status != INFINI_STATUS_SUCCESS) {
        throw std::runtime_error(std::string(infiniGetLastErrorMessage()) + " [" + infiniGetStatusString(status) + "]");
    }
}

}  // namespace

PYBIND11_MODULE(_C, m) {
    m.doc() = "infinicore_torch native glue";
    m.attr("_torch_version") = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) +
                               "." + std::to_string(TORCH_VERSION_PATCH);
    m.def("_init", [] { check(infinirtInit()); }, "Loads the infini backends; raises if none could be loaded.");
    m.def(
        "_device_count",
        [](int device_type) {
            int n = 0;
            check(infinirtGetDeviceCount(static_cast<infiniDevice_t>(device_type), &n));
            return n;
        },
        py::arg("device_type"), "Number of devices of an infiniDevice_t type.");
}
