// attention/attention.cu: attention over a dense KV cache: the append of the new rows, then the general kernel,
// the tiled kernel's dense form (16+ rows), or the decode fast path for decode-sized calls.
#include "flash_plan.cuh"
#include "splitk.cuh"

namespace infini::nvidia::ops::attn {

// attention: writes k, v [kv_heads, seq, d] into the caches at rows [pos, pos + seq).
template <typename T>
__global__ void appendKernel(T *kc, T *vc, const T *k, const T *v, long long kv_heads, long long seq, long long d,
                             long long pos, long long kc_s0, long long kc_s1, long long vc_s0, long long vc_s1,
                             long long k_s0, long long k_s1, long long v_s0, long long v_s1) {
    opEntry();
    long long total = kv_heads * seq * d;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long e = i % d, r = i / d, t = r % seq, h = r / seq;
        kc[h * kc_s0 + (pos + t) * kc_s1 + e] = k[h * k_s0 + t * k_s1 + e];
        vc[h * vc_s0 + (pos + t) * vc_s1 + e] = v[h * v_s0 + t * v_s1 + e];
    }
}

// The same 16 bytes a thread (rows of cpr 16-byte pieces; strides in bytes, multiples of 16; grid (x, kv_heads)),
// the key and value pieces of two rows loaded before they are stored (appendKernel's element a thread is several
// times slower than a copy).
__global__ void __launch_bounds__(256)
    appendKernel16(char *kc, char *vc, const char *k, const char *v, int seq, int cpr, long long pos, long long kc_s0,
                   long long kc_s1, long long vc_s0, long long vc_s1, long long k_s0, long long k_s1, long long v_s0,
                   long long v_s1) {
    opEntry();  // (the tiled kernel after it may be placed)
    const long long h = blockIdx.y;
    const int n = seq * cpr, step = static_cast<int>(gridDim.x) * 256;
    const char *kh = k + h * k_s0, *vh = v + h * v_s0;
    char *kch = kc + h * kc_s0 + pos * kc_s1, *vch = vc + h * vc_s0 + pos * vc_s1;
    for (int i = static_cast<int>(blockIdx.x) * 256 + static_cast<int>(threadIdx.x); i < n; i += 2 * step) {
        const int j = i + step;
        const int t0 = i / cpr, c0 = i - t0 * cpr, t1 = j / cpr, c1 = j - t1 * cpr;
        const uint4 k0 = *reinterpret_cast<const uint4 *>(kh + t0 * k_s1 + c0 * 16);
        const uint4 v0 = *reinterpret_cast<const uint4 *>(vh + t0 * v_s1 + c0 * 16);
        uint4 k1 = k0, v1 = v0;
        if (j < n) {
            k1 = *reinterpret_cast<const uint4 *>(kh + t1 * k_s1 + c1 * 16);
            v1 = *reinterpret_cast<const uint4 *>(vh + t1 * v_s1 + c1 * 16);
        }
        *reinterpret_cast<uint4 *>(kch + t0 * kc_s1 + c0 * 16) = k0;
        *reinterpret_cast<uint4 *>(vch + t0 * vc_s1 + c0 * 16) = v0;
        if (j < n) {
            *reinterpret_cast<uint4 *>(kch + t1 * kc_s1 + c1 * 16) = k1;
            *reinterpret_cast<uint4 *>(vch + t1 * vc_s1 + c1 * 16) = v1;
        }
    }
}

namespace {

// Decode-sized attention calls (under 16 rows: the tiled kernel does not take them) run the paged decode
// fast path over the dense cache viewed as pages of B = 16 (or 8) rows with the identity as block table,
// row r a sequence of pos + r + 1 tokens (its length read off the same table: kIota, 0, 1, 2, ... in device
// memory), where the general kernel is several times slower.
constexpr int kIotaCount = 1 << 16;
struct Iota {
    int v[kIotaCount];
    constexpr Iota() : v() {
        for (int i = 0; i < kIotaCount; ++i) v[i] = i;
    }
};
__device__ const Iota kIota{};

// The table's address on device dev (asked once a device; nullptr if it cannot be had).
const int *iotaOn(int dev) {
    static std::atomic<const int *> cache[64];
    if (dev < 0 || dev >= 64) return nullptr;
    const int *p = cache[dev].load(std::memory_order_relaxed);
    if (!p) {
        void *addr = nullptr;
        if (cudaGetSymbolAddress(&addr, kIota) != cudaSuccess) {
            cudaGetLastError();
            return nullptr;
        }
        p = static_cast<const int *>(addr);
        cache[dev].store(p, std::memory_order_relaxed);
    }
    return p;
}

// The plan for attention's params p (dense cache kc / vc), or false where the fast path does not take it.
bool makeDenseDecode(AttnParams p, const Layout &kc, const Layout &vc, infiniDtype_t dtype, Made *made) {
    const long long max_seq = static_cast<long long>(kc.shape[1]);
    // pages of 16 or 8 tokens along the cache's rows: the kernel reads whole pages, so those the call reads
    // (its keys [0, pos + rows) rounded up to a page) must lie inside them
    auto fits = [&](long long b) { return (p.pos + p.rows + b - 1) / b * b <= max_seq; };
    const int B = fits(16) ? 16 : (fits(8) ? 8 : 0);
    if (B == 0 || p.rows >= 16 || p.rows == 0 || p.pos + p.rows + 1 > kIotaCount || max_seq / B > kIotaCount)
        return false;
    p.k_s0 = B * kc.strides[1];
    p.k_s1 = kc.strides[0];
    p.k_s2 = kc.strides[1];
    p.v_s0 = B * vc.strides[1];
    p.v_s1 = vc.strides[0];
    p.v_s2 = vc.strides[1];
    p.block_size = B;
    p.block_shift = B == 16 ? 4 : 3;
    p.num_blocks = max_seq / B;
    p.bt_s0 = 0;
    p.bt_s1 = 1;
    p.bt64 = p.len64 = false;
    p.len_s0 = 1;
    p.max_tokens = p.pos + p.rows;
    p.seqs = p.rows;
    return makeDecodeFast(p, dtype, false, made);
}

// The decode plan where out, q and the caches start on 16 bytes (checked per call), else other.
Launch denseDecodeOr(Launch dec, Launch other, long long pos) {
    return [dec = std::move(dec), other = std::move(other), pos](const LaunchArgs &a) -> infiniStatus_t {
        const int *iota = iotaOn(a.device);
        const bool al = aligned16(a.data[0]) && aligned16(a.data[1]) && aligned16(a.data[2]) && aligned16(a.data[3]);
        if (!iota || !al) return other(a);
        // paged_attention's tensors: out, q, k_cache, v_cache, block_tables, seq_lens, alibi
        void *data[7] = {
            a.data[0], a.data[3], a.data[1], a.data[2], const_cast<int *>(iota), const_cast<int *>(iota + pos + 1),
            nullptr};
        LaunchArgs b = a;
        b.data = data;
        return dec(b);
    };
}

}  // namespace

}  // namespace infini::nvidia::ops::attn

namespace infini::nvidia::ops {

using namespace attn;

infiniStatus_t makeAttention(const infiniopOpParams_t &prm, int, Made *m) {
    const char *op = "attention";
    Layout out = layoutOf(prm.tensors[0]), kc = layoutOf(prm.tensors[1]), vc = layoutOf(prm.tensors[2]),
           q = layoutOf(prm.tensors[3]), k = layoutOf(prm.tensors[4]), v = layoutOf(prm.tensors[5]);
    long long pos = prm.i[0];
    INFINI_RETURN_IF_ERROR(checks::attention(out, kc, vc, q, k, v, pos));
    size_t heads = q.shape[0], seq = q.shape[1], d = q.shape[2];
    AttnParams p{};
    p.q_row = q.strides[1];
    p.q_head = q.strides[0];
    p.o_row = out.strides[1];
    p.o_head = out.strides[0];
    p.rows = seq;
    p.heads = heads;
    p.kv_heads = k.shape[0];
    p.group = heads / k.shape[0];
    p.d = d;
    p.scale = 1.0f / sqrtf(static_cast<float>(d));
    p.k_s0 = kc.strides[0];
    p.k_s1 = kc.strides[1];
    p.v_s0 = vc.strides[0];
    p.v_s1 = vc.strides[1];
    p.pos = pos;
    p.op = INFINIOP_OP_ATTENTION;
    bool aligned = alignedRows({p.k_s0, p.k_s1, p.v_s0, p.v_s1}, 8);
    Made attend;
    INFINI_RETURN_IF_ERROR(planAndMake<Mode::kDense>(op, p, q.dtype, pos + static_cast<long long>(seq), 3, 1, 2, -1, -1,
                                                     -1, -1, aligned, &attend));
    long long kvh = k.shape[0], nseq = seq, dd = d;
    auto ks = k.strides, vs = v.strides, kcs = kc.strides, vcs = vc.strides;
    Launch run_attend = attend.launch, flash;
    size_t flash_ws = 0;
    if (makeFlash<Mode::kDense>(p, q.dtype, false, &flash, &flash_ws))
        run_attend = flashOr(std::move(flash), std::move(run_attend));
    m->workspace = attend.workspace;
    Made dec;
    if (makeDenseDecode(p, kc, vc, q.dtype, &dec)) {
        run_attend = denseDecodeOr(std::move(dec.launch), std::move(run_attend), pos);
        m->workspace = std::max(m->workspace, dec.workspace);
    }
    return INFINI_NV_DISPATCH_FLOAT(q.dtype, op, {
        // the 16-byte append where rows are whole pieces and every stride a multiple of one (checked here) and
        // the four tensors start on 16 bytes (checked per call)
        const long long es = sizeof(T), cpr = dd * es / 16;
        bool vec = dd * es % 16 == 0 && nseq * cpr < (1LL << 30) && kvh <= 65535;
        for (long long st : {ks[0], ks[1], vs[0], vs[1], kcs[0], kcs[1], vcs[0], vcs[1]})
            vec = vec && st * es % 16 == 0;
        m->launch = [=](const LaunchArgs &a) {
            long long total = kvh * nseq * dd;
            if (total > 0 && vec && aligned16(a.data[1]) && aligned16(a.data[2]) && aligned16(a.data[4]) &&
                aligned16(a.data[5])) {
                const long long n = nseq * cpr;
                dim3 grid(static_cast<unsigned>(std::min((n + 511) / 512, 4096LL)), static_cast<unsigned>(kvh));
                launchOp(appendKernel16, grid, 256, 0, a.stream, static_cast<char *>(a.data[1]),
                         static_cast<char *>(a.data[2]), static_cast<const char *>(a.data[4]),
                         static_cast<const char *>(a.data[5]), static_cast<int>(nseq), static_cast<int>(cpr), pos,
                         kcs[0] * es, kcs[1] * es, vcs[0] * es, vcs[1] * es, ks[0] * es, ks[1] * es, vs[0] * es,
                         vs[1] * es);
                INFINI_RETURN_IF_ERROR(launched(op));
            } else if (total > 0) {
                launchOp(appendKernel<T>, blocksFor(total, 256, 132LL * 16), 256, 0, a.stream,
                         static_cast<T *>(a.data[1]), static_cast<T *>(a.data[2]), static_cast<const T *>(a.data[4]),
                         static_cast<const T *>(a.data[5]), kvh, nseq, dd, pos, kcs[0], kcs[1], vcs[0], vcs[1], ks[0],
                         ks[1], vs[0], vs[1]);
                INFINI_RETURN_IF_ERROR(launched(op));
            }
            return run_attend(a);
        };
    });
}

}  // namespace infini::nvidia::ops
