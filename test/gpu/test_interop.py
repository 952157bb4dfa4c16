"""torch's "cuda" and "infini" on the nvidia backend: copies both ways (device to device, any layout and dtype,
ordered against both devices' streams), zero-copy views (as_cuda / as_infini) and DLPack. Elsewhere the same calls
raise a clear error."""

import pytest
import torch

import infinicore_torch

NVIDIA = infinicore_torch._C._backend_name() == "nvidia" and torch.cuda.is_available()
gpu = pytest.mark.skipif(not NVIDIA, reason="needs the nvidia backend and a CUDA torch")


@gpu
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_copies_between_cuda_and_infini(dtype):
    x = torch.arange(4 * 6 * 5, dtype=torch.float64).reshape(4, 6, 5).to(dtype)
    c = x.cuda()
    i = c.to("infini")  # cuda -> infini, dense
    assert i.device.type == "infini" and torch.equal(i.cpu(), x)
    back = i.to("cuda")  # infini -> cuda, dense
    assert back.device.type == "cuda" and torch.equal(back.cpu(), x)
    assert torch.equal(c.transpose(0, 2).to("infini").cpu(), x.transpose(0, 2))  # a strided source
    out = torch.empty(6, 4, 5, dtype=torch.float32, device="cuda").transpose(0, 1)
    out.copy_(i)  # into a strided destination with a cast
    assert torch.equal(out.cpu(), x.float())


@gpu
def test_copy_orders_against_both_streams():
    c = torch.zeros(1 << 22, device="cuda")
    for k in range(5):
        c.add_(1)  # queued on torch's stream
        i = c.to("infini")
        i.mul_(2)  # queued on the infini stream
        c.copy_(i)
    torch.cuda.synchronize()
    torch.infini.synchronize()
    assert float(c[0]) == 62.0 and float(c[-1]) == 62.0


@gpu
def test_zero_copy_views_and_dlpack():
    i = torch.arange(12.0, device="infini").reshape(3, 4)
    c = infinicore_torch.as_cuda(i)
    assert c.device == torch.device("cuda", i.device.index) and c.data_ptr() == i.data_ptr()
    c.mul_(2)
    torch.cuda.synchronize()
    assert torch.equal(i.cpu(), torch.arange(12.0).reshape(3, 4) * 2)
    back = infinicore_torch.as_infini(c.t())
    assert back.stride() == (1, 4) and back.data_ptr() == i.data_ptr()
    via = infinicore_torch.from_dlpack(infinicore_torch.to_dlpack(i))
    assert via.device.type == "infini" and via.data_ptr() == i.data_ptr()
    assert torch.from_dlpack(infinicore_torch.to_dlpack(i)).device.type == "cuda"


@pytest.mark.skipif(NVIDIA, reason="the error path of other backends")
def test_views_need_the_nvidia_backend():
    with pytest.raises(RuntimeError, match="nvidia backend"):
        infinicore_torch.as_cuda(torch.ones(2, device="infini"))
