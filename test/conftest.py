"""Shared helpers for the tests of the infini C ABI (through ctypes, on the CPU backend)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from ctypes import byref, c_int, c_void_p

import pytest

from infinicore_torch import _infini as I

L = I.lib()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Tests marked cpu_backend are written for the CPU backend as the infini device: its emulated 8 GiB per
# device (INFINI_CPU_DEVICE_MEMORY), its default of two devices, and a loader with no other backend to fall
# back to. Where another backend is the infini device (the nvidia backend on the GPU machine) they skip,
# naming why; CI runs them on the CPU backend. Tests marked two_devices need two infini devices, whichever
# backend gives them: the CPU backend's two, or two GPUs (the nvidia backend on a two-GPU machine); with one
# they skip.
def pytest_configure(config):
    config.addinivalue_line("markers", "cpu_backend(why): needs the CPU backend as the infini device")
    config.addinivalue_line("markers", "two_devices: needs two infini devices (the CPU backend's, or two GPUs)")
    config.addinivalue_line("markers", "allow_fallback(why): an aten test that may use the CPU fallback")


def pytest_collection_modifyitems(config, items):
    import torch

    if not hasattr(torch, "infini"):
        return
    name, count = torch.infini.backend(), torch.infini.device_count()
    if name != "cpu":  # the marker's argument, where given, says why
        for item in items:
            mark = item.get_closest_marker("cpu_backend")
            if mark:
                why = mark.args[0] if mark.args else "its 8 GiB devices, its loader"
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"written for the CPU backend as the infini device ({why}); "
                        f"here the infini device is the {name} backend"
                    )
                )
    if count < 2:
        skip2 = pytest.mark.skip(reason=f"needs two infini devices; the {name} backend has {count}")
        for item in items:
            if item.get_closest_marker("two_devices"):
                item.add_marker(skip2)


@pytest.fixture(autouse=True)
def _on_cpu0():
    """Every test starts (and ends) with the calling thread on cpu:0."""
    I.set_device(I.DEVICE_CPU, 0)
    yield
    I.set_device(I.DEVICE_CPU, 0)


def assert_fails(status: int, expected: int, *fragments: str) -> str:
    """Asserts a call failed with `expected` and that the thread's message holds every fragment."""
    assert status == expected, f"expected {I.status_name(expected)}, got {I.status_name(status)}: {I.last_error()}"
    message = I.last_error()
    for f in fragments:
        assert f in message, f"{f!r} not in {message!r}"
    return message


def dmalloc(n: int) -> int:
    p = c_void_p()
    I.check(L.infinirtMalloc(byref(p), n))
    return p.value


def hmalloc(n: int) -> int:
    p = c_void_p()
    I.check(L.infinirtMallocHost(byref(p), n))
    return p.value


def h2d(dst: int, data: bytes) -> None:
    buf = ctypes.create_string_buffer(data, len(data))
    I.check(L.infinirtMemcpy(dst, buf, len(data), I.H2D))


def d2h(src: int, n: int) -> bytes:
    buf = ctypes.create_string_buffer(n)
    I.check(L.infinirtMemcpy(buf, src, n, I.D2H))
    return buf.raw


def stream_create() -> int:
    s = c_void_p()
    I.check(L.infinirtStreamCreate(byref(s)))
    return s.value


def event_create(flags: int = I.EVENT_DEFAULT) -> int:
    e = c_void_p()
    I.check(L.infinirtEventCreateWithFlags(byref(e), flags))
    return e.value


def stream_status(stream) -> int:
    q = c_int()
    I.check(L.infinirtStreamQuery(stream, byref(q)))
    return q.value


def event_status(event) -> int:
    q = c_int()
    I.check(L.infinirtEventQuery(event, byref(q)))
    return q.value


def sleeper(seconds: float) -> I.HOST_FUNC:
    """A host function that sleeps; keep the returned object alive until the stream has run it."""
    import time

    return I.HOST_FUNC(lambda _arg: time.sleep(seconds))


def used_bytes(device: int) -> int:
    free, total = I.mem_info(I.DEVICE_CPU, device)
    return total - free


def run_python(code: str, env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter (the loader reads its environment once per process)."""
    full_env = dict(os.environ)
    for k in ("INFINI_BACKEND_PATH", "INFINI_CPU_DEVICE_COUNT", "INFINI_CPU_DEVICE_MEMORY"):
        full_env.pop(k, None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", code], env=full_env, capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


@pytest.fixture(autouse=True)
def native_only(request, monkeypatch):
    """The aten and compile tests (test/aten, test/compile) run with INFINI_FALLBACK=error and end with no fallback counted, unless marked
    allow_fallback: a pass proves the path ran on the device's own kernels."""
    parts = request.node.path.parts
    if ("aten" not in parts and "compile" not in parts) or request.node.get_closest_marker("allow_fallback"):
        yield
        return
    import infinicore_torch

    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


@pytest.fixture
def fusion_on_infini_and_cpu():
    """(test/compile) The fusion passes on for infini and CPU tensors, counters zeroed, every graph compiled anew (a
    graph served from Inductor's cache is not rewritten again, nor counted); afterwards the default passes and
    devices again."""
    import torch
    import torch._inductor.config as inductor_config

    from infinicore_torch import fusion

    torch._dynamo.reset()
    fusion.reset_counters()
    fusion.enable(devices=("infini", "cpu"))
    with inductor_config.patch(fx_graph_cache=False):
        yield
    fusion.enable()
    fusion.enable(devices=("infini",))
    torch._dynamo.reset()
