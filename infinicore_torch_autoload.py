"""torch's backend entry point (group "torch.backends"): a plain ``import torch`` registers "infini".

It lives outside the package so that a package that cannot load (for example, built against
another torch) costs a warning, never ``import torch`` itself.

Not with a CUDA or ROCm build of torch: a registered PrivateUse1 device becomes the process's one accelerator
for PyTorch, and from then on a backward over CUDA tensors fails inside the autograd engine
(pytorch/pytorch#161129). There the device is registered by ``import infinicore_torch`` only, so that a CUDA
training job in the same environment keeps working; ``INFINI_AUTOLOAD=1`` registers it anyway, ``0`` never.
"""

import os


def _wanted() -> bool:
    forced = os.environ.get("INFINI_AUTOLOAD")
    if forced is not None:
        return forced not in ("", "0")
    import torch

    return torch.version.cuda is None and getattr(torch.version, "hip", None) is None


def load() -> None:
    if not _wanted():
        return
    try:
        import infinicore_torch  # noqa: F401  (registers the device; a no-op inside its own import)
    except Exception as e:  # noqa: BLE001
        import warnings

        warnings.warn(f"infinicore_torch could not be loaded, so the infini device is unavailable: {e}")
