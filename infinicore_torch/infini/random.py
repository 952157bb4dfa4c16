"""Random number generators of infini devices, as torch.cuda's."""

from __future__ import annotations

import torch

from .. import _C


def _index(device) -> int:
    from . import _index as index

    return index(device)


class _DefaultGenerators:
    """torch.infini.default_generators[i]: the default generator of device i."""

    def __getitem__(self, i: int) -> torch.Generator:
        return _C._default_generator(i)

    def __len__(self) -> int:
        return _C._infini_device_count()

    def __iter__(self):
        return (self[i] for i in range(len(self)))


default_generators = _DefaultGenerators()


def manual_seed(seed: int) -> None:
    """Seeds the current device's generator."""
    default_generators[_index(None)].manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    for g in default_generators:
        g.manual_seed(int(seed))


def seed() -> None:
    default_generators[_index(None)].seed()


def seed_all() -> None:
    s = torch.Generator().seed()
    manual_seed_all(s)


def initial_seed() -> int:
    return default_generators[_index(None)].initial_seed()


def get_rng_state(device="infini") -> torch.Tensor:
    return default_generators[_index(device)].get_state()


def set_rng_state(new_state: torch.Tensor, device="infini") -> None:
    default_generators[_index(device)].set_state(new_state)


def get_rng_state_all() -> list[torch.Tensor]:
    return [g.get_state() for g in default_generators]


def set_rng_state_all(new_states) -> None:
    for g, s in zip(default_generators, new_states):
        g.set_state(s)
