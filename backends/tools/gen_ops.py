"""Generates the per-operator C ABI from one table:
- include/infini/ops/<op>.h: the four InfiniCore calls of each op;
- include/infini/ops/list.h: the infiniopOp_t enum and INFINIOP_FOR_EACH_OP(X), the list backends expand into
  their factory declarations and tables;
- include/infini/ops/all.h: every op header;
- core/ops.cpp: the typed calls forwarded to the generic create/run/destroy of core/op_api.cpp.

    python backends/tools/gen_ops.py          # rewrite the generated files
    python backends/tools/gen_ops.py --check  # exit 1 if they differ from the table

To add an operator: a row here (appended: the enum's values are ABI), run this script, and give each backend a
make<CName> factory (docs/adding_an_op.md).
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name, C name, outputs, inputs, create-time scalars, one-line contract; order = infiniopOp_t
OPS = [
    (
        "add",
        "Add",
        ["c"],
        ["a", "b"],
        [],
        "c = a + b, elementwise; a, b and c have c's shape (broadcast with zero strides)",
    ),
    (
        "mul",
        "Mul",
        ["c"],
        ["a", "b"],
        [],
        "c = a * b, elementwise; a, b and c have c's shape (broadcast with zero strides)",
    ),
    ("silu", "Silu", ["y"], ["x"], [], "y = x * sigmoid(x)"),
    ("relu", "Relu", ["y"], ["x"], [], "y = max(x, 0)"),
    ("gelu", "Gelu", ["y"], ["x"], ["int approximate"], "y = gelu(x); approximate 0: erf form, 1: tanh form"),
    ("swiglu", "SwiGLU", ["c"], ["a", "b"], [], "c = a * silu(b) (b is the gate)"),
    ("silu_and_mul", "SiluAndMul", ["y"], ["x"], [], "y = silu(x[..., :d]) * x[..., d:], d = x's last dim / 2"),
    ("rms_norm", "RMSNorm", ["y"], ["x", "w"], ["float epsilon"], "y = x / sqrt(mean(x^2, last dim) + epsilon) * w"),
    (
        "add_rms_norm",
        "AddRMSNorm",
        ["y", "residual_out"],
        ["a", "b", "w"],
        ["float epsilon"],
        "residual_out = a + b; y = rms_norm(residual_out, w, epsilon)",
    ),
    (
        "layer_norm",
        "LayerNorm",
        ["y"],
        ["x", "w", "bias"],
        ["float epsilon"],
        "y = (x - mean) / sqrt(var + epsilon) * w + bias over the last dim (bias may be NULL)",
    ),
    ("softmax", "Softmax", ["y"], ["x"], ["int dim"], "y = softmax(x) along dim"),
    (
        "causal_softmax",
        "CausalSoftmax",
        ["y"],
        ["x"],
        [],
        "softmax over the last dim of x [..., q, kv], masking (i, j) where j > i + kv - q",
    ),
    (
        "embedding",
        "Embedding",
        ["y"],
        ["indices", "weight"],
        [],
        "y[..., :] = weight[indices[...], :] (int32 or int64 indices)",
    ),
    (
        "rope",
        "RoPE",
        ["y"],
        ["x", "pos_ids", "sin_table", "cos_table"],
        ["int algo"],
        "rotary embedding of x [..., seq, heads, head_dim]; algo 0: GPT-NeoX halves, 1: GPT-J interleaved pairs",
    ),
    (
        "topk_softmax",
        "TopkSoftmax",
        ["weights", "indices"],
        ["logits"],
        ["int k", "int renormalize"],
        "MoE routing: softmax of logits [tokens, experts] (float32 weights), top k per row (ties: lower index first), "
        "optionally renormalized; indices int64",
    ),
    (
        "random_sample",
        "RandomSample",
        ["result"],
        ["logits", "random_val"],
        ["float topp", "int topk", "float temperature"],
        "top-k/top-p sampling of logits [vocab] or [batch, vocab] with random_val (float32 [batch] or []) as in docs/ops.md; "
        "result int64",
    ),
    (
        "paged_caching",
        "PagedCaching",
        ["k_cache", "v_cache"],
        ["k", "v", "slot_mapping"],
        [],
        "writes k/v [tokens, kv_heads, d] into caches [blocks, kv_heads, block_size, d] at slot_mapping "
        "(negative slots skipped)",
    ),
    (
        "gemm",
        "Gemm",
        ["c"],
        ["a", "b", "c_in"],
        ["float alpha", "float beta"],
        "c = alpha * a @ b + beta * c_in (c_in may be NULL); 2-D, or batched 3-D",
    ),
    (
        "attention",
        "Attention",
        ["out", "k_cache", "v_cache"],
        ["q", "k", "v"],
        ["int pos"],
        "writes k, v [kv_heads, seq, d] into the caches [kv_heads, max_seq, d] at pos, then causal attention of q "
        "[heads, seq, d] over cache rows [0, pos + seq) with scale 1/sqrt(d), grouped-query when heads > kv_heads",
    ),
    (
        "paged_attention",
        "PagedAttention",
        ["out"],
        ["q", "k_cache", "v_cache", "block_tables", "seq_lens", "alibi_slopes"],
        ["float scale"],
        "decode attention: q [seqs, heads, d] over each sequence's first seq_lens[s] cached tokens (caches "
        "[blocks, kv_heads, block_size, d], block_tables [seqs, max_blocks]); alibi_slopes may be NULL",
    ),
    (
        "paged_attention_prefill",
        "PagedAttentionPrefill",
        ["out"],
        ["q", "k_cache", "v_cache", "block_tables", "seq_lens", "cu_seqlens_q", "alibi_slopes"],
        ["float scale"],
        "prefill attention: sequence s owns q rows cu_seqlens_q[s]..cu_seqlens_q[s+1]; its j-th row sits at position "
        "seq_lens[s] - q_len + j and attends causally to the cache",
    ),
]


def header(name, camel, outs, ins, extra, doc):
    guard = f"INFINI_OPS_{name.upper()}_H_"
    t = f"infiniop{camel}Descriptor_t"
    create = ",\n    ".join(
        ["infiniopHandle_t handle", f"{t} *desc_ptr"]
        + [f"infiniopTensorDescriptor_t {o}_desc" for o in outs + ins]
        + extra
    )
    run = ",\n    ".join(
        [f"{t} desc", "void *workspace", "size_t workspace_size"]
        + [f"void *{o}" for o in outs]
        + [f"const void *{i}" for i in ins]
        + ["infinirtStream_t stream"]
    )
    return f"""/* {name}: {doc}. (generated by backends/tools/gen_ops.py) */
#ifndef {guard}
#define {guard}

#include "../infiniop.h"

typedef struct InfiniopDescriptor *{t};

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreate{camel}Descriptor(
    {create});
/* Bytes of workspace infiniop{camel} needs. */
INFINI_API infiniStatus_t infiniopGet{camel}WorkspaceSize({t} desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniop{camel}(
    {run});
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroy{camel}Descriptor({t} desc);

#endif /* {guard} */
"""


def forwarding(name, camel, outs, ins, extra, doc):
    t = f"infiniop{camel}Descriptor_t"
    enum = "INFINIOP_OP_" + name.upper()
    create = ", ".join(
        ["infiniopHandle_t handle", f"{t} *desc_ptr"]
        + [f"infiniopTensorDescriptor_t {o}_desc" for o in outs + ins]
        + extra
    )
    run = ", ".join(
        [f"{t} desc", "void *workspace", "size_t workspace_size"]
        + [f"void *{o}" for o in outs]
        + [f"const void *{i}" for i in ins]
        + ["infinirtStream_t stream"]
    )
    tensors = ", ".join(f"{o}_desc" for o in outs + ins)
    floats = ", ".join(e.split()[1] for e in extra if e.startswith("float"))
    ints = ", ".join(e.split()[1] for e in extra if e.startswith("int"))
    return f"""INFINI_API infiniStatus_t infiniopCreate{camel}Descriptor({create}) {{
    return infini::core::createOp("infiniopCreate{camel}Descriptor", {enum}, handle, desc_ptr, {{{tensors}}}, {{{floats}}}, {{{ints}}});
}}
INFINI_API infiniStatus_t infiniopGet{camel}WorkspaceSize({t} desc, size_t *size) {{
    return infini::core::opWorkspaceSize("infiniopGet{camel}WorkspaceSize", {enum}, desc, size);
}}
INFINI_API infiniStatus_t infiniop{camel}({run}) {{
    return infini::core::runOp("infiniop{camel}", {enum}, desc, workspace, workspace_size, {{{", ".join(outs + ins)}}}, stream);
}}
INFINI_API infiniStatus_t infiniopDestroy{camel}Descriptor({t} desc) {{
    return infini::core::destroyOp("infiniopDestroy{camel}Descriptor", {enum}, desc);
}}
"""


def op_list() -> str:
    enum = "\n".join(f"    INFINIOP_OP_{op[0].upper()}{' = 0' if k == 0 else ''}," for k, op in enumerate(OPS))
    each = " \\\n".join(f"    X({op[0].upper()}, {op[1]})" for op in OPS)
    return f"""/* list.h: every operator of infiniop, in ABI order. Generated by backends/tools/gen_ops.py: edit its table. */
#ifndef INFINI_OPS_LIST_H_
#define INFINI_OPS_LIST_H_

typedef enum {{
{enum}
    INFINIOP_OP_COUNT
}} infiniopOp_t;

/* X(ENUM_SUFFIX, CName) once per operator, in enum order: backends expand it into make<CName> declarations and
 * their factory tables, so a new row of the table reaches every backend's dispatch. */
#define INFINIOP_FOR_EACH_OP(X) \\
{each}

#endif /* INFINI_OPS_LIST_H_ */
"""


def op_includes() -> str:
    inc = "\n".join(f'#include "{op[0]}.h"' for op in OPS)
    return f"""/* all.h: every operator's header. Generated by backends/tools/gen_ops.py: edit its table. */
#ifndef INFINI_OPS_ALL_H_
#define INFINI_OPS_ALL_H_

{inc}

#endif /* INFINI_OPS_ALL_H_ */
"""


def generated() -> dict[str, str]:
    files = {os.path.join(ROOT, "include", "infini", "ops", f"{op[0]}.h"): header(*op) for op in OPS}
    files[os.path.join(ROOT, "include", "infini", "ops", "list.h")] = op_list()
    files[os.path.join(ROOT, "include", "infini", "ops", "all.h")] = op_includes()
    files[os.path.join(ROOT, "core", "ops.cpp")] = (
        "// ops.cpp: the typed operator entry points of the C ABI, each forwarded to the generic create/run/\n"
        "// destroy of op_api.cpp. Generated by backends/tools/gen_ops.py from its table: edit that, not this.\n"
        '#include "op_api.h"\n\n' + "\n".join(forwarding(*op) for op in OPS)
    )
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report files that differ instead of writing them")
    args = ap.parse_args()
    stale = []
    for path, text in generated().items():
        current = open(path).read() if os.path.exists(path) else None
        if current != text:
            stale.append(path)
            if not args.check:
                with open(path, "w") as f:
                    f.write(text)
    if args.check and stale:
        print("out of date (run backends/tools/gen_ops.py):\n  " + "\n  ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
