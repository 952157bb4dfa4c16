"""torch.compile for the "infini" device: Dynamo's device interface and Inductor's backend for infini tensors.

Inductor finds this through the device module (``torch.infini.Scheduling`` and the two wrapper codegens, which
``torch._inductor.codegen.common.init_backend_registration`` reads for the PrivateUse1 device), so nothing here is
imported before the first compilation. ``register()`` does the whole registration and may be called directly.

Two code generators, chosen by the backend behind the device:

- the cpu backend: Inductor's C++/OpenMP kernels over the device's memory (host memory on that backend). The
  backend's streams are asynchronous, so the generated wrapper waits on the current infini stream before each host
  kernel; what Inductor leaves to aten (GEMMs, attention, fallbacks) runs on the infini kernels in stream order.
- the nvidia backend with a CUDA build of torch: Triton kernels launched on the infini current stream (the infini
  allocations are device memory of the same GPU).
"""

from __future__ import annotations

import os
import types

import torch

_registered = False


def _uses_triton() -> bool:
    """Triton kernels when the device is a CUDA GPU torch can also drive; C++ kernels on the cpu backend."""
    backend = torch.infini.backend()
    if backend == "cpu":
        return False
    if backend == "nvidia" and torch.cuda.is_available():
        return True
    raise RuntimeError(
        f"torch.compile on infini: no Inductor code generator for the {backend!r} backend "
        "(the cpu backend uses C++ kernels; the nvidia backend needs a CUDA build of torch for Triton)"
    )


def _make_interface(triton: bool):
    import torch._dynamo.device_interface as di

    infini = torch.infini
    base = di.CudaInterface if triton else di.DeviceInterface

    class InfiniInterface(base):
        device = infini.device
        Stream = infini.Stream
        Event = infini.Event
        current_device = staticmethod(infini.current_device)
        set_device = staticmethod(infini.set_device)
        device_count = staticmethod(infini.device_count)
        synchronize = staticmethod(infini.synchronize)
        current_stream = staticmethod(infini.current_stream)
        set_stream = staticmethod(infini.set_stream)
        is_available = staticmethod(infini.is_available)
        get_raw_stream = staticmethod(lambda i: infini.current_stream(i).native_handle)

        @staticmethod
        def exchange_device(device: int) -> int:
            prev = infini.current_device()
            infini.set_device(device)
            return prev

        maybe_exchange_device = exchange_device

        if not triton:

            @staticmethod
            def get_device_properties(device=None):
                # what Inductor reads: the parallelism available for splitting reductions
                return types.SimpleNamespace(multi_processor_count=os.cpu_count() or 1, warp_size=None, major=None)

            @staticmethod
            def get_compute_capability(device=None):
                return ""

    return InfiniInterface


def _cpp_backend():
    from torch._inductor.codegen.common import DeviceOpOverrides
    from torch._inductor.codegen.cpp import CppScheduling
    from torch._inductor.codegen.cpp_wrapper_cpu import CppWrapperCpu
    from torch._inductor.codegen.wrapper import PythonWrapperCodegen, SubgraphPythonWrapperCodegen
    from torch._inductor.virtualized import V

    class Overrides(DeviceOpOverrides):
        def import_get_raw_stream_as(self, name):
            return f"def {name}(i):\n    return 0\n"

        def set_device(self, device_idx):
            return f"torch.infini.set_device({device_idx})"

        def synchronize(self):
            return "torch.infini.synchronize()"

        def device_guard(self, device_idx):
            return f"torch.infini.device({device_idx})"

    class InfiniCppWrapper(PythonWrapperCodegen):
        """Python wrapper of C++ kernels over infini memory: each host kernel first waits for the work queued on
        the current infini stream (the aten kernels that wrote its inputs)."""

        @staticmethod
        def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
            if is_subgraph:
                return SubgraphPythonWrapperCodegen(subgraph_name, parent_wrapper, partition_signatures)
            return InfiniCppWrapper()

        def _generate_kernel_call_helper(self, kernel_name, call_args, *, device=None, **kwargs):
            device = device or V.graph.get_current_device_or_throw()
            if device.type == "infini":
                self.writeline("torch.infini.current_stream().synchronize()")
                device = torch.device("cpu")
            super()._generate_kernel_call_helper(kernel_name, call_args, device=device, **kwargs)

    return CppScheduling, InfiniCppWrapper, CppWrapperCpu, Overrides()


def _triton_backend():
    from torch._inductor.codegen.cpp_wrapper_gpu import CppWrapperGpu
    from torch._inductor.codegen.cuda.device_op_overrides import CUDADeviceOpOverrides
    from torch._inductor.codegen.cuda_combined_scheduling import CUDACombinedScheduling
    from torch._inductor.codegen.wrapper import PythonWrapperCodegen

    class Overrides(CUDADeviceOpOverrides):
        def import_get_raw_stream_as(self, name):
            return f"def {name}(i):\n    return torch.infini.current_stream(i).native_handle\n"

        def set_device(self, device_idx):
            return f"torch.infini.set_device({device_idx})"

        def synchronize(self):
            return "torch.infini.synchronize()"

        def device_guard(self, device_idx):
            return f"torch.infini.device({device_idx})"

    return CUDACombinedScheduling, PythonWrapperCodegen, CppWrapperGpu, Overrides()


def _patch_cpp_assumptions() -> None:
    """Two places where Inductor decides by device type "cpu" what is true of any device with C++ kernels."""
    import torch._inductor.codegen.common as common
    import torch._inductor.scheduler as scheduler
    import torch._inductor.utils as utils

    # which kernel language a device's dtype propagation assumes: "triton" for any type it does not know
    original_backend = utils.get_current_backend

    def get_current_backend(device_type=None):
        from torch._inductor.virtualized import V

        if (device_type or V.graph.get_current_device_or_throw().type) == "infini":
            return "cpp"
        return original_backend(device_type)

    for module in (utils, common):
        if getattr(module, "get_current_backend", None) is original_backend:
            module.get_current_backend = get_current_backend

    # reindexing a pointwise loop to a reduction's groups is only done for SIMD (Triton) kernels
    original_reindex = scheduler.Scheduler._try_reindex_pointwise_for_reduction

    def try_reindex(self, node1, node2):
        if any(getattr(n.get_device(), "type", None) == "infini" for n in (node1, node2)):
            return False
        return original_reindex(self, node1, node2)

    scheduler.Scheduler._try_reindex_pointwise_for_reduction = try_reindex


def _patch_triton_assumptions() -> None:
    """Inductor's GPU paths take "infini" as a GPU type; Triton's target is told "cuda" (the same GPU)."""
    import torch._inductor.utils as utils
    from torch._inductor.runtime.hints import DeviceProperties

    saved = list(utils.GPU_TYPES)
    utils.GPU_TYPES[:] = ["infini"]
    utils.get_gpu_type()  # (cached: with both cuda and infini available it would be ambiguous)
    utils.GPU_TYPES[:] = saved + ["infini"]
    create = DeviceProperties.create

    def create_props(device):
        if device.type == "infini":
            return create(torch.device("cuda", device.index or 0))
        return create(device)

    DeviceProperties.create = staticmethod(create_props)


_classes: dict[str, object] = {}


def register() -> None:
    """Registers "infini" with Dynamo and Inductor (idempotent)."""
    global _registered
    if _registered:
        return
    from torch._inductor.codegen.common import register_backend_for_device, register_device_op_overrides

    triton = _uses_triton()
    scheduling, wrapper, cpp_wrapper, overrides = _triton_backend() if triton else _cpp_backend()
    if triton:
        _patch_triton_assumptions()
    else:
        _patch_cpp_assumptions()
    import torch._dynamo.device_interface as di

    di.register_interface_for_device("infini", _make_interface(triton))
    register_device_op_overrides("infini", overrides)
    register_backend_for_device("infini", scheduling, wrapper, cpp_wrapper)
    _classes.update(Scheduling=scheduling, PythonWrapperCodegen=wrapper, CppWrapperCodegen=cpp_wrapper)
    _registered = True
    from . import fusion

    fusion.install()


def codegen_class(name: str):
    """torch.infini.<name> for Inductor's discovery (Scheduling, PythonWrapperCodegen, CppWrapperCodegen)."""
    register()
    return _classes[name]
