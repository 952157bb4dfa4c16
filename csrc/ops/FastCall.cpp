// FastCall.cpp: the direct entry of infinicore_torch.ops into the dispatcher.
//
// torch.ops.infini.<op>(...) spends about 0.6 us in Python and pybind11 before the dispatcher (the
// packet's __call__, overload resolution, argument matching), which is a tenth of a small op's time
// on the CPU. _fast_op(name, fallback) returns a builtin function that converts positional
// arguments by the op's schema straight into a boxed call of the same operator: the same kernels,
// autograd, autocast, profiler and Python dispatch modes (they are dispatch keys), with the GIL
// released while it runs, as torch's own bindings do. Arguments go by position or keyword (the
// schema's names), missing ones take the schema's defaults. Whatever it does not take (an unknown,
// repeated or missing argument, a Tensor subclass or a __torch_function__ mode, an unexpected type)
// goes to `fallback` (torch.ops.infini.<op>), so behaviour never differs from torch.ops. A keyword
// that only the op's `out` overload has (out=, residual_out=) calls that overload the same way, as
// the packet would choose it (through the packet's resolution it cost ~5-12 us more a call).
#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace infini_torch::ops {
namespace {

namespace py = pybind11;

enum class Arg { kTensor, kOptTensor, kFloat, kInt, kBool, kStr };

struct FastOp {
    c10::OperatorHandle op;
    std::vector<Arg> args;
    std::vector<std::string> names;                    // the schema's argument names (keywords)
    std::vector<std::optional<c10::IValue>> defaults;  // the schema's defaults
    size_t nreturns;
    size_t npos;         // arguments that may be given by position (the rest are keyword-only)
    const FastOp *out;   // the op's `out` overload (keyword-only outputs), or null
    PyObject *fallback;  // a strong reference, kept for the process
    PyMethodDef def;
    std::string name, doc;
};

bool kindOf(const c10::TypePtr &t, Arg *out) {
    switch (t->kind()) {
        case c10::TypeKind::TensorType: *out = Arg::kTensor; return true;
        case c10::TypeKind::FloatType: *out = Arg::kFloat; return true;
        case c10::TypeKind::IntType: *out = Arg::kInt; return true;
        case c10::TypeKind::BoolType: *out = Arg::kBool; return true;
        case c10::TypeKind::StringType: *out = Arg::kStr; return true;
        case c10::TypeKind::OptionalType:
            if (t->castRaw<c10::OptionalType>()->getElementType()->kind() == c10::TypeKind::TensorType) {
                *out = Arg::kOptTensor;
                return true;
            }
            return false;
        default: return false;
    }
}

// One argument as an IValue; false when it is not exactly what the fast path takes.
bool toIValue(PyObject *o, Arg kind, torch::jit::Stack &stack) {
    switch (kind) {
        case Arg::kOptTensor:
            if (o == Py_None) {
                stack.emplace_back();
                return true;
            }
            [[fallthrough]];
        case Arg::kTensor:
            if (!THPVariable_CheckExact(o)) return false;  // subclasses may override __torch_function__
            stack.emplace_back(THPVariable_Unpack(o));
            return true;
        case Arg::kFloat:
            if (PyFloat_CheckExact(o)) {
                stack.emplace_back(PyFloat_AS_DOUBLE(o));
                return true;
            }
            if (PyLong_CheckExact(o)) {
                double v = PyLong_AsDouble(o);
                if (v == -1.0 && PyErr_Occurred()) {
                    PyErr_Clear();
                    return false;
                }
                stack.emplace_back(v);
                return true;
            }
            return false;
        case Arg::kInt: {
            if (!PyLong_CheckExact(o)) return false;  // (bool is not an int here: torch.ops decides)
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return false;
            }
            stack.emplace_back(static_cast<int64_t>(v));
            return true;
        }
        case Arg::kBool:
            if (!PyBool_Check(o)) return false;
            stack.emplace_back(o == Py_True);
            return true;
        case Arg::kStr: {
            if (!PyUnicode_CheckExact(o)) return false;
            Py_ssize_t n = 0;
            const char *s = PyUnicode_AsUTF8AndSize(o, &n);
            if (s == nullptr) {
                PyErr_Clear();
                return false;
            }
            stack.emplace_back(std::string(s, static_cast<size_t>(n)));
            return true;
        }
    }
    return false;
}

PyObject *callFallback(const FastOp &f, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return PyObject_Vectorcall(f.fallback, args, static_cast<size_t>(nargs), kwnames);
}

PyObject *callFast(const FastOp &f, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const size_t n = f.args.size();
    Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
    if (static_cast<size_t>(nargs) > f.npos || at::impl::torch_function_mode_enabled()) {
        return callFallback(f, args, nargs, kwnames);
    }
    // each schema argument: positional, else a keyword, else its default
    PyObject *given[16] = {};
    if (n > 16) return callFallback(f, args, nargs, kwnames);
    for (Py_ssize_t i = 0; i < nargs; ++i) given[i] = args[i];
    for (Py_ssize_t k = 0; k < nkw; ++k) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (key == nullptr) {
            PyErr_Clear();
            return callFallback(f, args, nargs, kwnames);
        }
        size_t j = 0;
        while (j < n && f.names[j] != key) ++j;
        if (j == n && f.out != nullptr) return callFast(*f.out, args, nargs, kwnames);    // out=: the out overload
        if (j == n || given[j] != nullptr) return callFallback(f, args, nargs, kwnames);  // torch.ops' error
        given[j] = args[nargs + k];
    }
    torch::jit::Stack stack;
    stack.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        if (given[i] == nullptr) {
            if (!f.defaults[i]) return callFallback(f, args, nargs, kwnames);  // missing: torch.ops' error
            stack.push_back(*f.defaults[i]);
        } else if (!toIValue(given[i], f.args[i], stack)) {
            return callFallback(f, args, nargs, kwnames);
        }
    }
    HANDLE_TH_ERRORS  // c10 errors become their Python exceptions; a Python error (an autograd formula's) itself
    {
        py::gil_scoped_release no_gil;
        f.op.callBoxed(&stack);
    }
    if (f.nreturns == 0) Py_RETURN_NONE;
    if (f.nreturns == 1) return THPVariable_Wrap(std::move(stack[0]).toTensor());
    PyObject *t = PyTuple_New(static_cast<Py_ssize_t>(f.nreturns));
    if (t == nullptr) return nullptr;
    for (size_t i = 0; i < f.nreturns; ++i) {
        PyObject *item = THPVariable_Wrap(std::move(stack[i]).toTensor());
        if (item == nullptr) {
            Py_DECREF(t);
            return nullptr;
        }
        PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), item);
    }
    return t;
    END_HANDLE_TH_ERRORS
}

PyObject *fastCall(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return callFast(*static_cast<const FastOp *>(PyCapsule_GetPointer(self, nullptr)), args, nargs, kwnames);
}

// The argument table of one overload (keyword-only arguments allowed where `kwonly`). Raises when the
// schema has an argument kind or a return the fast path does not convert.
std::unique_ptr<FastOp> tableOf(const c10::OperatorHandle &handle, const std::string &qualified, PyObject *fallback,
                                bool kwonly) {
    const auto &schema = handle.schema();
    auto f = std::make_unique<FastOp>(FastOp{handle,
                                             {},
                                             {},
                                             {},
                                             schema.returns().size(),
                                             0,
                                             nullptr,
                                             fallback,
                                             {},
                                             qualified.substr(qualified.find("::") + 2),
                                             {}});
    for (const auto &a : schema.arguments()) {
        Arg kind;
        TORCH_CHECK((kwonly || !a.kwarg_only()) && kindOf(a.type(), &kind), "infinicore_torch: ", qualified,
                    " argument ", a.name(), " has no fast conversion");
        if (!a.kwarg_only()) f->npos = f->args.size() + 1;
        f->args.push_back(kind);
        f->names.push_back(a.name());
        f->defaults.push_back(a.default_value());
    }
    for (const auto &r : schema.returns()) {
        TORCH_CHECK(r.type()->kind() == c10::TypeKind::TensorType, "infinicore_torch: ", qualified,
                    " returns a non-Tensor");
    }
    return f;
}

// _fast_op(qualified_name, fallback, doc): the builtin for the op's default overload, and through an
// output keyword its `out` overload where it has one.
PyObject *makeFastOp(const std::string &qualified, PyObject *fallback, const std::string &doc) {
    FastOp *f =
        tableOf(c10::Dispatcher::singleton().findSchemaOrThrow(qualified.c_str(), ""), qualified, fallback, false)
            .release();
    f->doc = doc;
    if (auto out = c10::Dispatcher::singleton().findSchema({qualified, "out"})) {
        try {
            f->out = tableOf(*out, qualified, fallback, true).release();
        } catch (const c10::Error &) {  // an out overload the fast path does not convert: torch.ops takes it
            f->out = nullptr;
        }
    }
    Py_INCREF(fallback);
    f->def = PyMethodDef{f->name.c_str(), reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fastCall)),
                         METH_FASTCALL | METH_KEYWORDS, f->doc.c_str()};
    // the capsule owns nothing: a FastOp lives as long as the process (builtins may be held anywhere)
    PyObject *capsule = PyCapsule_New(f, nullptr, nullptr);
    if (capsule == nullptr) throw py::error_already_set();
    PyObject *fn = PyCFunction_New(&f->def, capsule);
    Py_DECREF(capsule);
    if (fn == nullptr) throw py::error_already_set();
    return fn;
}

}  // namespace

void initFastCall(PyObject *module) {
    auto m = py::handle(module).cast<py::module_>();
    m.def(
        "_fast_op",
        [](const std::string &qualified, py::object fallback, const std::string &doc) {
            HANDLE_TH_ERRORS
            return py::reinterpret_steal<py::object>(makeFastOp(qualified, fallback.ptr(), doc));
            END_HANDLE_TH_ERRORS_PYBIND
        },
        py::arg("qualified_name"), py::arg("fallback"), py::arg("doc") = "");
}

}  // namespace infini_torch::ops
