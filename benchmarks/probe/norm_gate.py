"""The bar rows where the best peer stays a hair ahead on the H100 (add_rms_norm 1024-16384 x 4096 against our
Triton kernel, rms_norm 4096x4096 against torch.compile, silu_and_mul 4096 / 8192 x 11008 against compile): the
landed kernels (variant 0 of each op, byte-identical code to norm.cu's / elementwise.cu's) against variants
(geometry, register cap, cache hints, a persistent grid, a flat or a block-a-row silu_and_mul) and the peers, timed
as the comparison tool times (L2 flush, GPU kept busy, interleaved, medians over rounds). Needs no package build:
nvcc builds norm_gate.cu into a library called through ctypes; the tool's timer and our Triton kernels are loaded
from their files.

    python3 benchmarks/probe/norm_gate.py [--ops add_rms_norm,rms_norm,silu_and_mul] [--rows ...] [--rounds 5]
    ncu ... python3 benchmarks/probe/norm_gate.py --profile ...   (each call twice after a flush, untimed)
"""
import argparse
import ctypes
import importlib.util
import os
import statistics

import torch
import torch.nn.functional as F
from nvcc_probe import ROOT, build, launcher, medians, profile_calls, tool_timer  # (this script's folder)

ap = argparse.ArgumentParser()
ap.add_argument("--ops", default="add_rms_norm,rms_norm,silu_and_mul")
ap.add_argument("--norm-rows", default="1024,4096,16384")
ap.add_argument("--gate-rows", default="4096,8192")
ap.add_argument("--variants", default="", help="indices to run (default all), e.g. 0,3,5")
ap.add_argument("--peers", default="triton,compile")
ap.add_argument("--reps", type=int, default=30)
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--busy-us", type=float, default=100.0)
ap.add_argument("--profile", action="store_true")
ap.add_argument("--pipeline", type=int, default=0,
                help="K > 0: also time K back-to-back calls on distinct buffers as one region (per-call mean), and "
                     "one call followed by a consumer reading its output (y * 2), each after the L2 flush")
args = ap.parse_args()

lib = build("norm_gate.cu")
I, L, P = ctypes.c_int, ctypes.c_longlong, ctypes.c_void_p
lib.ng_count.argtypes, lib.ng_count.restype = [I], I
lib.ng_name.argtypes, lib.ng_name.restype = [I, I], ctypes.c_char_p
lib.ng_norm.argtypes, lib.ng_norm.restype = [I, I, P, P, P, P, P, L, I], I
lib.ng_gate.argtypes, lib.ng_gate.restype = [I, P, P, L, L], I
spec = importlib.util.spec_from_file_location("triton_kernels", os.path.join(ROOT, "infinicore_torch", "bench", "triton_kernels.py"))
tk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tk)
timer = tool_timer(args.busy_us)
dev, dt = torch.device("cuda"), torch.bfloat16
for key in ("recompile_limit", "cache_size_limit"):  # (each shape its own graph, as the tool's compile peer)
    if hasattr(torch._dynamo.config, key):
        setattr(torch._dynamo.config, key, 256)


# the references as the comparison tool's specs.py writes them (compile's peers are these compiled)
def rms_ref(x, w, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def add_rms_ref(a, b, w, eps=1e-6):
    res = a + b
    return rms_ref(res, w, eps), res


def gate_ref(x):
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


def variants(op_id):
    pick = [int(v) for v in args.variants.split(",") if v] or range(lib.ng_count(op_id))
    return [(v, lib.ng_name(op_id, v).decode()) for v in pick if v < lib.ng_count(op_id)]


def err(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def run_row(label, names, fns, check):
    errs = []
    for fn in fns[:len(names) - len(peer_names)]:
        fn()
        torch.cuda.synchronize()
        errs.append(check())
    errs += [0.0] * len(peer_names)
    if args.profile:
        profile_calls(timer, fns)
        return
    meds = medians(timer, fns, args.reps, args.rounds)
    base = meds[0]
    for name, us, e in zip(names, meds, errs):
        print(f"{label:22s} {name:34s} {us:8.2f} us  {us / base:6.3f} of landed  rel_l2 {e:.1e}", flush=True)
    best = min(range(len(meds)), key=lambda i: meds[i])
    print(f"{label:22s} fastest: {names[best]}", flush=True)


def pipeline(label, names, calls):
    """calls[i]: implementation i's K calls (each returns its output). Times, as one region after the flush, the K
    calls back to back (per-call mean) and the first call followed by a consumer of its output (y * 2)."""
    chain = [lambda *_, cs=cs: [c() for c in cs] for cs in calls]
    pair = [lambda *_, cs=cs: cs[0]().mul(2.0) for cs in calls]
    K = len(calls[0])
    m_chain = medians(timer, chain, max(10, args.reps // 2), args.rounds)
    m_pair = medians(timer, pair, args.reps, args.rounds)
    for name, c, p in zip(names, m_chain, m_pair):
        print(f"{label:22s} {name:34s} chain of {K}: {c / K:8.2f} us a call ({c / K / (m_chain[0] / K):6.3f})   "
              f"with a consumer: {p:8.2f} us ({p / m_pair[0]:6.3f})", flush=True)
    # what the op leaves in the L2 costs the kernels after it: each timed alone, after the flush and one call of
    # the op (untimed): its output read (y * 2), an unrelated gemm ([rows, 4096] x [4096, 4096]; L2 reuse of its
    # tiles), an unrelated streaming read (z * 2)
    rows = calls[0][0]().shape[0]
    z = torch.randn(rows, 4096, device=dev, dtype=dt, generator=g)
    wm = torch.randn(4096, 4096, device=dev, dtype=dt, generator=g)
    after = {"y * 2": lambda y: y.mul(2.0), "gemm": lambda y: torch.mm(z, wm), "z * 2": lambda y: z.mul(2.0)}
    res = {k: [[] for _ in calls] for k in after}
    for r in range(args.reps * args.rounds // 2):
        for i0 in range(len(calls)):
            i = (i0 + r) % len(calls)
            for k, fn in after.items():
                timer.flush()
                y = calls[i][0]()
                s_, e_ = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s_.record()
                fn(y)
                e_.record()
                e_.synchronize()
                res[k][i].append(s_.elapsed_time(e_) * 1e3)
    med = {k: [statistics.median(t) for t in v] for k, v in res.items()}
    for i, name in enumerate(names):
        print(f"{label:22s} {name:34s} after it: " + "   ".join(f"{k} {med[k][i]:8.2f} us ({med[k][i] / med[k][0]:6.3f})" for k in after), flush=True)


peer_names = [p for p in args.peers.split(",") if p]
g = torch.Generator(device=dev).manual_seed(0)
for op in args.ops.split(","):
    if op in ("add_rms_norm", "rms_norm"):
        op_id = 0 if op == "add_rms_norm" else 1
        for rows in [int(r) for r in args.norm_rows.split(",")]:
            n = 4096
            a = torch.randn(rows, n, device=dev, dtype=dt, generator=g)
            b = torch.randn(rows, n, device=dev, dtype=dt, generator=g)
            w = torch.randn(n, device=dev, dtype=dt, generator=g)
            y, res = torch.empty_like(a), torch.empty_like(a)
            if op_id == 0:
                want_y, want_r = add_rms_ref(a, b, w)
            else:
                want_y, want_r = rms_ref(a, w), None
            names, fns = [], []
            for v, name in variants(op_id):
                names.append(f"{v}: {name}")
                fns.append(launcher(lib.ng_norm, op_id, v, y, res, a, b, w, rows, n))

            def check():
                e = err(y, want_y)
                return max(e, err(res, want_r)) if want_r is not None else e
            for p in peer_names:
                names.append(p)
                if p == "triton":
                    fns.append((lambda *_: tk.add_rms_norm(a, b, w)) if op_id == 0 else (lambda *_: tk.rms_norm(a, w)))
                else:
                    c = torch.compile(add_rms_ref if op_id == 0 else rms_ref, dynamic=False)
                    fns.append((lambda *_, c=c: c(a, b, w)) if op_id == 0 else (lambda *_, c=c: c(a, w)))
            run_row(f"{op} {rows}x{n}", names, fns, check)
            if args.pipeline:
                K = args.pipeline
                sets = [[torch.randn(rows, n, device=dev, dtype=dt, generator=g) for _ in range(2)] + [w] for _ in range(K)]
                outs = [(torch.empty_like(a), torch.empty_like(a)) for _ in range(K)]
                calls = []  # per implementation: K calls, one per buffer set, each returning its y
                for v, name in variants(op_id):
                    ls = [launcher(lib.ng_norm, op_id, v, outs[k][0], outs[k][1], sets[k][0], sets[k][1], w, rows, n) for k in range(K)]
                    calls.append([(lambda l=l, k=k: (l(), outs[k][0])[1]) for k, l in enumerate(ls)])
                for p in peer_names:
                    f = (lambda x, b2, w2: tk.add_rms_norm(x, b2, w2)[0]) if p == "triton" else (lambda x, b2, w2, c=torch.compile(add_rms_ref if op_id == 0 else rms_ref, dynamic=False): c(x, b2, w2)[0])
                    if op_id == 1:
                        f = (lambda x, b2, w2: tk.rms_norm(x, w2)) if p == "triton" else (lambda x, b2, w2, c=torch.compile(rms_ref, dynamic=False): c(x, w2))
                    calls.append([(lambda k=k, f=f: f(*sets[k])) for k in range(K)])
                pipeline(f"{op} {rows}x{n}", names, calls)
                del sets, outs
            del a, b, y, res
    elif op == "silu_and_mul":
        for rows in [int(r) for r in args.gate_rows.split(",")]:
            d = 11008
            x = torch.randn(rows, 2 * d, device=dev, dtype=dt, generator=g)
            y = torch.empty(rows, d, device=dev, dtype=dt)
            want = gate_ref(x)
            names, fns = [], []
            for v, name in variants(2):
                names.append(f"{v}: {name}")
                fns.append(launcher(lib.ng_gate, v, y, x, rows, d))
            for p in peer_names:
                names.append(p)
                if p == "triton":
                    fns.append(lambda *_: tk.silu_and_mul(x))
                else:
                    c = torch.compile(gate_ref, dynamic=False)
                    fns.append(lambda *_, c=c: c(x))
            run_row(f"{op} {rows}x{d}", names, fns, lambda: err(y, want))
            if args.pipeline:
                K = args.pipeline
                xs = [torch.randn(rows, 2 * d, device=dev, dtype=dt, generator=g) for _ in range(K)]
                ys = [torch.empty(rows, d, device=dev, dtype=dt) for _ in range(K)]
                calls = []
                for v, name in variants(2):
                    ls = [launcher(lib.ng_gate, v, ys[k], xs[k], rows, d) for k in range(K)]
                    calls.append([(lambda l=l, k=k: (l(), ys[k])[1]) for k, l in enumerate(ls)])
                for p in peer_names:
                    f = tk.silu_and_mul if p == "triton" else torch.compile(gate_ref, dynamic=False)
                    calls.append([(lambda k=k, f=f: f(xs[k])) for k in range(K)])
                pipeline(f"{op} {rows}x{d}", names, calls)
                del xs, ys
            del x, y
print(f"late calls re-timed: {timer.late}; widest busy window {timer.busy_max_cycles / 2000:.0f} us")
