"""torch.infini graphs: capture the work queued on a stream once, replay it many times (torch.cuda.graphs' API).

A capture records the kernels, copies and memsets queued on the capturing stream instead of running them; a replay
queues the whole record on the current stream at once, with the same arguments (pointers included). Hence:

- inputs and outputs are *static* tensors: write new inputs into the captured input tensors in place
  (``static_x.copy_(x)``), replay, read the captured outputs;
- memory allocated during the capture comes from the graph's private pool, which stays reserved while the graph
  lives (``reset()`` or deleting the graph gives it back to ``empty_cache()``); graphs can share a pool
  (``graph_pool_handle()``) when they are replayed in the order they were captured;
- work that needs captured work to have run is refused with an error, and the capture is spoiled: synchronizing
  the capturing stream or its device, reading device memory on the host (``.item()``, ``.cpu()``), querying an
  event recorded during the capture, empty_cache(), ops that fall back to the CPU, and random ops (the infini
  generator gives kernels their seed and offset at launch, so every replay would draw the same numbers).

Run the callable once or twice before capturing it (on the capture stream or any other), so that one-time work
such as operator descriptors and lazy initialization happens outside the capture.
"""

from __future__ import annotations

import gc

import torch

from .. import _C

__all__ = ["InfiniGraph", "graph", "graph_pool_handle", "is_current_stream_capturing"]


def graph_pool_handle() -> tuple[int, int]:
    """An id of a private memory pool, to pass as ``pool=`` to several graphs so that they share its memory."""
    return _C._graph_pool_handle()


def is_current_stream_capturing() -> bool:
    """True while the current stream of the current device is capturing a graph."""
    return _C._is_current_stream_capturing()


class InfiniGraph(_C._InfiniGraph):
    """A graph of the infini device (torch.cuda.CUDAGraph's interface).

    ``capture_begin(pool=None, capture_error_mode="global")`` starts capturing the current stream (not the
    default stream), ``capture_end()`` ends it, ``replay()`` launches the graph on the current stream,
    ``reset()`` destroys it, ``pool()`` is the id of its memory pool. ``torch.infini.graph`` does the capture in
    a ``with`` block.
    """

    def capture_begin(self, pool=None, capture_error_mode: str = "global") -> None:
        super().capture_begin(pool=(0, 0) if pool is None else tuple(pool), capture_error_mode=capture_error_mode)


class graph:
    """Captures the work of the ``with`` block into ``infini_graph`` (torch.cuda.graph's interface).

    ``pool``: a ``graph_pool_handle()`` or another graph's ``pool()``, to share its memory. ``stream``: the stream
    to capture on (by default one side stream per device). Entering synchronizes the device, collects garbage and
    empties the allocator's cache, so that the capture starts from a quiet device.
    """

    default_capture_streams: dict[int, torch.Stream] = {}

    def __init__(self, infini_graph: InfiniGraph, pool=None, stream=None, capture_error_mode: str = "global"):
        from . import Stream, current_device

        if stream is None:
            device = current_device()
            stream = self.default_capture_streams.get(device)
            if stream is None:
                stream = self.default_capture_streams.setdefault(device, Stream(device))
        self.infini_graph = infini_graph
        self.pool = pool
        self.capture_stream = stream
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        from . import empty_cache, stream, synchronize

        synchronize(self.capture_stream.device_index)
        gc.collect()
        empty_cache()
        self.stream_ctx = stream(self.capture_stream)
        self.stream_ctx.__enter__()
        try:
            self.infini_graph.capture_begin(self.pool, capture_error_mode=self.capture_error_mode)
        except BaseException:
            self.stream_ctx.__exit__(None, None, None)
            raise

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.infini_graph.capture_end()
            else:
                self.infini_graph.reset()  # the block failed: its capture is dropped, the error stands
        finally:
            self.stream_ctx.__exit__(None, None, None)
        return False
