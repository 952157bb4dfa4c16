// Schema.cpp: the schema of every torch.ops.infini operator, in one table (docs/ops.md).
// Implementations: Ops.cpp (CPU and infini tensors); fake/meta and autograd: infinicore_torch/ops.
#include <torch/library.h>

TORCH_LIBRARY(infini, m) {
    m.def("add(Tensor a, Tensor b) -> Tensor");
    m.def("add.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("mul(Tensor a, Tensor b) -> Tensor");
    m.def("mul.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("silu(Tensor x) -> Tensor");
    m.def("silu.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("relu(Tensor x) -> Tensor");
    m.def("relu.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("gelu(Tensor x, str approximate=\"none\") -> Tensor");
    m.def("gelu.out(Tensor x, str approximate=\"none\", *, Tensor(a!) out) -> Tensor(a!)");
    m.def("swiglu(Tensor a, Tensor b) -> Tensor");
    m.def("swiglu.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("silu_and_mul(Tensor x) -> Tensor");
    m.def("silu_and_mul.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("rms_norm(Tensor x, Tensor weight, float eps=1e-6) -> Tensor");
    m.def("rms_norm.out(Tensor x, Tensor weight, float eps=1e-6, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("add_rms_norm(Tensor a, Tensor b, Tensor weight, float eps=1e-6) -> (Tensor y, Tensor residual)");
    m.def(
        "add_rms_norm.out(Tensor a, Tensor b, Tensor weight, float eps=1e-6, *, Tensor(a!) out, "
        "Tensor(b!) residual_out) -> (Tensor(a!) y, Tensor(b!) residual)");
    m.def("layer_norm(Tensor x, Tensor weight, Tensor? bias=None, float eps=1e-5) -> Tensor");
    m.def(
        "layer_norm.out(Tensor x, Tensor weight, Tensor? bias=None, float eps=1e-5, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("softmax(Tensor x, int dim=-1) -> Tensor");
    m.def("softmax.out(Tensor x, int dim=-1, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("causal_softmax(Tensor x) -> Tensor");
    m.def("causal_softmax.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("embedding(Tensor indices, Tensor weight) -> Tensor");
    m.def("embedding.out(Tensor indices, Tensor weight, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("rope(Tensor x, Tensor pos_ids, Tensor sin_table, Tensor cos_table, str algo=\"gpt_neox\") -> Tensor");
    m.def(
        "rope.out(Tensor x, Tensor pos_ids, Tensor sin_table, Tensor cos_table, str algo=\"gpt_neox\", *, "
        "Tensor(a!) out) -> Tensor(a!)");
    m.def("topk_softmax(Tensor logits, int k, bool renormalize=False) -> (Tensor weights, Tensor indices)");
    m.def(
        "topk_softmax.out(Tensor logits, int k, bool renormalize=False, *, Tensor(a!) weights, "
        "Tensor(b!) indices) -> (Tensor(a!) weights, Tensor(b!) indices)");
    m.def("random_sample(Tensor logits, float random_val, float topp, int topk, float temperature) -> Tensor");
    m.def("random_sample.tensor(Tensor logits, Tensor random_val, float topp, int topk, float temperature) -> Tensor");
    m.def(
        "random_sample.out(Tensor logits, float random_val, float topp, int topk, float temperature, *, "
        "Tensor(a!) out) -> Tensor(a!)");
    m.def("gemm(Tensor a, Tensor b, Tensor? c=None, float alpha=1.0, float beta=0.0) -> Tensor");
    m.def(
        "gemm.out(Tensor a, Tensor b, Tensor? c=None, float alpha=1.0, float beta=0.0, *, Tensor(a!) out) -> "
        "Tensor(a!)");
    m.def("linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor");
    m.def("linear.out(Tensor x, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("attention(Tensor q, Tensor k, Tensor v, Tensor(a!) k_cache, Tensor(b!) v_cache, int pos) -> Tensor");
    m.def(
        "attention.out(Tensor q, Tensor k, Tensor v, Tensor(a!) k_cache, Tensor(b!) v_cache, int pos, *, "
        "Tensor(c!) out) -> Tensor(c!)");
    m.def(
        "paged_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, Tensor seq_lens, "
        "Tensor? alibi_slopes, float scale) -> Tensor");
    m.def(
        "paged_attention.out(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, Tensor seq_lens, "
        "Tensor? alibi_slopes, float scale, *, Tensor(a!) out) -> Tensor(a!)");
    m.def(
        "paged_attention_prefill(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, Tensor seq_lens, "
        "Tensor cu_seqlens_q, Tensor? alibi_slopes, float scale) -> Tensor");
    m.def(
        "paged_attention_prefill.out(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, "
        "Tensor seq_lens, Tensor cu_seqlens_q, Tensor? alibi_slopes, float scale, *, Tensor(a!) out) -> Tensor(a!)");
    m.def("sdpa(Tensor q, Tensor k, Tensor v, Tensor? mask, bool causal, float scale) -> Tensor");
    m.def(
        "sdpa.out(Tensor q, Tensor k, Tensor v, Tensor? mask, bool causal, float scale, *, Tensor(a!) out) -> "
        "Tensor(a!)");
    m.def("paged_caching(Tensor k, Tensor v, Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor slot_mapping) -> ()");
}
