"""infinicore_torch: the InfiniCore stack (infinirt, infiniop, infiniccl) as a PyTorch device.

``python -m infinicore_torch`` prints what was built and which devices are present.
"""

from __future__ import annotations

import torch  # noqa: F401  (the extension below needs torch's libraries loaded first)

__version__ = "0.1.0"

try:
    from . import _C  # noqa: F401
except ImportError as e:  # most often: built against another torch than the one running
    raise ImportError(
        f"infinicore_torch._C failed to load under torch {torch.__version__}: {e}. "
        "Rebuild with: pip install --no-build-isolation -e ."
    ) from e

from . import _infini  # noqa: E402

__all__ = ["backends", "__version__"]


def backends() -> list[_infini.Backend]:
    """Every backend library the loader found, loaded or not (with the reason)."""
    return _infini.backends()
