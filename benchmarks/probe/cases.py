"""The calls the GPU probes time or profile: for each `op[:set[,set]]` item (default set: decode), each
shape of the comparison tool's sets, and each implementation that resolves on `device` (the others are
left out), one (op, label, impl, fn, inputs) case, inputs made once a shape, in bfloat16."""
import torch
from infinicore_torch.bench import impls as IM
from infinicore_torch.bench import specs as S


def cases(items, impls, device, seed=0):
    g = torch.Generator().manual_seed(seed)
    for item in items:
        op, _, sets = item.partition(":")
        spec = S.specs()[op]
        for shape_set in (sets or "decode").split(","):
            for p in spec.shapes[shape_set]:
                inputs = spec.make(p, torch.bfloat16, device, g)
                for impl in impls:
                    try:
                        fn = IM.resolve(impl, spec, device)
                    except IM.Skip:
                        continue
                    yield op, spec.label(p), impl, fn, inputs
