"""infinicore_torch.ops' direct entry (csrc/ops/FastCall.cpp): the same operator as torch.ops.infini,
reached without torch.ops' Python layer; anything it does not convert goes to torch.ops itself."""

from __future__ import annotations

import threading

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import infinicore_torch  # noqa: F401
from infinicore_torch import ops


def test_public_functions_are_builtins_with_their_docs_and_signatures():
    import inspect

    for name in ops.__all__:
        fn = getattr(ops, name)
        if name == "random_sample":  # a Python function: it chooses between two overloads
            continue
        assert type(fn).__name__ == "builtin_function_or_method", name
        assert fn.__name__ == name and fn.__doc__ and len(fn.__doc__) > 20, name
        assert ops._traced[fn].__name__ == name  # what torch.compile traces in its place
    assert str(inspect.signature(ops.rms_norm)) == "(x, weight, eps=1e-06)"
    assert str(inspect.signature(ops.gelu)) == "(x, approximate='none')"


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_direct_equals_torch_ops(dtype):
    g = torch.Generator().manual_seed(0)
    a = torch.randn(7, 33, generator=g).to(dtype)
    b = torch.randn(7, 33, generator=g).to(dtype)
    w = torch.randn(33, generator=g).to(dtype)
    assert torch.equal(ops.mul(a, b), torch.ops.infini.mul(a, b))
    assert torch.equal(ops.rms_norm(a, w, 1e-5), torch.ops.infini.rms_norm(a, w, 1e-5))
    y, r = ops.add_rms_norm(a, b, w)
    y2, r2 = torch.ops.infini.add_rms_norm(a, b, w)
    assert torch.equal(y, y2) and torch.equal(r, r2)
    assert torch.equal(ops.gelu(a, approximate="tanh"), torch.ops.infini.gelu(a, "tanh"))
    assert torch.equal(ops.layer_norm(a, w), torch.ops.infini.layer_norm(a, w, None, 1e-5))
    # an int where the schema has a float is converted, as torch.ops does
    assert torch.equal(ops.rms_norm(a, w, 1), torch.ops.infini.rms_norm(a, w, 1.0))


def test_keywords_defaults_and_what_takes_torch_ops():
    x = torch.randn(4, 64)
    w = torch.randn(64)
    # keywords by the schema's names, defaults from the schema
    assert torch.equal(ops.rms_norm(x, weight=w), torch.ops.infini.rms_norm(x, w, 1e-6))
    assert torch.equal(ops.rms_norm(x, w, eps=0.5), torch.ops.infini.rms_norm(x, w, 0.5))
    with pytest.raises((RuntimeError, TypeError)):  # an unknown keyword: torch.ops' error
        ops.rms_norm(x, w, epsilon=0.5)
    with pytest.raises((RuntimeError, TypeError)):  # a repeated argument
        ops.rms_norm(x, w, 1e-6, eps=0.5)
    assert torch.equal(ops.gelu(x, approximate="tanh"), torch.ops.infini.gelu(x, "tanh"))
    assert torch.equal(ops.softmax(x), torch.ops.infini.softmax(x, -1))
    with pytest.raises((RuntimeError, TypeError)):
        ops.mul(x)
    # a bool where the schema has an int: torch.ops decides what it means
    w, i = ops.topk_softmax(x, True, False)
    w2, i2 = torch.ops.infini.topk_softmax(x, True, False)
    assert torch.equal(w, w2) and torch.equal(i, i2)
    # a non-tensor where a tensor belongs: torch.ops' error
    with pytest.raises((RuntimeError, TypeError)):
        ops.mul(x, [1.0])


def _python_calls(fn):
    """The Python functions entered while fn runs (fn itself left out)."""
    import sys

    calls = []

    def prof(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return [c for c in calls if c != "<lambda>"]


def test_output_keywords_take_the_out_overload():
    """out= (and residual_out=) reach the op's `out` overload directly, as torch.ops' packet resolves
    them: the outputs written and returned (the same objects), defaults from the out schema."""
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(6, 40, generator=g), torch.randn(6, 40, generator=g)
    w = torch.randn(40, generator=g)
    c = torch.empty(6, 40)
    assert ops.add(a, b, out=c) is c and torch.equal(c, a + b)
    y = torch.empty(6, 40)
    assert ops.rms_norm(a, w, out=y) is y
    assert torch.equal(y, torch.ops.infini.rms_norm(a, w, 1e-6))
    assert ops.rms_norm(a, weight=w, eps=0.5, out=y) is y
    assert torch.equal(y, torch.ops.infini.rms_norm(a, w, 0.5))
    r = torch.empty(6, 40)
    got = ops.add_rms_norm(a, b, w, out=y, residual_out=r)
    want = torch.ops.infini.add_rms_norm(a, b, w)
    assert got[0] is y and got[1] is r and torch.equal(y, want[0]) and torch.equal(r, want[1])
    s = torch.empty(6, 40)
    assert ops.softmax(a, out=s) is s and torch.equal(s, torch.ops.infini.softmax(a, -1))
    # no Python runs on the way (torch.ops' packet resolving the overload would: its __call__)
    assert _python_calls(lambda: ops.add(a, b, out=c)) == []
    assert _python_calls(lambda: torch.ops.infini.add(a, b, out=c)) != []  # (the check can see it)
    seen = []

    class DispatchMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with DispatchMode():
        ops.mul(a, b, out=c)
    assert "infini.mul.out" in seen and torch.equal(c, a * b)
    with pytest.raises((RuntimeError, TypeError)):  # a keyword neither overload has: torch.ops' error
        ops.add(a, b, out=c, alpha=2)
    with pytest.raises((RuntimeError, TypeError)):  # outputs are keyword-only
        ops.add(a, b, c)
    c0 = c.clone()
    with pytest.raises(RuntimeError, match=r"infini\.mul"):  # a bad input: the op's error, out untouched
        ops.mul(a, torch.randint(0, 5, (6, 40)), out=c)
    assert torch.equal(c, c0)


def test_errors_name_the_op_and_leave_inputs_unchanged():
    a = torch.randn(4, 8)
    b = torch.randint(0, 5, (4, 8))
    a0 = a.clone()
    with pytest.raises(RuntimeError, match=r"infini\.mul: b has dtype"):
        ops.mul(a, b)
    assert torch.equal(a, a0)
    w = torch.randn(32000 // 1000, 16)
    idx = torch.tensor([0, 99])
    with pytest.raises(RuntimeError, match="embedding"):
        ops.embedding(idx, w)


class _Logged(torch.Tensor):
    seen: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))


def test_tensor_subclass_sees_torch_function():
    a = torch.randn(3, 5).as_subclass(_Logged)
    b = torch.randn(3, 5)
    _Logged.seen.clear()
    out = ops.mul(a, b)
    assert any("infini.mul" in str(f) for f in _Logged.seen)
    assert torch.allclose(torch.Tensor(out), torch.Tensor(a) * b)


def test_torch_function_and_dispatch_modes_see_the_op():
    seen_fn, seen_dispatch = [], []

    class FnMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen_fn.append(str(func))
            return func(*args, **(kwargs or {}))

    class DispatchMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen_dispatch.append(str(func))
            return func(*args, **(kwargs or {}))

    a, b = torch.randn(2, 4), torch.randn(2, 4)
    with FnMode():
        ops.add(a, b)
    with DispatchMode():
        ops.add(a, b)
    assert any("infini.add" in f for f in seen_fn)
    assert "infini.add.default" in seen_dispatch


def test_autograd_through_the_direct_entry():
    x = torch.randn(5, 16, requires_grad=True)
    w = torch.randn(16, requires_grad=True)
    ops.rms_norm(x, w).sum().backward()
    xr, wr = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    torch.nn.functional.rms_norm(xr, (16,), wr, 1e-6).sum().backward()
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(w.grad, wr.grad, rtol=1e-4, atol=1e-5)


def test_profiler_records_the_op():
    a = torch.randn(8, 8)
    with torch.profiler.profile() as prof:
        ops.mul(a, a)
    assert any("infini::mul" in e.name for e in prof.events())


def test_releases_the_gil_while_the_kernel_runs():
    # the main thread keeps running Python while a worker is inside one long op: its longest stall is
    # a scheduling slice, not the op's duration (which it would be with the GIL held)
    import time

    a = torch.randn(2048, 2048)
    t0 = time.perf_counter()
    ops.gemm(a, a)
    op_s = time.perf_counter() - t0
    if op_s < 0.05:
        pytest.skip(f"gemm took {op_s * 1e3:.1f} ms: too short to see a stall")
    worker = threading.Thread(target=lambda: ops.gemm(a, a))
    last, longest = time.perf_counter(), 0.0
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    assert longest < op_s / 2, (longest, op_s)


def test_compile_traces_torch_ops_not_the_builtin():
    from torch._dynamo.testing import CompileCounterWithBackend

    def f(x, w):
        return ops.silu(ops.rms_norm(x, w, eps=1e-5)) * 2

    x, w = torch.randn(4, 32), torch.randn(32)
    counter = CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(f, fullgraph=True, backend=counter)
    torch.testing.assert_close(compiled(x, w), f(x, w))
    assert counter.frame_count == 1
    targets = [str(n.target) for g in counter.graphs for n in g.graph.nodes if n.op == "call_function"]
    # the graph holds the torch.ops operators, not the builtins
    assert any(t.startswith("infini.rms_norm") for t in targets) and any(t.startswith("infini.silu") for t in targets)
    assert not any("built-in function rms_norm" in t or "built-in function silu" in t for t in targets), targets


def test_dynamo_imported_before_the_package():
    import subprocess
    import sys

    code = (
        "import torch, torch._dynamo\n"
        "import infinicore_torch\n"
        "from infinicore_torch import ops\n"
        "f = torch.compile(lambda a, b: ops.mul(ops.add(a, b), b), fullgraph=True, backend='aot_eager')\n"
        "a, b = torch.randn(3), torch.randn(3)\n"
        "assert torch.allclose(f(a, b), (a + b) * b)\n"
        "print('ok')\n"
    )
    env = dict(__import__("os").environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr[-2000:]
