"""The per-operator C ABI (headers and core forwarding) is generated from one table and kept in step."""

import os
import re
import subprocess
import sys

from conftest import ROOT

GEN = os.path.join(ROOT, "backends", "tools", "gen_ops.py")


def test_generated_files_match_the_table():
    r = subprocess.run([sys.executable, GEN, "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_table_follows_the_operator_enum():
    sys.path.insert(0, os.path.dirname(GEN))
    import gen_ops

    header = open(os.path.join(ROOT, "backends", "include", "infini", "ops", "list.h")).read()
    enum = re.findall(r"INFINIOP_OP_([A-Z_]+)\s*[,=]", header)
    assert [e for e in enum if e != "COUNT"] == [op[0].upper() for op in gen_ops.OPS]
