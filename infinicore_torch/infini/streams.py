"""torch.infini.Stream and torch.infini.Event: torch.Stream and torch.Event on the infini device."""

from __future__ import annotations

import torch


class Stream(torch.Stream):
    """A stream of an infini device (from the device's pool, as torch.cuda.Stream)."""

    def __new__(cls, device=None, priority: int = 0, **kwargs):
        if "stream_id" in kwargs:
            return super().__new__(cls, **kwargs)
        from . import _index

        return super().__new__(cls, torch.device("infini", _index(device)), priority=priority)

    def __enter__(self):
        from . import _C, current_stream, set_stream

        self._previous_device = _C._exchange_device(self.device_index)
        self._previous_stream = current_stream(self.device_index)
        set_stream(self)
        return self

    def __exit__(self, *exc):
        from . import _C, set_stream

        set_stream(self._previous_stream)
        _C._set_device(self._previous_device)
        return False

    def __repr__(self) -> str:
        return f"torch.infini.Stream(device=infini:{self.device_index}, stream_id={self.stream_id})"


class Event(torch.Event):
    """An event of an infini device; enable_timing=True makes elapsed_time() work."""

    def __new__(cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        return super().__new__(
            cls, device="infini", enable_timing=enable_timing, blocking=blocking, interprocess=interprocess
        )

    def record(self, stream: torch.Stream | None = None) -> None:
        if stream is None:
            from . import current_stream

            stream = current_stream()
        super().record(stream)

    def elapsed_time(self, end_event: torch.Event) -> float:
        """Milliseconds from this event to end_event (both recorded and completed)."""
        from .. import _C

        return _C._elapsed_time(self.event_id, end_event.event_id)

    def wait(self, stream: torch.Stream | None = None) -> None:
        if stream is None:
            from . import current_stream

            stream = current_stream()
        super().wait(stream)
