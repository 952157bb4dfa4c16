"""Where a kernel's memory operations sit: reads `cuobjdump -sass` output on stdin and prints, for each
function whose name matches the pattern, the sequence of its loads, stores, barriers, shuffles and
branches, runs collapsed (LDG.E.128x4 BAR SHFLx5 ...). Usage:
    cuobjdump -sass lib.so | python3 benchmarks/probe/sass_loads.py REGEX"""
import re
import sys

pat = re.compile(sys.argv[1])
keep = re.compile(r"\b(LDG\S*|STG\S*|LDS\S*|BAR\S*|SHFL\S*|BRA|EXIT|LDC\S*)\b")
name, seq = None, []


def flush():
    if name and pat.search(name):
        runs = []
        for op in seq:
            if runs and runs[-1][0] == op:
                runs[-1][1] += 1
            else:
                runs.append([op, 1])
        print(name[-150:])
        print("   " + " ".join(op if n == 1 else f"{op}x{n}" for op, n in runs))


for line in sys.stdin:
    m = re.search(r"Function : (\S+)", line)
    if m:
        flush()
        name, seq = m.group(1), []
        continue
    m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if m and keep.match(m.group(2)):
        op = m.group(2)
        seq.append(("@" if m.group(1) else "") + op)
flush()
