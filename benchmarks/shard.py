"""pytest plugin: runs every n-th collected test, for spreading a slow suite or sanitizer area over processes.

    SHARD=i/n PYTHONPATH=benchmarks python3 -m pytest -p shard ...   (keeps tests i, i+n, i+2n, ... of those selected)

Used by benchmarks/gpu_verify.sh (the suite's parts and the sanitizer modes)."""

import os

import pytest


@pytest.hookimpl(trylast=True)  # after -k has deselected: the shards of what is selected
def pytest_collection_modifyitems(config, items):
    spec = os.environ.get("SHARD")
    if not spec:
        return
    i, n = (int(x) for x in spec.split("/"))
    keep = [it for j, it in enumerate(items) if j % n == i]
    config.hook.pytest_deselected(items=[it for j, it in enumerate(items) if j % n != i])
    items[:] = keep
