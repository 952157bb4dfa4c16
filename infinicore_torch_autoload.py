"""torch's backend entry point (group "torch.backends"): a plain ``import torch`` registers "infini".

It lives outside the package so that a package that cannot load (for example, built against
another torch) costs a warning, never ``import torch`` itself.
"""


def load() -> None:
    try:
        import infinicore_torch  # noqa: F401  (registers the device; a no-op inside its own import)
    except Exception as e:  # noqa: BLE001
        import warnings

        warnings.warn(f"infinicore_torch could not be loaded, so the infini device is unavailable: {e}")
