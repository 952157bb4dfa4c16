// Autograd.cpp: the autograd kernel of the differentiable torch.ops.infini operators, in C++ so
// that the common case costs nothing.
//
// The backward formulas live in Python (infinicore_torch/ops/_autograd.py). A Python kernel at the
// Autograd key would run Python on every call (about 3.5 us), even under no_grad or when no input
// requires grad. This boxed kernel, registered at AutogradCPU, AutogradCUDA and AutogradPrivateUse1
// (more specific than the Autograd alias the Python registration uses, so it takes precedence),
// checks whether autograd has anything to record: if not, it redispatches below autograd directly;
// if so, it hands the call to Python, which applies a torch.autograd.Function around the op.
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/library.h>

namespace {

namespace py = pybind11;

bool anyRequiresGrad(const torch::jit::Stack &stack, size_t nargs) {
    for (size_t i = stack.size() - nargs; i < stack.size(); ++i) {
        const c10::IValue &v = stack[i];
        if (v.isTensor() && v.toTensor().defined() && v.toTensor().requires_grad()) return true;
    }
    return false;
}

// infinicore_torch.ops._autograd._apply(name, *args): the autograd.Function of that op.
py::object &pythonApply() {
    static py::object *fn = [] {
        py::object f = py::module_::import("infinicore_torch.ops._autograd").attr("_apply");
        return new py::object(std::move(f));  // never destroyed: it may outlive the interpreter's teardown
    }();
    return *fn;
}

void autogradKernel(const c10::OperatorHandle &op, c10::DispatchKeySet ks, torch::jit::Stack *stack) {
    const auto &schema = op.schema();
    size_t nargs = schema.arguments().size();
    if (!c10::GradMode::is_enabled() || !anyRequiresGrad(*stack, nargs)) {
        op.redispatchBoxed(ks & c10::after_autograd_keyset, stack);
        return;
    }
    py::gil_scoped_acquire gil;
    py::tuple args(nargs + 1);
    args[0] = py::str(schema.name().substr(schema.name().find("::") + 2));
    size_t base = stack->size() - nargs;
    for (size_t i = 0; i < nargs; ++i) args[i + 1] = torch::jit::toPyObject(std::move((*stack)[base + i]));
    torch::jit::drop(*stack, nargs);
    py::object out = pythonApply()(*args);  // a Python error propagates as itself
    const auto &returns = schema.returns();
    if (returns.size() == 1) {
        stack->push_back(torch::jit::toIValue(out, returns[0].type()));
    } else {
        py::tuple t = out.cast<py::tuple>();
        for (size_t i = 0; i < returns.size(); ++i) stack->push_back(torch::jit::toIValue(t[i], returns[i].type()));
    }
}

// The functional forms with a backward formula (infinicore_torch/ops/_autograd.py):
constexpr const char *kDifferentiable[] = {
    "add",          "mul",        "silu",    "relu",           "gelu",      "swiglu", "silu_and_mul", "rms_norm",
    "add_rms_norm", "layer_norm", "softmax", "causal_softmax", "embedding", "rope",   "gemm",         "linear",
};

void registerAll(torch::Library &m) {
    for (const char *name : kDifferentiable) {
        m.impl(name, torch::CppFunction::makeFromBoxedFunction<&autogradKernel>());
    }
}

}  // namespace

TORCH_LIBRARY_IMPL(infini, AutogradCPU, m) { registerAll(m); }
TORCH_LIBRARY_IMPL(infini, AutogradCUDA, m) { registerAll(m); }
TORCH_LIBRARY_IMPL(infini, AutogradPrivateUse1, m) { registerAll(m); }
