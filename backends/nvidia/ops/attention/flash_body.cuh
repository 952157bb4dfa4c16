// attention/flash_body.cuh: the tiled kernel's work for one tile of rows (flashBody): its copies, products, online
// softmax and output, as one function whose stages (lambdas) share its locals: the copies' addresses, the
// fragments in flight and the accumulators. Kept whole: taking a stage out into a function of its own changes how
// the compiler schedules and allocates the registers of the whole kernel. The design: flash_layout.cuh.
#pragma once

#include "flash_primitives.cuh"
#include "mma.cuh"
#include "wgmma.cuh"

namespace infini::nvidia::ops::attn {

// The tiled kernel's work for one tile of rows (tl) and one block of heads (hb): flashKernel's, and that of
// flashSplitKernel's two forms.
template <Mode M, typename T, int D, int G4, int WG>
__device__ __forceinline__ void flashBody(const AttnParams &p, T *out, const T *q, const T *kc, const T *vc,
                                          const void *bt, DeviceError *err, const FlashTile tl, int hb, FlashRun &run) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int W = kFlashWarps, KP = D / 32, NT = D / 8, CPR = D / 8, KR = kFlashKRow<D>, VR = kFlashVRow<D>;
    constexpr int NI = kFlashKeys * CPR / (W * 32);  // 16-byte pieces a thread copies a tile (each of keys, values)
    constexpr int NS = kFlashKeys / 16;              // 16-token steps a tile
    constexpr float kLog2e = 1.4426950408889634f;
    constexpr int KT = WG ? (D / 64) * kFlashHalf : kFlashKeys * KR, VT = WG ? KT : kFlashKeys * VR;  // bytes a stage
    constexpr int PF = kFlashPF<WG>, NST = kFlashNST<WG>;
    extern __shared__ __align__(128) unsigned char fsm[];
    // [stage][64 rows], or WG [stage][64-element half][64 tokens, swizzled] (its atoms on 1024 bytes)
    unsigned char *ks = fsm + (WG ? (1024 - (smemAddr(fsm) & 1023)) & 1023 : 0), *vs = ks + NST * KT;
    // WG 2: the stages' full and empty mbarriers, after the stages; the prefill's keys and values then come
    // gathered (flashGatherKernel: [seqs][kv_heads][tokens][d], addressed as dense attention's cache)
    constexpr bool kMB = WG == 2;
    constexpr bool kPaged = M == Mode::kPrefill && !kMB;
    const uint32_t full0 = smemAddr(vs + NST * VT), empty0 = full0 + 8 * NST;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, c = lane % 4;
    const int hpb = static_cast<int>(p.group) / G4;
    const long long kvh = hb / hpb, head = kvh * p.group + (hb % hpb) * G4 + warp % G4;
    const int wr0 = 16 * (warp / G4), wn = max(0, min(16, tl.nr - wr0));  // the warp's rows in the tile
    const int key_end = tl.qpos0 >= 0 ? tl.qpos0 + tl.nr : 0, ntiles = (key_end + kFlashKeys - 1) / kFlashKeys;
    // Paged: the copies read their rows' offsets from a table in shared memory (two tiles' worth, alternating),
    // written by threads 0..63 a token each (block * s0 + row within the block * s2 for keys and values; -1 past
    // key_end or for a bad block, which the thread reports) from the block-table entry it read a tile before;
    // each table is written after a barrier that follows the last copy reading its buffer, and read after a
    // barrier that follows its writing. (With the entries read and the 64-bit addresses made by every copying
    // thread instead, the copies' address work cost the paged form much of its speed.)
    const long long bt_row = static_cast<long long>(tl.seq) * p.bt_s0;
    const int tid = static_cast<int>(threadIdx.x);
    const int ch = tid % CPR, row0 = tid / CPR;
    constexpr int RS = W * 32 / CPR;                                 // rows between a thread's pieces
    longlong2 *offs = reinterpret_cast<longlong2 *>(vs + NST * VT);  // (paged only: kFlashSmem reserves it there)
    long long blk_next = -1;
    auto loadId = [&](int j) {  // the block-table entry of token j * 64 + tid (threads 0..63)
        if constexpr (kPaged) {
            const int t = j * kFlashKeys + tid;
            if (tid < kFlashKeys && t < key_end) {
                const long long pg = pageOf(p, t);
                blk_next = readIndex(bt, p.bt64, bt_row + pg * p.bt_s1);
            }
        }
    };
    auto writeOffs = [&](int j) {  // tile j's table from loadId(j)'s entry
        if constexpr (kPaged) {
            const int t = j * kFlashKeys + tid;
            if (tid < kFlashKeys) {
                long long ko = -1, vo = -1;
                if (t < key_end) {
                    if (blk_next < 0 || blk_next >= p.num_blocks) {
                        reportError(err, kErrIndex, p.op, kArgBlockTables, blk_next, p.num_blocks);
                    } else {
                        const long long within = rowInPage(p, t);
                        ko = blk_next * p.k_s0 + within * p.k_s2;
                        vo = blk_next * p.v_s0 + within * p.v_s2;
                    }
                }
                offs[(j & 1) * kFlashKeys + tid] = make_longlong2(ko, vo);
            }
        }
    };
    // tile j's keys and values of tokens [64 j, 64 j + 64) into stage st; past key_end or a bad block: zeros.
    // The thread's pieces: rows row0 + RS i, 16 bytes at element 8 ch (dense: its first piece's addresses in
    // tile 0, stepped by pointer increments; paged: its head's and piece's part, plus the row's offsets)
    const long long sq = M == Mode::kPrefill ? tl.seq * p.kv_seq : 0;  // (gathered prefill: the sequence's part)
    const T *kb = !kPaged ? kc + sq + kvh * p.k_s0 + row0 * p.k_s1 + ch * 8 : kc + kvh * p.k_s1 + ch * 8;
    const T *vb = !kPaged ? vc + sq + kvh * p.v_s0 + row0 * p.v_s1 + ch * 8 : vc + kvh * p.v_s1 + ch * 8;
    const long long k_step = RS * p.k_s1, v_step = RS * p.v_s1;
    // WG 2: the next tile of rows' keys (its first nahead key tiles issued by this one), as kb / vb / key_end
    // (made where used: nothing of the next tile is live in the main loop)
    auto nextKeyEnd = [&]() { return kMB && run.has_next && run.next.qpos0 >= 0 ? run.next.qpos0 + run.next.nr : 0; };
    auto nextAhead = [&]() { return min(PF, (nextKeyEnd() + kFlashKeys - 1) / kFlashKeys); };
    auto issueFrom = [&](const T *kbase, const T *vbase, int kend, int j, int st) {
        const T *kj = kbase + static_cast<long long>(j * kFlashKeys) * p.k_s1,
                *vj = vbase + static_cast<long long>(j * kFlashKeys) * p.v_s1;
#pragma unroll
        for (int i = 0; i < NI; ++i) {
            const int row = row0 + i * RS;
            bool ok;
            const T *kp, *vp;
            if constexpr (!kPaged) {
                ok = j * kFlashKeys + row < kend;
                kp = ok ? kj : kc;
                vp = ok ? vj : vc;
                kj += k_step;
                vj += v_step;
            } else {
                const longlong2 o = offs[(j & 1) * kFlashKeys + row];
                ok = o.x >= 0;
                kp = ok ? kb + o.x : kc;
                vp = ok ? vb + o.y : vc;
            }
            if constexpr (WG != 0) {
                const int off = (ch / 8) * kFlashHalf + row * 128 + (((ch & 7) ^ (row & 7)) << 4);
                cpAsync16(smemAddr(ks + st * KT + off), kp, ok);
                cpAsync16(smemAddr(vs + st * VT + off), vp, ok);
            } else {
                cpAsync16(smemAddr(ks + (st * kFlashKeys + row) * KR + ch * 16), kp, ok);
                cpAsync16(smemAddr(vs + (st * kFlashKeys + row) * VR + ch * 16), vp, ok);
            }
        }
    };
    auto issue = [&](int j, int st) { issueFrom(kb, vb, key_end, j, st); };
    // WG: the warp's query rows into its part of the rows' buffer, with (before) the first tile's copies: in its
    // cp.async group (WG 1), under its full mbarrier (WG 2); zeros past the warp's rows
    unsigned char *rbufs = vs + NST * VT + kFlashOffs + warp * (16 * D * 2),
                  *rbuf = rbufs + (run.k & 1) * kFlashRowsBuf<D>;
    constexpr int RPP = 32 / CPR;  // rows a pass of the warp over a buffer of 16 rows
    // (WG 2: a tile of rows' query rows are issued with its first key tile, by the tile before it where that
    // issued it: the next one's into the other buffer)
    auto issueQ = [&](const FlashTile &t, long long hd, unsigned char *buf) {
        const int n = max(0, min(16, t.nr - wr0));
        const T *qr = q + static_cast<long long>(t.r0 + wr0) * p.q_row + hd * p.q_head + (lane % CPR) * 8;
#pragma unroll
        for (int i = 0; i < 16 / RPP; ++i) {
            const int r = lane / CPR + RPP * i;
            cpAsync16(smemAddr(buf + r * (D * 2) + (((lane % CPR) ^ (r & 7)) << 4)), r < n ? qr + r * p.q_row : q,
                      r < n);
        }
    };
    if (WG != 0 && run.ahead == 0 && ntiles > 0) issueQ(tl, head, rbuf);
    // WG 2: a stage's reuse waits for its last tile's release (global key tile X: the ring's X - NST)
    auto waitEmpty = [&](int X) {
        if (X >= NST) {
            mbarWait(empty0 + 8 * (X % NST), (X / NST - 1) & 1);
            fenceProxyAsync();  // (the tensor cores' reads, then these writes)
        }
    };
    // WG 2, the main loop's: key tile x < ntiles of this tile of rows
    auto issueOwn = [&](int x) {
        const int X = run.gbase + x;
        waitEmpty(X);
        issue(x, X % NST);
        cpAsyncArrive(full0 + 8 * (X % NST));
    };
    // WG 2: key tile x of the ring from this tile of rows (x - ntiles of the next where past its tiles)
    auto issueRing = [&](int x) {
        const int X = run.gbase + x;
        if (x < ntiles) {
            issueOwn(x);
        } else if (x - ntiles < nextAhead()) {
            const FlashTile &nx = run.next;
            const long long nkvh = run.next_hb / hpb, nsq = M == Mode::kPrefill ? nx.seq * p.kv_seq : 0;
            waitEmpty(X);
            if (x == ntiles) {
                issueQ(nx, nkvh * p.group + (run.next_hb % hpb) * G4 + warp % G4,
                       rbufs + ((run.k + 1) & 1) * kFlashRowsBuf<D>);
            }
            issueFrom(kc + nsq + nkvh * p.k_s0 + row0 * p.k_s1 + ch * 8,
                      vc + nsq + nkvh * p.v_s0 + row0 * p.v_s1 + ch * 8, nextKeyEnd(), x - ntiles, X % NST);
            cpAsyncArrive(full0 + 8 * (X % NST));
        }
    };
    // the first PF tiles' copies (paged: each after its table and a barrier; the table of tile PF written, and
    // a barrier, before the loop, whose first iteration may copy it before any barrier of its own)
    if constexpr (kMB) {  // (each phase: one arrival by every thread; once a block)
        if (run.k == 0) {
            if (tid == 0) {
                for (int i = 0; i < NST; ++i) {
                    mbarInitCount<W * 32>(full0 + 8 * i);
                    mbarInitCount<W * 32>(empty0 + 8 * i);
                }
                mbarInitFence();
            }
            __syncthreads();
        }
    }
    if (kPaged) loadId(0);
#pragma unroll
    for (int t = 0; t < PF; ++t) {
        if (kPaged) {
            if (ntiles > t) writeOffs(t);
            __syncthreads();
        }
        if constexpr (kMB) {
            if (t >= run.ahead) issueRing(t);
        } else {
            if (ntiles > t) issue(t, t);
            cpAsyncCommit();
        }
        if (kPaged && ntiles > t + 1) loadId(t + 1);
    }
    if (kPaged) {
        if (ntiles > PF) writeOffs(PF);
        if (ntiles > PF + 1) loadId(PF + 1);
        __syncthreads();
    }
    // the warp's query fragments (rows g and g + 8; pieces at d = 32 jj + 8 c), zeros past its rows; WG: as
    // stored, qf[k-step][rows g, g + 8 at d = 16 ks + 2 c; the same at d + 8]
    uint4 qa[KP], qb[KP];
    uint32_t qf[D / 16][4];  // (WG: read from the rows' buffer once the first tile is in)
    if constexpr (WG == 0) {
        const T *qr = q + static_cast<long long>(tl.r0 + wr0) * p.q_row + head * p.q_head + 8 * c;
#pragma unroll
        for (int jj = 0; jj < KP; ++jj) {
            qa[jj] = g < wn ? *reinterpret_cast<const uint4 *>(qr + g * p.q_row + 32 * jj) : make_uint4(0, 0, 0, 0);
            qb[jj] = g + 8 < wn ? *reinterpret_cast<const uint4 *>(qr + (g + 8) * p.q_row + 32 * jj)
                                : make_uint4(0, 0, 0, 0);
        }
    }
    const int pa = tl.qpos0 + wr0 + g, pb = pa + 8;           // positions of the lane's rows
    const int wfirst = tl.qpos0 + wr0;                        // the warp's first row's position
    const int wlast = wn > 0 ? tl.qpos0 + wr0 + wn - 1 : -1;  // and its last's
    const float sl2 = p.scale * kLog2e;
    float acc[NT][4];
#pragma unroll
    for (int i = 0; i < NT; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
    float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.0f, l1 = 0.0f;
    // The causal mask where the tile at kb0 reaches the warp's rows (token t seen by the row at position r
    // when t <= r), the rows' maxima (scores as computed: the scale, >= 0, is applied in the exponent) and
    // the online-softmax step: al (the factors for the accumulators), b (the exponents' offsets).
    // (MASK false: the caller knows that every row of the block sees every key of the tile)
    auto softmaxStep = [&](float (&sc)[NS][2][4], int kb0, float &al0, float &al1, float &b0, float &b1, auto mask) {
        const bool diag = decltype(mask)::value && kb0 + kFlashKeys - 1 > wfirst;
        float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
        for (int st = 0; st < NS; ++st) {
#pragma unroll
            for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    if (diag) {
                        const int t = kb0 + st * 16 + tile * 8 + 2 * c + e;
                        sc[st][tile][e] = t <= pa ? sc[st][tile][e] : -INFINITY;
                        sc[st][tile][2 + e] = t <= pb ? sc[st][tile][2 + e] : -INFINITY;
                    }
                    mx0 = fmaxf(mx0, sc[st][tile][e]);
                    mx1 = fmaxf(mx1, sc[st][tile][2 + e]);
                }
            }
        }
        mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
        mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
        mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
        mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
        const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
        al0 = n0 == -INFINITY ? 1.0f : fastExp2((m0 - n0) * sl2);
        al1 = n1 == -INFINITY ? 1.0f : fastExp2((m1 - n1) * sl2);
        // p = 2^(s sl2 - n sl2): one fused multiply-add a score (exp2(-inf) = 0 for masked ones)
        b0 = n0 == -INFINITY ? 0.0f : n0 * sl2;
        b1 = n1 == -INFINITY ? 0.0f : n1 * sl2;
        m0 = n0;
        m1 = n1;
        l0 *= al0;
        l1 *= al1;
    };
    // (WG: always; accumulators written in a branch make the compiler serialize the wgmma)
    auto rescale = [&](float al0, float al1) {
        if (WG || __any_sync(0xffffffffu, al0 != 1.0f || al1 != 1.0f)) {  // (no row's maximum grew: nothing to rescale)
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
                acc[nt][0] *= al0;
                acc[nt][1] *= al0;
                acc[nt][2] *= al1;
                acc[nt][3] *= al1;
            }
        }
    };
    // step st's probabilities as A fragments (tokens 16 st + 2 c, + 1 and + 8, + 9 of rows g, g + 8), added to l
    auto probs = [&](const float (&sc)[NS][2][4], int st, float b0, float b1, uint32_t (&a)[4]) {
        float pr[2][4];
#pragma unroll
        for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                pr[tile][e] = fastExp2(fmaf(sc[st][tile][e], sl2, -b0));
                pr[tile][2 + e] = fastExp2(fmaf(sc[st][tile][2 + e], sl2, -b1));
            }
        }
        l0 += pr[0][0] + pr[0][1] + pr[1][0] + pr[1][1];
        l1 += pr[0][2] + pr[0][3] + pr[1][2] + pr[1][3];
        a[0] = packPair<T>(pr[0][0], pr[0][1]);
        a[1] = packPair<T>(pr[0][2], pr[0][3]);
        a[2] = packPair<T>(pr[1][0], pr[1][1]);
        a[3] = packPair<T>(pr[1][2], pr[1][3]);
    };
    // the next tile's copies (into the stage read NST - 1 tiles ago) and the wait for tile j's; WG: the wait
    // first, then the copies of tile j + PF (so that the one barrier a tile also covers the stage they
    // overwrite, whose values were last read by iteration j - 1's wgmma); WG 2: the wait for tile j by its
    // full mbarrier, the copies of tile x = j + PF once every thread has released the stage's last tile
    // (x - NST, released in iteration x - NST + 1 = j - 1: a warpgroup runs at most an iteration ahead)
    // (TAIL false: j + PF < ntiles, the main loop's; true: any j, the next tile of rows' copies past this one's)
    auto nextTile = [&](int j, auto tail) {
        if constexpr (kMB) {
            const int J = run.gbase + j;
            mbarWait(full0 + 8 * (J % NST), (J / NST) & 1);  // tile j is in
            fenceProxyAsync();                               // (the tensor cores read it next)
            if constexpr (decltype(tail)::value)
                issueRing(j + PF);
            else
                issueOwn(j + PF);
        } else if constexpr (WG != 0) {
            cpAsyncWait<PF - 1>();  // tile j is in (later ones may not be)
            fenceProxyAsync();      // (the tensor cores read it next)
            __syncthreads();
            if (j + PF < ntiles) issue(j + PF, (j + PF) % NST);
            cpAsyncCommit();
            if (j + PF + 1 < ntiles) writeOffs(j + PF + 1);
            if (j + PF + 2 < ntiles) loadId(j + PF + 2);
        } else {
            if (j + 1 < ntiles) issue(j + 1, (j + 1) % NST);
            cpAsyncCommit();
            if (j + 2 < ntiles) writeOffs(j + 2);
            if (j + 3 < ntiles) loadId(j + 3);
            cpAsyncWait<1>();  // tile j is in
            __syncthreads();
        }
    };
    if constexpr (WG != 0) {
        // wgmma, software-pipelined: in iteration j the warpgroup issues S_j = Q K_j^T, then O += P_(j-1) V_(j-1),
        // and runs tile j's softmax while the latter is on the tensor cores; O is rescaled once it lands.
        // Stages: V_(j-1), K_j / V_j and the copies of tiles j + 1 .. j + PF. Every warpgroup takes every
        // tile of the block (masked where past its rows): a wgmma in a branch is serialized by the compiler
        // (so is one whose descriptor or accumulators were written in a branch within its pipeline, which costs
        // the form its gain over mma.sync).
        float (&accf)[NT * 4] = reinterpret_cast<float (&)[NT * 4]>(acc);
        uint32_t pf[NS][4];  // the pending P's fragments
        // the descriptors of tile j's keys (a k-step each) and values (16 tokens each), all made before the first
        // wgmma and kept until the last lands
        uint64_t dk[D / 16], dv[NS];
        auto descs = [&](int jk, int jv) {
            const uint32_t kt = smemAddr(ks + ((run.gbase + jk) % NST) * KT),
                           vt = smemAddr(vs + ((run.gbase + jv) % NST) * VT);
            // (an offset added to the start address field: shared addresses stay under its 256 KiB)
            const uint64_t kd = wgmmaDesc(kt, 16, 1024), vd = wgmmaDesc(vt, kFlashHalf, 1024);
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) {
                dk[kk] = kd + ((kk / 4 * kFlashHalf + kk % 4 * 32) >> 4);  // (k-step kk: 32 bytes into a row)
                wgmmaHold(dk[kk]);
            }
#pragma unroll
            for (int st = 0; st < NS; ++st) {
                dv[st] = vd + ((st * 16 * 128) >> 4);
                wgmmaHold(dv[st]);
            }
        };
        auto issueS = [&](float (&scf)[NS * 8]) {  // the warpgroup's 64 x 64 scores, 16 of head_dim a wgmma
            wgmmaN<T, 0, true, 64>(scf, qf[0], dk[0]);
#pragma unroll
            for (int kk = 1; kk < D / 16; ++kk) wgmmaN<T, 0, false, 64>(scf, qf[kk], dk[kk]);
            wgmmaCommit();
        };
        auto issuePV = [&]() {  // O += P V, 16 tokens a wgmma (the values' tile N-major: head_dim contiguous)
#pragma unroll
            for (int st = 0; st < NS; ++st) wgmmaN<T, 1, false, D>(accf, pf[st], dv[st]);
            wgmmaCommit();
        };
        auto landPV = [&]() {
            wgmmaWait<0>();
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) wgmmaHold(dk[kk]);
#pragma unroll
            for (int st = 0; st < NS; ++st) wgmmaHold(dv[st]);
#pragma unroll
            for (int i = 0; i < NT * 4; ++i) wgmmaHold(accf[i]);
#pragma unroll
            for (int st = 0; st < NS; ++st) {
#pragma unroll
                for (int i = 0; i < 4; ++i) wgmmaHold(pf[st][i]);
            }
        };
        // tile j's softmax once S_j has landed: its probabilities into pn, the accumulators' factors
        auto softmaxTile = [&](float (&sc)[NS][2][4], int j, uint32_t (&pn)[NS][4], float &al0, float &al1, auto mask) {
            float (&scf)[NS * 8] = reinterpret_cast<float (&)[NS * 8]>(sc);
#pragma unroll
            for (int i = 0; i < NS * 8; ++i) wgmmaHold(scf[i]);
            float b0, b1;
            softmaxStep(sc, j * kFlashKeys, al0, al1, b0, b1, mask);
#pragma unroll
            for (int st = 0; st < NS; ++st) probs(sc, st, b0, b1, pn[st]);
        };
        if (ntiles > 0) {
            nextTile(0, std::true_type{});  // (the query rows are in too)
            {
                // qf[k-step kk]: matrices (rows 0-7, 8-15) x (elements 16 kk .. + 7, + 8 .. + 15)
                const int mat = lane >> 3, r = (lane & 7) + 8 * (mat & 1);
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk) {
                    ldMatrix4(qf[kk], smemAddr(rbuf + r * (D * 2) + (((2 * kk + (mat >> 1)) ^ (r & 7)) << 4)));
                }
            }
            {
                float sc[NS][2][4], al0, al1;
                descs(0, 0);
                wgmmaFence();
                issueS(reinterpret_cast<float (&)[NS * 8]>(sc));
                wgmmaWait<0>();
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk) wgmmaHold(dk[kk]);
                softmaxTile(sc, 0, pf, al0, al1, std::true_type{});  // (the accumulators are zeros: nothing to rescale)
            }
            auto iteration = [&](int j, auto mask, auto tail) {
                nextTile(j, tail);
                float sc[NS][2][4], al0, al1;
                uint32_t pn[NS][4];
                descs(j, j - 1);
                wgmmaFence();
                issueS(reinterpret_cast<float (&)[NS * 8]>(sc));
                issuePV();
                wgmmaWait<1>();  // S_j has landed
                softmaxTile(sc, j, pn, al0, al1, mask);
                landPV();
                if constexpr (kMB)
                    mbarArrive(empty0 + 8 * ((run.gbase + j - 1) % NST));  // (done with tile j - 1's stage)
                rescale(al0, al1);
#pragma unroll
                for (int st = 0; st < NS; ++st) {
#pragma unroll
                    for (int i = 0; i < 4; ++i) pf[st][i] = pn[st][i];
                }
            };
            // the tiles every row of the block sees whole (no mask), then the rest (a loop each: block-uniform,
            // no wgmma in a branch)
            // (WG 2: the last PF iterations, which may issue the next tile of rows' copies, apart, so that the main
            // loop's copies are this tile of rows' alone; the tail's masked where the tile reaches the rows)
            const int jm = min(ntiles, max(1, (tl.qpos0 + 1) / kFlashKeys)), jp = kMB ? max(1, ntiles - PF) : ntiles;
            for (int j = 1; j < min(jm, jp); ++j) iteration(j, std::false_type{}, std::false_type{});
            for (int j = min(jm, jp); j < jp; ++j) iteration(j, std::true_type{}, std::false_type{});
            if constexpr (kMB) {
                for (int j = jp; j < ntiles; ++j) iteration(j, std::true_type{}, std::true_type{});
            }
            descs(ntiles - 1, ntiles - 1);
            wgmmaFence();
            issuePV();
            landPV();
            if constexpr (kMB) mbarArrive(empty0 + 8 * ((run.gbase + ntiles - 1) % NST));  // (the ring runs on)
        }
    } else {
        for (int j = 0; j < ntiles; ++j) {
            nextTile(j, std::true_type{});
            const int kb0 = j * kFlashKeys;
            if (kb0 <= wlast) {  // (warp-uniform) some row of the warp sees keys of this tile
                const unsigned char *kt = ks + (j % NST) * KT, *vt = vs + (j % NST) * VT;
                // S for the tile's 64 keys: sc[step][8-token tile][rows g: 0-1, g + 8: 2-3]; steps past the warp's
                // last row are -inf
                float sc[NS][2][4];
#pragma unroll
                for (int st = 0; st < NS; ++st) {
#pragma unroll
                    for (int tile = 0; tile < 2; ++tile)
                        sc[st][tile][0] = sc[st][tile][1] = sc[st][tile][2] = sc[st][tile][3] = 0.0f;
                    if (kb0 + st * 16 <= wlast) {
#pragma unroll
                        for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
                            for (int jj = 0; jj < KP; ++jj) {
                                const uint4 kw = *reinterpret_cast<const uint4 *>(kt + (st * 16 + tile * 8 + g) * KR +
                                                                                  jj * 64 + c * 16);
                                mma16816x4<T>(sc[st][tile], qa[jj].x, qb[jj].x, qa[jj].y, qb[jj].y, kw.x, kw.y);
                                mma16816x4<T>(sc[st][tile], qa[jj].z, qb[jj].z, qa[jj].w, qb[jj].w, kw.z, kw.w);
                            }
                        }
                    }
                }
                float al0, al1, b0, b1;
                softmaxStep(sc, kb0, al0, al1, b0, b1, std::true_type{});
                rescale(al0, al1);
                // O += P V a step at a time; the values' B fragments by ldmatrix.trans: matrix mat = lane / 8 of a
                // pair of n-tiles is tokens 8 (mat & 1) + 0..7 at d = 8 (2 m + (mat >> 1)) + 0..7
                const unsigned char *vrow = vt + ((lane >> 3 & 1) * 8 + (lane & 7)) * VR + (lane >> 4) * 16;
#pragma unroll
                for (int st = 0; st < NS; ++st) {
                    if (kb0 + st * 16 > wlast) break;
                    uint32_t a[4];
                    probs(sc, st, b0, b1, a);
#pragma unroll
                    for (int m = 0; m < NT / 2; ++m) {
                        uint32_t v0, v1, v2, v3;
                        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                                     : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                                     : "r"(smemAddr(vrow + st * 16 * VR + m * 32)));
                        mma16816x4<T>(acc[2 * m], a[0], a[1], a[2], a[3], v0, v1);
                        mma16816x4<T>(acc[2 * m + 1], a[0], a[1], a[2], a[3], v2, v3);
                    }
                }
            }
            __syncthreads();  // every warp is done with the stage the next issue overwrites
        }
    }
    if constexpr (!kMB) cpAsyncWait<0>();  // (WG 2: every copy is a key tile's, waited for by its full mbarrier)
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
    // the rows' log-sum-exp where asked (m: the raw scores' max, l: the sum of exp(scale (s - m))), a lane a row
    if (p.lse != nullptr && c == 0) {
        float *lr = p.lse + static_cast<long long>(tl.r0 + wr0 + g) * p.lse_row + head * p.lse_head;
        if (g < wn) lr[0] = l0 > 0.0f ? m0 * p.scale + logf(l0) : -INFINITY;
        if (g + 8 < wn) lr[8 * p.lse_row] = l1 > 0.0f ? m1 * p.scale + logf(l1) : -INFINITY;
    }
    // the lane's outputs of a row: d = 8 nt + 2 c, 8 nt + 2 c + 1 from acc[nt][e], acc[nt][e + 1]
    auto store = [&](int r, int e, float l) {
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        T *o = out + static_cast<long long>(tl.r0 + wr0 + r) * p.o_row + head * p.o_head + 2 * c;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
            *reinterpret_cast<uint32_t *>(o + 8 * nt) = packPair<T>(acc[nt][e] * inv, acc[nt][e + 1] * inv);
    };
    if constexpr (WG != 0) {
        // the rows through the warp's buffer (its query rows were read long before): fragments by stmatrix, then
        // 16 bytes a lane, a row's 256 (D 128) consecutive (rather than 4-byte stores straight from the fragments,
        // 8 rows a store instruction, which are slow)
        const float i0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, i1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
        const int mat = lane >> 3, r = (lane & 7) + 8 * (mat & 1);
#pragma unroll
        for (int nt = 0; nt < NT; nt += 2) {
            stMatrix4(smemAddr(rbuf + r * (D * 2) + (((nt + (mat >> 1)) ^ (r & 7)) << 4)),
                      packPair<T>(acc[nt][0] * i0, acc[nt][1] * i0), packPair<T>(acc[nt][2] * i1, acc[nt][3] * i1),
                      packPair<T>(acc[nt + 1][0] * i0, acc[nt + 1][1] * i0),
                      packPair<T>(acc[nt + 1][2] * i1, acc[nt + 1][3] * i1));
        }
        __syncwarp();
        T *orow = out + static_cast<long long>(tl.r0 + wr0) * p.o_row + head * p.o_head + (lane % CPR) * 8;
#pragma unroll
        for (int i = 0; i < 16 / RPP; ++i) {
            const int rr = lane / CPR + RPP * i;
            if (rr < wn) {
                *reinterpret_cast<uint4 *>(orow + rr * p.o_row) =
                    *reinterpret_cast<const uint4 *>(rbuf + rr * (D * 2) + (((lane % CPR) ^ (rr & 7)) << 4));
            }
        }
    } else {
        if (g < wn) store(g, 0, l0);
        if (g + 8 < wn) store(g + 8, 2, l1);
    }
    run.gbase += ntiles;
    run.ahead = nextAhead();
    run.k += 1;
#endif
}

}  // namespace infini::nvidia::ops::attn
