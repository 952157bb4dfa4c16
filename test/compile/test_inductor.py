"""torch.compile on infini tensors: Dynamo traces with no graph break, Inductor generates the kernels (C++ on the
cpu backend, Triton on the nvidia backend), the rest runs on the infini aten kernels; results equal eager mode, with
the CPU fallback forbidden (the root conftest's native_only fixture covers test/compile)."""

import copy

import pytest
import torch
from torch._inductor.utils import run_and_get_code

import infinicore_torch

DEV = "infini"
TOL = dict(rtol=1e-5, atol=1e-5)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def generated_kernels(code: str) -> int:
    return code.count("cpp_fused_") + code.count("@triton.jit")


def test_pointwise_and_reductions_become_generated_kernels():
    def f(x, y):
        return torch.softmax(x * y + 1, -1).sum(0) + x.sin().mean()

    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 128, generator=g), torch.randn(64, 128, generator=g)
    out, code = run_and_get_code(torch.compile(f, fullgraph=True), x.to(DEV), y.to(DEV))
    assert out.device.type == DEV
    torch.testing.assert_close(out.cpu(), f(x, y), **TOL)
    assert generated_kernels(code[0]) >= 1
    if torch.infini.backend() == "cpu":
        # host kernels over device memory wait for the queued aten work first
        assert "torch.infini.current_stream().synchronize()" in code[0]


def test_gemm_and_views_run_on_infini_kernels_around_generated_ones():
    def f(a, b, bias):
        return torch.nn.functional.gelu(a @ b + bias).transpose(0, 1).contiguous() * 2

    g = torch.Generator().manual_seed(1)
    a, b, bias = torch.randn(32, 48, generator=g), torch.randn(48, 16, generator=g), torch.randn(16, generator=g)
    got = torch.compile(f, fullgraph=True)(a.to(DEV), b.to(DEV), bias.to(DEV))
    torch.testing.assert_close(got.cpu(), f(a, b, bias), rtol=1e-4, atol=1e-5)


def test_backward_of_a_compiled_function():
    def f(x, w):
        return (torch.nn.functional.silu(x) * w).sum()

    g = torch.Generator().manual_seed(2)
    x, w = torch.randn(256, 64, generator=g), torch.randn(256, 64, generator=g)
    xd = x.to(DEV).requires_grad_()
    torch.compile(f, fullgraph=True)(xd, w.to(DEV)).backward()
    xc = x.clone().requires_grad_()
    f(xc, w).backward()
    torch.testing.assert_close(xd.grad.cpu(), xc.grad, **TOL)


def test_the_current_stream_orders_compiled_work():
    def f(x):
        return (x.cos() + 1).sum(-1)

    x = torch.randn(128, 128)
    s = torch.infini.Stream()
    compiled = torch.compile(f, fullgraph=True)
    with torch.infini.stream(s):
        xd = x.to(DEV)
        out = compiled(xd * 3)
    s.synchronize()
    torch.testing.assert_close(out.cpu(), f(x * 3), **TOL)


transformers = pytest.importorskip("transformers")
from _hf import llama, qwen2  # noqa: E402


@pytest.mark.parametrize("make", [llama, qwen2], ids=["llama", "qwen2"])
def test_hf_causal_lm_forward_and_training_step(make):
    torch.manual_seed(0)
    model = make().eval()
    dev = copy.deepcopy(model).to(DEV)
    ids = torch.randint(0, 128, (2, 16), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        eager = dev(ids.to(DEV)).logits
        got = torch.compile(dev, fullgraph=True)(ids.to(DEV)).logits
    torch.testing.assert_close(got.cpu(), eager.cpu(), **TOL)
    torch.testing.assert_close(got.cpu(), model(ids).logits, rtol=1e-4, atol=1e-4)

    torch._dynamo.reset()
    dev.train()
    model.train()
    loss = torch.compile(dev, fullgraph=True)(ids.to(DEV), labels=ids.to(DEV)).loss
    loss.backward()
    ref = model(ids, labels=ids).loss
    ref.backward()
    torch.testing.assert_close(loss.cpu(), ref, rtol=1e-5, atol=1e-5)
    for (name, pc), pd in zip(model.named_parameters(), dev.parameters()):
        torch.testing.assert_close(pd.grad.cpu(), pc.grad, rtol=1e-3, atol=1e-5, msg=name)
    assert infinicore_torch.fallback_stats() == {}
