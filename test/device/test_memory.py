"""The caching allocator: reuse, splitting, statistics, empty_cache, record_stream, out of memory."""

import pytest
import torch

import infinicore_torch  # noqa: F401


@pytest.fixture(autouse=True)
def clean_cache():
    torch.infini.synchronize()
    torch.infini.empty_cache()
    yield
    torch.infini.synchronize()
    torch.infini.empty_cache()


def stats(device=0):
    return torch.infini.memory_stats(device)


def test_ten_thousand_same_size_allocations_reuse_one_block():
    torch.empty(1000, device="infini")  # warm up: one segment
    before = stats()["num_device_alloc"]
    allocated = torch.infini.memory_allocated()
    for _ in range(10_000):
        t = torch.empty(1000, device="infini")
        del t
    assert stats()["num_device_alloc"] == before
    assert torch.infini.memory_allocated() == allocated


def test_stats_return_to_baseline_and_empty_cache_releases():
    base_alloc = torch.infini.memory_allocated()
    base_reserved = torch.infini.memory_reserved()
    ts = [torch.empty(n, dtype=torch.uint8, device="infini") for n in (100, 5000, 3 << 20, 30 << 20)]
    # sizes round to 512 bytes
    assert torch.infini.memory_allocated() == base_alloc + 512 + 5120 + (3 << 20) + (30 << 20)
    assert torch.infini.memory_reserved() >= torch.infini.memory_allocated()
    peak = torch.infini.max_memory_allocated()
    del ts
    assert torch.infini.memory_allocated() == base_alloc
    assert torch.infini.max_memory_allocated() == peak
    torch.infini.reset_peak_memory_stats()
    assert torch.infini.max_memory_allocated() == base_alloc
    assert torch.infini.memory_reserved() > base_reserved  # cached
    torch.infini.empty_cache()
    assert torch.infini.memory_reserved() == base_reserved
    free, total = torch.infini.mem_get_info()
    if torch.infini.backend() == "cpu":  # the emulated device: nothing else uses it
        assert total == 8 << 30 and total - free == torch.infini.memory_reserved()
    else:  # a GPU: the context and other processes use some of it too
        assert 0 < free <= total - torch.infini.memory_reserved()
        if torch.infini.backend() == "nvidia":
            assert total == torch.cuda.mem_get_info(0)[1]


def test_small_blocks_are_split_from_one_segment_and_merged_back():
    before = stats()
    ts = [torch.empty(256, device="infini") for _ in range(16)]  # 1 KiB each
    after = stats()
    assert after["segment.small_pool.current"] - before["segment.small_pool.current"] <= 1
    assert after["active.all.current"] - before["active.all.current"] == 16
    del ts
    final = stats()
    assert final["active.all.current"] == before["active.all.current"]
    assert final["inactive_split.all.current"] == before["inactive_split.all.current"]


def test_record_stream_delays_reuse_until_the_stream_is_done():
    import ctypes
    import time

    from infinicore_torch import _infini as I

    side = torch.infini.Stream()
    x = torch.ones(1 << 18, device="infini")
    ptr = x.data_ptr()
    slow = I.HOST_FUNC(lambda _a: time.sleep(0.3))
    with torch.infini.stream(side):  # slow work on the side stream, which then uses x
        I.check(I.lib().infinirtLaunchHostFunc(ctypes.c_void_p(side.native_handle), slow, None))
    x.record_stream(side)
    del x
    y = torch.empty(1 << 18, device="infini")
    assert y.data_ptr() != ptr  # x's block waits for the side stream
    side.synchronize()
    del y


def test_out_of_memory_raises_and_the_allocator_stays_usable():
    x = torch.ones(1000, device="infini")
    total = torch.infini.mem_get_info()[1]
    gib = total // (1 << 30) + 1  # more than the device has (9 on the CPU backend's 8 GiB)
    with pytest.raises(torch.OutOfMemoryError) as info:
        torch.empty(gib << 30, dtype=torch.uint8, device="infini")
    msg = str(info.value)
    assert "infini out of memory on device infini:0" in msg and f"Tried to allocate {gib}.00 GiB" in msg
    assert f"free of {total / (1 << 30):.2f} GiB" in msg
    assert stats()["num_ooms"] >= 1
    assert torch.equal(x.cpu(), torch.ones(1000))  # inputs untouched
    y = torch.full((10,), 2.0, device="infini")
    assert y.sum().item() == 20.0
