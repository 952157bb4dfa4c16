// attention/params.cuh: what the attention units share: the kernels' parameters (AttnParams), the tiled kernel's
// plan (FlashPlan), the ops' modes, and the entry points that one unit defines and others call.
//
// The ops: attention (a dense KV cache: appends the new rows, then attends; attention.cu), paged_attention (decode,
// one query row a sequence; paged_attention.cu) and paged_attention_prefill (paged_attention_prefill.cu).
// - The general kernel (splitk.cuh) takes every dtype, head_dim and alibi, and the calls the others do not.
// - Decode (decode.cuh, decode_tc.cuh; planned by decode_plan.cu): flash-decoding kernels on CUDA cores, or on
//   tensor cores for grouped heads; attention's decode-sized calls take them too.
// - Prefill and attention with 16+ rows in fp16/bf16: a tiled tensor-core kernel (flash_*.cuh; planned by
//   flash_plan.cuh, launched by flash_launch.cuh), compiled in one unit per op and dtype
//   (flash_{prefill,dense}_{f16,bf16}.cu) so that the build compiles its instantiations in parallel.
// Everything but the ops' entry points is in namespace attn. What several units use is a template or inline in a
// header (the same in every unit) or defined in one unit and declared below; a unit's own helpers stay in it.
#pragma once

#include <algorithm>
#include <climits>

#include "../common.cuh"

namespace infini::nvidia::ops {

// A call as the kernels see it (every op's; each fills the fields its mode reads), passed by value.
struct AttnParams {
    // query and output rows: element offset of (row, head) = row * s_row + head * s_head
    long long q_row, q_head, o_row, o_head;
    long long rows, heads, kv_heads, group, d;
    float scale;
    // keys and values: dense [kv_heads, max_seq, d] (k_s0: head, k_s1: token) or paged
    // [blocks, kv_heads, block_size, d] (k_s0: block, k_s1: head, k_s2: row)
    long long k_s0, k_s1, k_s2, v_s0, v_s1, v_s2;
    long long block_size, num_blocks, bt_s0, bt_s1, max_tokens;
    bool bt64, len64, cu64;
    long long len_s0, cu_s0;
    long long pos;     // dense: where the new rows start
    long long seqs;    // paged
    long long kv_seq;  // the tiled prefill's gathered keys and values: elements between sequences
    long long alibi_s0;
    int parts, part_len, gc;  // partitions, tokens per partition, heads per pass
    int hpasses;              // decode fast path: blocks per kv head (G query heads each)
    int block_shift;          // paged: log2(block_size) for a power of two, else -1
    int self_tiles;           // tiled prefill: which tiles a block takes (kTilesList ..., flashOwnTile)
    int op;
    // the tiled kernel's rows' log-sum-exp (F32, of the scaled scores; -inf for a row with no key) at
    // row * lse_row + head * lse_head, where lse is not NULL (the sdpa family's forward)
    float *lse;
    long long lse_row, lse_head;
};

// A tiled-kernel plan (makeFlash): the call's params, the gathered form's (pg), where the gathered keys and values
// lie in the workspace, the gathered slots, the row tiles' cap, the form (0 paged, 1 gathered, 2 split), the
// grouping G4 and the rows a block.
struct FlashPlan {
    AttnParams p, pg;
    size_t g_off, g_bytes;
    long long slots, cap;
    int form, G4, rb;
};

}  // namespace infini::nvidia::ops

namespace infini::nvidia::ops::attn {

// The op a kernel instantiation serves: attention, paged_attention, paged_attention_prefill.
enum class Mode { kDense, kDecode, kPrefill };

// A dtype as a value, for generic lambdas (launch(TypeTag<__half>{}, ...)).
template <typename T>
struct TypeTag {
    using type = T;
};

// The params of paged_attention and paged_attention_prefill (q [rows, heads, d], caches [blocks, kv_heads,
// block_size, d], block_tables [seqs, pages]); the prefill adds cu_seqlens_q's.
inline AttnParams pagedParams(const Layout &out, const Layout &q, const Layout &kc, const Layout &vc, const Layout &bt,
                              const Layout &lens, const Layout &alibi, bool has_alibi, float scale, int op) {
    AttnParams p{};
    p.q_row = q.strides[0];
    p.q_head = q.strides[1];
    p.o_row = out.strides[0];
    p.o_head = out.strides[1];
    p.rows = q.shape[0];
    p.heads = q.shape[1];
    p.kv_heads = kc.shape[1];
    p.group = p.heads / p.kv_heads;
    p.d = q.shape[2];
    p.scale = scale;
    p.k_s0 = kc.strides[0];
    p.k_s1 = kc.strides[1];
    p.k_s2 = kc.strides[2];
    p.v_s0 = vc.strides[0];
    p.v_s1 = vc.strides[1];
    p.v_s2 = vc.strides[2];
    p.block_size = kc.shape[2];
    p.block_shift = p.block_size > 0 && (p.block_size & (p.block_size - 1)) == 0 ? __builtin_ctzll(p.block_size) : -1;
    p.num_blocks = kc.shape[0];
    p.bt_s0 = bt.strides[0];
    p.bt_s1 = bt.strides[1];
    p.max_tokens = static_cast<long long>(bt.shape[1] * kc.shape[2]);
    p.bt64 = bt.dtype == INFINI_DTYPE_I64;
    p.len64 = lens.dtype == INFINI_DTYPE_I64;
    p.len_s0 = lens.strides[0];
    p.seqs = bt.shape[0];
    p.alibi_s0 = has_alibi ? alibi.strides[0] : 0;
    p.op = op;
    return p;
}

// Whether every stride is a multiple of vec elements.
inline bool alignedRows(std::initializer_list<long long> strides, int vec) {
    for (long long s : strides) {
        if (s % vec != 0) return false;
    }
    return true;
}

// ---- entry points defined in one unit ----

// The decode fast path's plan, or false when the shape or dtype is not one it takes (decode_plan.cu; paged_attention
// and attention's decode-sized calls take it).
bool makeDecodeFast(AttnParams p, infiniDtype_t dtype, bool has_alibi, Made *made);

// The tiled prefill's checks of cu_seqlens_q and seq_lens and its row-tile list (paged_attention_prefill.cu; launched
// there by the general kernel's path and by flashRun).
__global__ void __launch_bounds__(256)
    flashTilesKernel(AttnParams p, const void *lens, const void *cu, int rb, int cap, int4 *tiles, DeviceError *err);

// The tiled kernel's launch for mode M and dtype TT under plan f (flash_launch.cuh), instantiated in one unit each:
// flash_prefill_f16.cu, flash_prefill_bf16.cu, flash_dense_f16.cu, flash_dense_bf16.cu.
template <Mode M, typename TT>
infiniStatus_t flashRun(const FlashPlan &f, const LaunchArgs &a);
extern template infiniStatus_t flashRun<Mode::kPrefill, __half>(const FlashPlan &f, const LaunchArgs &a);
extern template infiniStatus_t flashRun<Mode::kPrefill, __nv_bfloat16>(const FlashPlan &f, const LaunchArgs &a);
extern template infiniStatus_t flashRun<Mode::kDense, __half>(const FlashPlan &f, const LaunchArgs &a);
extern template infiniStatus_t flashRun<Mode::kDense, __nv_bfloat16>(const FlashPlan &f, const LaunchArgs &a);

}  // namespace infini::nvidia::ops::attn
