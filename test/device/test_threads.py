"""Four Python threads allocating and computing on infini at once."""

import gc
import threading

import pytest
import torch

import infinicore_torch  # noqa: F401


@pytest.mark.two_devices
def test_four_threads_allocate_and_compute():
    errors = []

    def work(tid):
        try:
            dev = f"infini:{tid % 2}"
            g = torch.Generator().manual_seed(tid)
            s = torch.infini.Stream(device=tid % 2)
            for i in range(30):
                x = torch.randn(64, 64, generator=g)
                with torch.infini.stream(s):
                    xi = x.to(dev)
                    y = (xi @ xi.T + i).sum(dim=1)
                    out = y.cpu()
                torch.testing.assert_close(out, (x @ x.T + i).sum(dim=1), rtol=1e-4, atol=1e-3)
                assert y.device == torch.device(dev)
        except Exception as e:  # reported below
            errors.append(f"thread {tid}: {e!r}")

    gc.collect()  # tensors of earlier tests held in reference cycles (pytest.raises' tracebacks) go now, not mid-test
    base = [torch.infini.memory_allocated(d) for d in (0, 1)]
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    torch.infini.synchronize(0)
    torch.infini.synchronize(1)
    assert [torch.infini.memory_allocated(d) for d in (0, 1)] == base
