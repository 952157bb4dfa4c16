"""Graphs: work captured from a stream and replayed (torch.infini.graph, InfiniGraph, private memory pools)."""

import gc

import pytest
import torch

import infinicore_torch  # noqa: F401
from infinicore_torch import _C

DEV = "infini"


@pytest.fixture(autouse=True)
def quiet_device():
    torch.infini.synchronize()
    gc.collect()
    torch.infini.empty_cache()
    yield
    torch.infini.synchronize()
    gc.collect()
    torch.infini.empty_cache()


def rms_norm_ref(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    x64 = x.double()
    return x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps) * w.double()


def test_replays_recompute_from_the_static_input():
    gen = torch.Generator().manual_seed(0)
    w_cpu = torch.randn(40, 24, generator=gen)
    g_cpu = torch.rand(40, generator=gen) + 0.5
    static_x = torch.zeros(7, 40, device=DEV)
    w, gamma = w_cpu.to(DEV), g_cpu.to(DEV)

    def step(x):
        h = torch.ops.infini.rms_norm(x, gamma, 1e-6)
        return torch.relu(h @ w) * 2.0 + 1.0

    side = torch.infini.Stream()
    with torch.infini.stream(side):  # warm-up: descriptors and workspaces before the capture
        step(static_x)
    torch.infini.synchronize()

    g = torch.infini.InfiniGraph()
    with torch.infini.graph(g):
        static_out = step(static_x)
    assert static_out.device.type == DEV and static_out.shape == (7, 24)

    for _ in range(3):
        x_cpu = torch.randn(7, 40, generator=gen)
        static_x.copy_(x_cpu.to(DEV))
        g.replay()
        expected = torch.relu(rms_norm_ref(x_cpu, g_cpu, 1e-6) @ w_cpu.double()) * 2.0 + 1.0
        torch.testing.assert_close(static_out.cpu().double(), expected, rtol=1e-4, atol=1e-4)


def test_capture_records_without_running_and_each_replay_runs_once():
    acc = torch.zeros(1000, device=DEV)
    one = torch.ones(1000, device=DEV)
    g = torch.infini.InfiniGraph()
    with torch.infini.graph(g):
        acc.add_(one)
        acc.mul_(2.0)
    torch.infini.synchronize()
    assert torch.equal(acc.cpu(), torch.zeros(1000)), "the capture ran the work it recorded"
    expected = 0.0
    other = torch.infini.Stream()
    for i in range(5):
        with torch.infini.stream(other if i % 2 else None):  # a replay runs on the current stream
            g.replay()
        torch.infini.synchronize()
        expected = (expected + 1.0) * 2.0
    assert torch.equal(acc.cpu(), torch.full((1000,), expected))


def test_a_graph_raises_for_a_second_capture_and_replays_only_after_one():
    g = torch.infini.InfiniGraph()
    with pytest.raises(RuntimeError, match="holds no capture"):
        g.replay()
    x = torch.ones(4, device=DEV)
    with torch.infini.graph(g):
        y = x * 3
    with pytest.raises(RuntimeError, match="reset"):
        g.capture_begin()
    g.replay()
    assert torch.equal(y.cpu(), torch.full((4,), 3.0))
    with pytest.raises(RuntimeError, match="default stream"):
        torch.infini.InfiniGraph().capture_begin()


def test_allocations_during_capture_come_from_a_private_pool():
    x = torch.ones(1000, device=DEV)
    s = torch.infini.Stream()
    g = torch.infini.InfiniGraph()
    with torch.infini.graph(g, stream=s):
        assert torch.infini.is_current_stream_capturing()
        out = x + 1
        tmp = x * 2
        tmp_ptr = tmp.data_ptr()
        out.add_(tmp)
        del tmp  # free, in the graph's pool only: a replay still writes it
    assert not torch.infini.is_current_stream_capturing()
    eager = []
    for stream in (s, torch.infini.default_stream()):
        with torch.infini.stream(stream):
            eager += [torch.empty(1000, device=DEV) for _ in range(4)]
    graph_ptrs = {tmp_ptr, out.data_ptr()}
    assert not graph_ptrs & {t.data_ptr() for t in eager}
    g.replay()
    assert torch.equal(out.cpu(), torch.full((1000,), 4.0))


def test_two_graphs_share_a_pool_and_replay_in_capture_order():
    pool = torch.infini.graph_pool_handle()
    x = torch.zeros(256, device=DEV)
    g1, g2, g3 = torch.infini.InfiniGraph(), torch.infini.InfiniGraph(), torch.infini.InfiniGraph()
    with torch.infini.graph(g1, pool=pool):
        a = x * 2
    segments = torch.infini.memory_stats()["num_device_alloc"]
    with torch.infini.graph(g2, pool=g1.pool()):
        b = a + x
    assert g1.pool() == g2.pool() == tuple(pool)
    assert torch.infini.memory_stats()["num_device_alloc"] == segments, "the shared pool's segment was not used"
    with torch.infini.graph(g3):  # a pool of its own: a segment of its own
        c = x - 1
    assert torch.infini.memory_stats()["num_device_alloc"] == segments + 1
    assert g3.pool() != g1.pool()
    for v in (1.0, -2.5, 4.0):
        x.fill_(v)
        g1.replay()
        g2.replay()
        g3.replay()
        torch.testing.assert_close(b.cpu(), torch.full((256,), 3 * v))
        torch.testing.assert_close(c.cpu(), torch.full((256,), v - 1))


@pytest.mark.parametrize("drop", ["reset", "del"])
def test_the_pool_stays_reserved_until_the_graph_goes(drop):
    x = torch.ones(1 << 20, device=DEV)  # 4 MiB: a large-pool segment of its own in the graph's pool
    g = torch.infini.InfiniGraph()
    with torch.infini.graph(g):
        out = x * 2
    pool = g.pool()
    pool_bytes = _C._pool_reserved_bytes(0, pool)
    assert pool_bytes >= 4 << 20
    del out  # free in the pool, still reserved for the graph
    gc.collect()
    torch.infini.empty_cache()
    held = torch.infini.memory_reserved()
    assert _C._pool_reserved_bytes(0, pool) == pool_bytes and held >= pool_bytes
    if drop == "reset":
        g.reset()
        with pytest.raises(RuntimeError, match="holds no capture"):
            g.replay()
    else:
        del g
        gc.collect()
    torch.infini.empty_cache()
    assert _C._pool_reserved_bytes(0, pool) == 0
    assert torch.infini.memory_reserved() == held - pool_bytes


FORBIDDEN = {
    "device synchronize": (lambda x: torch.infini.synchronize(), "synchroniz"),
    "stream synchronize": (lambda x: torch.infini.current_stream().synchronize(), "synchroniz"),
    "item": (lambda x: x.sum().item(), "capturing"),
    "copy to the host": (lambda x: x.cpu(), "capturing"),
    "random op": (lambda x: torch.randn(4, device=DEV), "random ops cannot be captured"),
    "empty_cache": (lambda x: torch.infini.empty_cache(), "empty_cache"),
    "event query": (lambda x: _record_and_query(), "event recorded during a stream capture"),
    "cpu fallback": (lambda x: torch.special.bessel_j0(x), "bessel_j0.* cannot be captured"),
}


def _record_and_query():
    e = torch.infini.Event()
    e.record()
    e.query()


@pytest.mark.parametrize("what", sorted(FORBIDDEN))
def test_work_that_cannot_be_captured_raises_and_drops_the_capture(what):
    fn, message = FORBIDDEN[what]
    x = torch.ones(16, device=DEV)
    g = torch.infini.InfiniGraph()
    with pytest.raises(RuntimeError, match=message):
        with torch.infini.graph(g):
            y = x + 1
            fn(x)
    assert not torch.infini.is_current_stream_capturing()
    with pytest.raises(RuntimeError, match="holds no capture"):
        g.replay()
    # the device, the stream and the graph are usable again
    y = x + 1
    torch.infini.synchronize()
    assert torch.equal(y.cpu(), torch.full((16,), 2.0))
    with torch.infini.graph(g):
        z = x * 5
    g.replay()
    assert torch.equal(z.cpu(), torch.full((16,), 5.0))


def test_a_refused_call_spoils_the_capture_even_when_caught():
    x = torch.ones(16, device=DEV)
    g = torch.infini.InfiniGraph()
    with pytest.raises(RuntimeError, match="graph capture failed.*synchroniz"):
        with torch.infini.graph(g):
            x.add_(1)
            with pytest.raises(RuntimeError):
                torch.infini.synchronize()
    with pytest.raises(RuntimeError, match="holds no capture"):
        g.replay()


@pytest.mark.two_devices
def test_a_graph_of_the_second_device_replays_there_from_any_current_device():
    x = torch.arange(8.0, device="infini:1")
    g = torch.infini.InfiniGraph()
    with torch.infini.device(1):
        with torch.infini.graph(g):
            y = x * x
    assert y.device == torch.device("infini:1") and torch.infini.current_device() == 0
    assert _C._pool_reserved_bytes(1, g.pool()) > 0 and _C._pool_reserved_bytes(0, g.pool()) == 0
    x.add_(1)
    g.replay()  # on infini:1's current stream, with infini:0 current
    torch.infini.synchronize(1)
    assert torch.equal(y.cpu(), (torch.arange(8.0) + 1) ** 2)


@pytest.mark.skipif(
    torch.cuda.is_available(),
    reason="with a CUDA build of torch, pin_memory=True pins through CUDA's host allocator (the current "
    "accelerator), which a global-mode capture refuses as under torch.cuda.graph",
)
def test_pinned_memory_freed_during_a_capture_leaves_the_capture_and_later_pinning_alone():
    x = torch.arange(256.0, device=DEV)
    keep = torch.empty(256, pin_memory=True)  # the captured copy's destination, alive while the graph is
    g = torch.infini.InfiniGraph()
    with torch.infini.graph(g):
        host = torch.empty(256, pin_memory=True)
        host.copy_(x * 2, non_blocking=True)  # a copy into pinned memory: captured, and the block's use recorded
        del host  # freed while its stream captures
        keep.copy_(x * 3, non_blocking=True)
        torch.empty(256, pin_memory=True)  # the pinned allocator looks at its freed blocks
    torch.empty(256, pin_memory=True)
    g.replay()
    torch.infini.synchronize()
    assert torch.equal(keep, torch.arange(256.0) * 3)
