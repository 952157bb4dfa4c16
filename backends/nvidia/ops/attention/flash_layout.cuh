// attention/flash_layout.cuh: the tiled (flash) kernel's design, its shared-memory layout, and a block's running
// state across the tiles of rows it takes.
#pragma once

#include "flash_tiles.cuh"

namespace infini::nvidia::ops::attn {

// ---- paged_attention_prefill and attention on tensor cores: a tiled (flash) kernel ----
// fp16/bf16, head_dim 64/128, no alibi, a scale >= 0, rows and bases on 16 bytes. A block is 8 warps; warp
// w takes 16 consecutive query rows of one query head: G4 heads of one kv head (4, 2 or 1, dividing the
// group) times 8 / G4 row tiles, so that every warp of the block reads the same keys. The block walks the
// keys its rows see (positions 0 .. its last row's) in tiles of 64 tokens brought into shared memory by
// cp.async, the next tile copied while the current one is computed (two stages). Each warp: S = Q K^T by
// mma.m16n8k16 for the tile's 64 keys (its queries held in registers as fragments, the reduction axis
// permuted alike in both operands as in the decode kernels, so that a key fragment is one 16-byte read),
// the causal mask on the tiles that reach its rows' positions, one online-softmax update per row and tile,
// then O += P V a 16-token step at a time with P from S's registers and the values' fragments by
// ldmatrix.trans. Rows in shared memory are padded so that the reads are conflict-free: keys D * 2 + 64
// bytes (the two rows a quarter-warp reads sit 16 banks apart), values D * 2 + 16 (the eight rows of an
// ldmatrix phase sit 4 banks apart). Blocks whose rows see the most keys are placed first.
// On Hopper (a build with sm_90a) the same blocks take their products by wgmma (WG): a warpgroup's four warps (64
// rows) multiply together, Q from registers, keys and values read by the tensor cores from shared memory under the
// 128-byte swizzle, software-pipelined (S_j issued, then P_(j-1) V_(j-1), tile j's softmax while the latter runs),
// blocks of two warpgroups, four stages, the copies two tiles ahead. Paged (WG 1): the warpgroups in lockstep, a
// __syncthreads a tile. Dense, and the prefill whose keys and values are first gathered out of the pages into the
// workspace (flashGatherKernel; see makeFlash) (WG 2): the warpgroups decoupled, each stage's copies
// tracked by a "full" mbarrier (every thread's cp.async arrives on it), its reuse by an "empty" one (every thread
// arrives once its warpgroup's products reading the stage have landed), so that the one's softmax runs under the
// other's products. The swizzle lets a copy's 16 lanes take a token's whole row (far fewer L2 tag requests than
// unswizzled 16-byte token columns); the mask is applied only where a tile reaches the rows; copy addresses and
// descriptors advance by increments. The paged copies take their rows' offsets from a table in shared memory that
// 64 threads write a tile ahead (see flashBody). The query rows come in and the output rows go out through a warp's
// buffer in shared memory (kFlashRowsBuf). The decoupled form is persistent for dense attention and one-sequence
// prefills (flashKernel, FlashRun). A prefill gathers its keys and values where that pays (flashGathers), and a
// call mixing long and short sequences is split by sequence (flashSplitKernel, flashSplitPays).
// Measured slower, and so not taken: one warpgroup a block (two blocks an SM read every tile twice from L2); the
// paged form decoupled (its offset table a warpgroup's own, or no table); the warpgroups taking turns to issue
// their products (FA3's ping-pong); the copies three tiles ahead; the paged tiles by TMA from tensor maps.
constexpr int kFlashWarps = 8, kFlashKeys = 64;

template <int D>
constexpr int kFlashKRow = D * 2 + 64;
template <int D>
constexpr int kFlashVRow = D * 2 + 16;
// WG (the wgmma form): a tile's keys, and its values, as D / 64 halves of 64 tokens x 128 bytes (head_dim
// elements 64 h .. 64 h + 63 of token t at h * kFlashHalf + 128 t), each 16-byte piece i of a row stored at
// piece i ^ (t % 8) (the 128-byte swizzle, on 1024-byte-aligned atoms of 8 tokens); a copy's consecutive
// lanes take a token's row.
constexpr int kFlashHalf = kFlashKeys * 128;
template <int D, int WG>
constexpr int kFlashStage = WG ? 2 * (D / 64) * kFlashHalf : kFlashKeys * (kFlashKRow<D> + kFlashVRow<D>);
// tiles the copies run ahead (WG: 2; 3 measured slower) and stages (WG: tiles j - 1 .. j + PF), shared memory
// (WG: 1024 more to align it; WG 2: its mbarriers)
template <int WG>
constexpr int kFlashPF = WG ? 2 : 1;
template <int WG>
constexpr int kFlashNST = WG ? kFlashPF<WG> + 2 : kFlashPF<WG> + 1;
// paged: the copies' offset table (two tiles of 64 tokens, a key and a value offset each), after the stages
constexpr int kFlashOffs = 2 * kFlashKeys * 16;
// WG: each warp's 16 query rows (cp.async'd with the first tile, then read as fragments by ldmatrix) and later its
// 16 output rows (written as fragments by stmatrix, then stored 16 bytes a lane), D * 2 bytes a row, 16-byte piece i
// of row r at i ^ (r % 8) (conflict-free for both); after the stages and kFlashOffs (the paged offsets' table, or
// WG 2's mbarriers). (Rather than 4 bytes a lane straight from and into the fragments, 8 rows an instruction,
// which holds the first tile's products up on the queries' arrival and makes the stores slow.)
template <int D>
constexpr int kFlashRowsBuf = kFlashWarps * 16 * D * 2;
template <Mode M, int D, int WG>
constexpr int kFlashSmem =
    WG ? kFlashNST<WG> * kFlashStage<D, WG> + 1024 + kFlashOffs + (WG == 2 ? 2 : 1) * kFlashRowsBuf<D>
       : kFlashNST<WG> * kFlashStage<D, WG> + (M == Mode::kPrefill ? kFlashOffs : 0);
static_assert(2 * kFlashNST<2> * 8 <= kFlashOffs, "WG 2's mbarriers fit before the rows' buffer");

// A block's running state over the tiles of rows it takes in turn (WG 2: flashKernel's blocks are persistent): the
// key tiles its earlier tiles of rows took (the stages' ring and its mbarriers' phases run on across them), how many
// of the current one's first key tiles the previous one issued, and how many tiles of rows came before (the rows'
// buffer alternates); the next tile of rows and its block of heads (has_next), whose query rows and first key tiles
// the current one issues in its last iterations. Zero-initialized: one tile of rows, nothing ahead.
struct FlashRun {
    int gbase, ahead, k;
    FlashTile next;
    int next_hb;
    bool has_next;
};

}  // namespace infini::nvidia::ops::attn
