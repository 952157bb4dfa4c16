// ccl.cpp: the CPU backend's collectives (infiniccl). Ranks are processes on one host (or, for
// infinicclCommInitAll, devices of one process); they exchange data through one shared-memory segment
// per communicator, named by the unique id (the out-of-band store carries only that name).
//
// The segment holds a header (a barrier counter, a failure flag), one record per rank (its pid, and
// whether it left), two staging buffers of kStageBytes per rank, and one ring of kChanSlots slots per
// ordered pair of ranks for send/recv. A collective runs on the stream's worker in chunks; a chunk
// uses the staging buffer after the one its predecessor used, so each chunk needs one or two barriers
// and no rank waits for another to finish reading before writing the next chunk:
//   all-reduce / reduce: every rank stages the parts of the chunk that other ranks reduce; rank r
//     reduces part r (its own part read in place, the others from the staging buffers) and publishes
//     it; every rank copies the reduced parts out (reduce: only the root). Each element is read and
//     written about four times in all, whatever the number of ranks: no rank does all the work.
//   reduce-scatter: every rank stages the blocks other ranks own; each rank reduces its own block.
//   all-gather / broadcast: the sender(s) stage the chunk once; every other rank copies it out.
// Waiting spins, then yields, then sleeps, and checks the peers while it waits: a peer that exited
// or left, or failed, ends the wait with REMOTE_ERROR; a wait longer than the timeout with TIMEOUT.
// The failure is then sticky on the communicator and on the stream, as a device fault would be.
// infinicclCommAbort fails the communicator with ABORTED and sets the segment's failure flag, so that
// its own queued work and the peers' waits end at their next check.
#include "ccl.h"
#include "../common/ccl_timeout.h"

#include <fcntl.h>
#include <immintrin.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <infini/backend_fill.h>

#include "../common/dtype.h"
#include "runtime.h"

namespace infini::cpu {
namespace {

constexpr uint32_t kIdMagic = 0x31434349;  // "ICC1"
constexpr int kMaxRanks = 64;
constexpr size_t kStageBytes = size_t(1) << 20;  // per rank and staging buffer
constexpr size_t kChanSlotBytes = size_t(64) << 10;
constexpr uint32_t kChanSlots = 4;
constexpr size_t kPage = 4096;

// What the unique id carries.
struct IdData {
    uint32_t magic;
    uint32_t device_type;
    char name[64];  // the shared-memory segment's name
};
static_assert(sizeof(IdData) <= INFINICCL_UNIQUE_ID_BYTES, "the id fits");

struct alignas(64) Header {
    std::atomic<uint32_t> nranks;                // set by the first rank that attaches
    std::atomic<uint32_t> attached;              // ranks that mapped the segment
    std::atomic<uint32_t> failed;                // 1 + the first rank whose work failed, or 0
    alignas(64) std::atomic<uint32_t> arrivals;  // barrier arrivals, cumulative
};

struct alignas(64) RankRecord {
    std::atomic<int32_t> pid;  // 0 until the rank attached
    std::atomic<uint32_t> left;
};

// The ring from one rank to another: `sent` and `received` count slots.
struct alignas(64) Channel {
    std::atomic<uint32_t> sent;
    uint64_t message_bytes[kChanSlots];  // the size of the message each slot is part of
    alignas(64) std::atomic<uint32_t> received;
};

struct SegmentLayout {
    size_t ranks, channels, stage, chan_data, total;
    explicit SegmentLayout(int n) {
        auto up = [](size_t x) { return (x + kPage - 1) / kPage * kPage; };
        ranks = up(sizeof(Header));
        channels = ranks + up(sizeof(RankRecord) * n);
        stage = channels + up(sizeof(Channel) * n * n);
        chan_data = stage + 2 * n * kStageBytes;
        total = chan_data + size_t(n) * n * kChanSlots * kChanSlotBytes;
    }
};

// A mapped segment, shared by the communicators of one process that use it.
struct Segment {
    void *base = nullptr;
    size_t size = 0;
    std::string name;  // "" for a private (single-process) segment
    ~Segment() {
        if (base != nullptr) munmap(base, size);
    }
};

struct CclError : std::runtime_error {
    CclError(infiniStatus_t s, const std::string &m) : std::runtime_error(m), status(s) {}
    infiniStatus_t status;
};

enum class Kind { AllReduce, Broadcast, Reduce, AllGather, ReduceScatter, Send, Recv };

const char *apiName(Kind k) {
    switch (k) {
        case Kind::AllReduce: return "infinicclAllReduce";
        case Kind::Broadcast: return "infinicclBroadcast";
        case Kind::Reduce: return "infinicclReduce";
        case Kind::AllGather: return "infinicclAllGather";
        case Kind::ReduceScatter: return "infinicclReduceScatter";
        case Kind::Send: return "infinicclSend";
        case Kind::Recv: return "infinicclRecv";
    }
    return "infiniccl";
}

struct Op {
    Kind kind;
    const char *send;
    char *recv;
    size_t count;
    infiniDtype_t dtype;
    infinicclReduceOp_t redop;
    int root;  // root, or the peer of send/recv
};

// ---------------------------------------------------------------------------------------------
// Reductions of n sources, in rank order, into one or two destinations.

template <typename T>
struct NativeIo {
    using Acc = T;
    static Acc load(const T *p) { return *p; }
    static T store(Acc a) { return a; }
};
struct F16Io {
    using Acc = float;
    static float load(const uint16_t *p) {
        _Float16 h;
        std::memcpy(&h, p, 2);
        return static_cast<float>(h);
    }
    static uint16_t store(float a) {
        _Float16 h = static_cast<_Float16>(a);
        uint16_t u;
        std::memcpy(&u, &h, 2);
        return u;
    }
};
struct Bf16Io {
    using Acc = float;
    static float load(const uint16_t *p) {
        uint32_t u = uint32_t(*p) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    static uint16_t store(float a) {
        uint32_t u;
        std::memcpy(&u, &a, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays NaN
        u += 0x7fffu + ((u >> 16) & 1u);                                         // round to nearest even
        return uint16_t(u >> 16);
    }
};

template <typename A>
A combine(infinicclReduceOp_t op, A a, A b) {
    if constexpr (std::is_integral_v<A>) {
        using U = std::make_unsigned_t<A>;  // sums and products wrap, as torch's integer ops do
        switch (op) {
            case INFINICCL_PROD: return A(U(a) * U(b));
            case INFINICCL_MAX: return a > b ? a : b;
            case INFINICCL_MIN: return a < b ? a : b;
            case INFINICCL_BAND: return A(a & b);
            case INFINICCL_BOR: return A(a | b);
            case INFINICCL_BXOR: return A(a ^ b);
            default: return A(U(a) + U(b));
        }
    } else {
        switch (op) {
            case INFINICCL_PROD: return a * b;
            case INFINICCL_MAX: return (a > b || a != a) ? a : b;  // NaN propagates, as torch.maximum
            case INFINICCL_MIN: return (a < b || a != a) ? a : b;
            default: return a + b;
        }
    }
}

template <typename Io, typename T, infinicclReduceOp_t OP>
void reduceBlock(T *dst, T *dst2, const T *const *srcs, int n, size_t m, int nranks, bool avg) {
    using A = typename Io::Acc;
    A acc[256];
    for (size_t i = 0; i < m; ++i) acc[i] = Io::load(srcs[0] + i);
    for (int k = 1; k < n; ++k) {
        const T *s = srcs[k];
        for (size_t i = 0; i < m; ++i) acc[i] = combine<A>(OP, acc[i], Io::load(s + i));
    }
    if (avg) {
        for (size_t i = 0; i < m; ++i) acc[i] = A(acc[i] / A(nranks));
    }
    for (size_t i = 0; i < m; ++i) dst[i] = Io::store(acc[i]);
    if (dst2 != nullptr) std::memcpy(dst2, dst, m * sizeof(T));
}

template <typename Io, typename T, infinicclReduceOp_t OP>
void reduceTyped(void *dst, void *dst2, const void *const *srcs, int n, size_t count, int nranks, bool avg) {
    const T *s[kMaxRanks];
    for (size_t off = 0; off < count; off += 256) {
        size_t m = std::min<size_t>(256, count - off);
        for (int k = 0; k < n; ++k) s[k] = static_cast<const T *>(srcs[k]) + off;
        reduceBlock<Io, T, OP>(static_cast<T *>(dst) + off, dst2 ? static_cast<T *>(dst2) + off : nullptr, s, n, m,
                               nranks, avg);
    }
}

template <typename Io, typename T>
void reduceOp(void *dst, void *dst2, const void *const *srcs, int n, size_t count, infinicclReduceOp_t op, int nranks) {
    switch (op) {
        case INFINICCL_PROD: return reduceTyped<Io, T, INFINICCL_PROD>(dst, dst2, srcs, n, count, nranks, false);
        case INFINICCL_MAX: return reduceTyped<Io, T, INFINICCL_MAX>(dst, dst2, srcs, n, count, nranks, false);
        case INFINICCL_MIN: return reduceTyped<Io, T, INFINICCL_MIN>(dst, dst2, srcs, n, count, nranks, false);
        case INFINICCL_AVG: return reduceTyped<Io, T, INFINICCL_SUM>(dst, dst2, srcs, n, count, nranks, true);
        case INFINICCL_BAND: return reduceTyped<Io, T, INFINICCL_BAND>(dst, dst2, srcs, n, count, nranks, false);
        case INFINICCL_BOR: return reduceTyped<Io, T, INFINICCL_BOR>(dst, dst2, srcs, n, count, nranks, false);
        case INFINICCL_BXOR: return reduceTyped<Io, T, INFINICCL_BXOR>(dst, dst2, srcs, n, count, nranks, false);
        default: return reduceTyped<Io, T, INFINICCL_SUM>(dst, dst2, srcs, n, count, nranks, false);
    }
}

// dst (and dst2 when not NULL) = srcs[0] op srcs[1] op ... (AVG: the sum divided by nranks).
void reduce(void *dst, void *dst2, const void *const *srcs, int n, size_t count, infiniDtype_t dtype,
            infinicclReduceOp_t op, int nranks) {
    if (count == 0) return;
    switch (dtype) {
        case INFINI_DTYPE_F32: return reduceOp<NativeIo<float>, float>(dst, dst2, srcs, n, count, op, nranks);
        case INFINI_DTYPE_F64: return reduceOp<NativeIo<double>, double>(dst, dst2, srcs, n, count, op, nranks);
        case INFINI_DTYPE_F16: return reduceOp<F16Io, uint16_t>(dst, dst2, srcs, n, count, op, nranks);
        case INFINI_DTYPE_BF16: return reduceOp<Bf16Io, uint16_t>(dst, dst2, srcs, n, count, op, nranks);
        case INFINI_DTYPE_I8: return reduceOp<NativeIo<int8_t>, int8_t>(dst, dst2, srcs, n, count, op, nranks);
        case INFINI_DTYPE_U8: return reduceOp<NativeIo<uint8_t>, uint8_t>(dst, dst2, srcs, n, count, op, nranks);
        case INFINI_DTYPE_I32: return reduceOp<NativeIo<int32_t>, int32_t>(dst, dst2, srcs, n, count, op, nranks);
        case INFINI_DTYPE_I64: return reduceOp<NativeIo<int64_t>, int64_t>(dst, dst2, srcs, n, count, op, nranks);
        default: throw CclError(INFINI_STATUS_BAD_TENSOR_DTYPE, "cannot reduce this dtype");
    }
}

// ---------------------------------------------------------------------------------------------

// True when the process has exited (gone, or a zombie nobody has reaped yet).
bool processGone(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return false;
    size_t paren = text.rfind(')');
    if (paren == std::string::npos || paren + 2 >= text.size()) return false;
    char state = text[paren + 2];
    return state == 'Z' || state == 'X';
}

class Comm {
   public:
    Comm(std::shared_ptr<Segment> seg, int rank, int nranks, int device) : seg_(std::move(seg)), layout_(nranks) {
        header.device = INFINI_DEVICE_CPU;
        header.device_id = device;
        header.rank = rank;
        header.nranks = nranks;
        char *base = static_cast<char *>(seg_->base);
        hdr_ = reinterpret_cast<Header *>(base);
        ranks_ = reinterpret_cast<RankRecord *>(base + layout_.ranks);
        channels_ = reinterpret_cast<Channel *>(base + layout_.channels);
        stage_ = base + layout_.stage;
        chan_data_ = base + layout_.chan_data;
        timeout_ms_ = cclDefaultTimeoutMs();
    }
    ~Comm() {
        if (attached_) ranks_[rank()].left.store(1, std::memory_order_release);
        // a group some rank never joined: nobody else will remove the name
        if (!seg_->name.empty() && hdr_->attached.load() < uint32_t(nranks())) shm_unlink(seg_->name.c_str());
    }

    InfinicclComm header;  // first: the handle the core sees is &header
    int rank() const { return header.rank; }
    int nranks() const { return header.nranks; }
    int device() const { return header.device_id; }
    std::mutex run_mu;  // one queued task of this communicator runs at a time
    std::atomic<uint64_t> timeout_ms_{0};

    // The first failure of queued work (SUCCESS while there is none), and its message.
    infiniStatus_t asyncError(std::string *message) {
        std::lock_guard<std::mutex> lock(err_mu_);
        if (message) *message = err_message_;
        return err_status_;
    }
    void setAsyncError(infiniStatus_t s, const std::string &m) {
        std::lock_guard<std::mutex> lock(err_mu_);
        if (err_status_ == INFINI_STATUS_SUCCESS) {
            err_status_ = s;
            err_message_ = m;
        }
    }

    // Fails the communicator with ABORTED and tells the peers (the segment's failure flag); queued work
    // that waits for peers ends at its next check. Safe from any thread, and more than once.
    void abort() {
        setAsyncError(INFINI_STATUS_ABORTED,
                      "rank " + std::to_string(rank()) + " aborted the communicator (infinicclCommAbort)");
        aborted_.store(true, std::memory_order_release);
        uint32_t zero = 0;
        hdr_->failed.compare_exchange_strong(zero, uint32_t(rank() + 1));
    }

    // Marks this rank attached (checks the group's size and that the rank is not taken).
    void attach() {
        uint32_t expected = 0;
        if (!hdr_->nranks.compare_exchange_strong(expected, uint32_t(nranks())) && expected != uint32_t(nranks())) {
            throw CclError(INFINI_STATUS_BAD_PARAM, "rank " + std::to_string(rank()) + " joined with nranks " +
                                                        std::to_string(nranks()) + ", an earlier rank with " +
                                                        std::to_string(expected));
        }
        int32_t none = 0;
        if (!ranks_[rank()].pid.compare_exchange_strong(none, int32_t(getpid()))) {
            throw CclError(INFINI_STATUS_BAD_PARAM, "rank " + std::to_string(rank()) + " was already joined (by pid " +
                                                        std::to_string(none) + ")");
        }
        attached_ = true;
        if (hdr_->attached.fetch_add(1) + 1 == uint32_t(nranks()) && !seg_->name.empty()) {
            shm_unlink(seg_->name.c_str());  // everyone has it mapped: the name is no longer needed
        }
    }

    // Runs a task's operations: consecutive send/recv run together (they cannot deadlock), the
    // collectives one after another.
    void run(const std::vector<Op> &ops) {
        std::lock_guard<std::mutex> lock(run_mu);
        std::string message;
        if (infiniStatus_t s = asyncError(&message); s != INFINI_STATUS_SUCCESS) {
            throw std::runtime_error("the communicator failed earlier: " + message);
        }
        const char *api = "infiniccl";
        try {
            for (size_t i = 0; i < ops.size();) {
                api = apiName(ops[i].kind);
                if (ops[i].kind == Kind::Send || ops[i].kind == Kind::Recv) {
                    size_t j = i;
                    while (j < ops.size() && (ops[j].kind == Kind::Send || ops[j].kind == Kind::Recv)) ++j;
                    p2p(ops.data() + i, j - i);
                    i = j;
                } else {
                    collective(ops[i]);
                    ++i;
                }
            }
        } catch (const CclError &e) {
            std::string m = std::string(api) + " on rank " + std::to_string(rank()) + ": " + e.what();
            setAsyncError(e.status, m);
            uint32_t zero = 0;
            hdr_->failed.compare_exchange_strong(zero, uint32_t(rank() + 1));  // tell the peers
            throw std::runtime_error(m);
        }
    }

   private:
    char *stage(int buffer, int r) { return stage_ + (size_t(buffer) * nranks() + r) * kStageBytes; }
    Channel &channel(int from, int to) { return channels_[from * nranks() + to]; }
    char *slot(int from, int to, uint32_t s) {
        return chan_data_ + ((size_t(from) * nranks() + to) * kChanSlots + s % kChanSlots) * kChanSlotBytes;
    }
    int nextBuffer() { return int(chunk_seq_++ & 1); }

    // Throws when a peer in [lo, hi) exited, left or failed (checking processes at most every 100 ms).
    void checkPeers(int lo, int hi, bool check_processes) {
        if (aborted_.load(std::memory_order_acquire)) {
            throw CclError(INFINI_STATUS_ABORTED, "the communicator was aborted (infinicclCommAbort)");
        }
        if (uint32_t f = hdr_->failed.load(std::memory_order_acquire)) {
            throw CclError(INFINI_STATUS_REMOTE_ERROR, "rank " + std::to_string(f - 1) +
                                                           " of the group failed, so this collective cannot complete");
        }
        for (int r = lo; r < hi; ++r) {
            if (r == rank()) continue;
            int32_t pid = ranks_[r].pid.load(std::memory_order_acquire);
            if (ranks_[r].left.load(std::memory_order_acquire)) {
                throw CclError(
                    INFINI_STATUS_REMOTE_ERROR,
                    "rank " + std::to_string(r) + " destroyed its communicator while this rank waits for it");
            }
            if (check_processes && pid != 0 && pid != getpid() && processGone(pid)) {
                throw CclError(INFINI_STATUS_REMOTE_ERROR,
                               "rank " + std::to_string(r) + " (pid " + std::to_string(pid) + ") exited");
            }
        }
    }

    // Waits until ready() holds: spins, then yields, then sleeps; checks the peers in [lo, hi) and the
    // timeout as it goes.
    template <typename Ready>
    void waitUntil(Ready ready, int lo, int hi, const char *what) {
        for (int i = 0; i < 4000; ++i) {
            if (ready()) return;
            _mm_pause();
        }
        auto start = Clock::now();
        auto next_check = start;
        auto next_process_check = start + std::chrono::milliseconds(100);
        auto limit = start + std::chrono::milliseconds(timeout_ms_.load());
        for (int k = 0;; ++k) {
            if (ready()) return;
            if (k < 400) {
                sched_yield();
            } else {
                timespec ts{0, 20000};
                nanosleep(&ts, nullptr);
            }
            auto now = Clock::now();
            if (now >= next_check) {
                bool processes = now >= next_process_check;
                try {
                    checkPeers(lo, hi, processes);
                } catch (const CclError &) {
                    if (ready()) return;  // the peer arrived before it went
                    throw;
                }
                if (processes) next_process_check = now + std::chrono::milliseconds(100);
                next_check = now + std::chrono::milliseconds(1);
                if (now >= limit) {
                    if (ready()) return;
                    throw CclError(INFINI_STATUS_TIMEOUT,
                                   "timed out after " + std::to_string(timeout_ms_.load()) + " ms waiting for " + what);
                }
            }
        }
    }

    void barrier() {
        uint32_t target = (++barriers_) * uint32_t(nranks());
        hdr_->arrivals.fetch_add(1, std::memory_order_acq_rel);
        waitUntil([&] { return int32_t(hdr_->arrivals.load(std::memory_order_acquire) - target) >= 0; }, 0, nranks(),
                  "the other ranks to arrive");
    }

    // The bounds of rank j's part of a c-element chunk (cache-line aligned).
    static size_t partBound(size_t c, int j, int n, size_t es) {
        size_t align = std::max<size_t>(1, 64 / es);
        size_t x = c * size_t(j) / size_t(n);
        x = (x + align - 1) / align * align;
        return std::min(x, c);
    }

    void collective(const Op &op) {
        const int n = nranks(), me = rank();
        const size_t es = dtypeSize(op.dtype);
        const char *src = op.send;
        char *dst = op.recv;
        switch (op.kind) {
            case Kind::AllReduce:
            case Kind::Reduce: {
                const bool all = op.kind == Kind::AllReduce;
                const bool out = all || me == op.root;
                if (n == 1) {  // one rank: every op, AVG included, gives the input back
                    if (dst != src) std::memcpy(dst, src, op.count * es);
                    return;
                }
                const size_t chunk = kStageBytes / es;
                const void *srcs[kMaxRanks];
                for (size_t off = 0; off < op.count; off += chunk) {
                    const size_t c = std::min(chunk, op.count - off);
                    const int b = nextBuffer();
                    char *mine = stage(b, me);
                    for (int j = 0; j < n; ++j) {
                        if (j == me) continue;
                        size_t lo = partBound(c, j, n, es), hi = partBound(c, j + 1, n, es);
                        std::memcpy(mine + lo * es, src + (off + lo) * es, (hi - lo) * es);
                    }
                    barrier();
                    size_t lo = partBound(c, me, n, es), hi = partBound(c, me + 1, n, es);
                    for (int k = 0; k < n; ++k) {
                        srcs[k] = k == me ? src + (off + lo) * es : stage(b, k) + lo * es;
                    }
                    if (out) {
                        reduce(dst + (off + lo) * es, mine + lo * es, srcs, n, hi - lo, op.dtype, op.redop, n);
                    } else {
                        reduce(mine + lo * es, nullptr, srcs, n, hi - lo, op.dtype, op.redop, n);
                    }
                    barrier();
                    if (!out) continue;
                    for (int j = 0; j < n; ++j) {
                        if (j == me) continue;
                        size_t jlo = partBound(c, j, n, es), jhi = partBound(c, j + 1, n, es);
                        std::memcpy(dst + (off + jlo) * es, stage(b, j) + jlo * es, (jhi - jlo) * es);
                    }
                }
                return;
            }
            case Kind::Broadcast: {
                const size_t bytes = op.count * es;
                if (me == op.root && dst != src && bytes) std::memcpy(dst, src, bytes);
                if (n == 1) return;
                const size_t chunk = kStageBytes * n;
                for (size_t off = 0; off < bytes; off += chunk) {
                    const size_t len = std::min(chunk, bytes - off);
                    const int b = nextBuffer();
                    if (me == op.root) std::memcpy(stage(b, 0), dst + off, len);
                    barrier();
                    if (me != op.root) std::memcpy(dst + off, stage(b, 0), len);
                }
                return;
            }
            case Kind::AllGather: {
                const size_t bytes = op.count * es;
                if (dst + me * bytes != src && bytes) std::memmove(dst + me * bytes, src, bytes);
                if (n == 1) return;
                for (size_t off = 0; off < bytes; off += kStageBytes) {
                    const size_t len = std::min(kStageBytes, bytes - off);
                    const int b = nextBuffer();
                    std::memcpy(stage(b, me), dst + me * bytes + off, len);
                    barrier();
                    for (int j = 0; j < n; ++j) {
                        if (j != me) std::memcpy(dst + j * bytes + off, stage(b, j), len);
                    }
                }
                return;
            }
            case Kind::ReduceScatter: {
                const size_t rc = op.count;
                if (n == 1) {  // one rank: every op, AVG included, gives the input back
                    if (dst != src) std::memcpy(dst, src, rc * es);
                    return;
                }
                const size_t chunk = std::max<size_t>(1, kStageBytes / (size_t(n) * es));
                const void *srcs[kMaxRanks];
                for (size_t off = 0; off < rc; off += chunk) {
                    const size_t c = std::min(chunk, rc - off);
                    const int b = nextBuffer();
                    char *mine = stage(b, me);
                    for (int j = 0; j < n; ++j) {
                        if (j != me) std::memcpy(mine + j * chunk * es, src + (j * rc + off) * es, c * es);
                    }
                    barrier();
                    for (int k = 0; k < n; ++k) {
                        srcs[k] = k == me ? src + (me * rc + off) * es : stage(b, k) + me * chunk * es;
                    }
                    reduce(dst + off * es, nullptr, srcs, n, c, op.dtype, op.redop, n);
                }
                // the next chunk's barrier keeps the staging buffers until every rank has read them; the
                // last chunk's readers are protected the same way by the next collective's first barrier
                return;
            }
            default: return;
        }
    }

    struct P2p {
        const Op *op;
        size_t bytes;
        size_t done = 0;
        bool started = false;
        bool finished() const { return started && done >= bytes; }
    };

    // Moves as many pieces as it can without waiting; returns whether it moved any.
    bool stepSend(P2p &p) {
        Channel &ch = channel(rank(), p.op->root);
        bool moved = false;
        while (!p.finished()) {
            uint32_t s = ch.sent.load(std::memory_order_relaxed);
            if (s - ch.received.load(std::memory_order_acquire) >= kChanSlots) break;
            size_t len = std::min(kChanSlotBytes, p.bytes - p.done);
            ch.message_bytes[s % kChanSlots] = p.bytes;
            if (len) std::memcpy(slot(rank(), p.op->root, s), p.op->send + p.done, len);
            ch.sent.store(s + 1, std::memory_order_release);
            p.done += len;
            p.started = true;
            moved = true;
        }
        return moved;
    }

    bool stepRecv(P2p &p) {
        const int peer = p.op->root;
        Channel &ch = channel(peer, rank());
        bool moved = false;
        while (!p.finished()) {
            uint32_t r = ch.received.load(std::memory_order_relaxed);
            if (ch.sent.load(std::memory_order_acquire) == r) break;
            uint64_t total = ch.message_bytes[r % kChanSlots];
            if (total != p.bytes) {
                throw CclError(INFINI_STATUS_BAD_PARAM,
                               "rank " + std::to_string(peer) + " sent " + std::to_string(total) + " bytes, rank " +
                                   std::to_string(rank()) + " expects " + std::to_string(p.bytes) +
                                   " (send and recv sizes must match)");
            }
            size_t len = std::min(kChanSlotBytes, p.bytes - p.done);
            if (len) std::memcpy(p.op->recv + p.done, slot(peer, rank(), r), len);
            ch.received.store(r + 1, std::memory_order_release);
            p.done += len;
            p.started = true;
            moved = true;
        }
        return moved;
    }

    void p2p(const Op *ops, size_t count) {
        std::vector<P2p> work;
        for (size_t i = 0; i < count; ++i) work.push_back(P2p{&ops[i], ops[i].count * dtypeSize(ops[i].dtype)});
        for (;;) {
            bool all_done = true;
            bool moved = false;
            // in issue order per peer and direction: a later message to the same peer waits for the earlier
            std::vector<int> busy_send(nranks(), 0), busy_recv(nranks(), 0);
            for (P2p &p : work) {
                if (p.finished()) continue;
                all_done = false;
                int peer = p.op->root;
                bool is_send = p.op->kind == Kind::Send;
                int &busy = is_send ? busy_send[peer] : busy_recv[peer];
                if (busy) continue;
                busy = 1;
                moved |= is_send ? stepSend(p) : stepRecv(p);
                if (p.finished()) busy = 0;
            }
            if (all_done) return;
            if (moved) continue;
            // nothing could move: wait for any peer we are waiting on to make room or data
            int lo = nranks(), hi = 0;
            for (P2p &p : work) {
                if (!p.finished()) {
                    lo = std::min(lo, p.op->root);
                    hi = std::max(hi, p.op->root + 1);
                }
            }
            waitUntil(
                [&] {
                    for (P2p &p : work) {
                        if (p.finished()) continue;
                        int peer = p.op->root;
                        if (p.op->kind == Kind::Send) {
                            Channel &ch = channel(rank(), peer);
                            if (ch.sent.load(std::memory_order_relaxed) - ch.received.load(std::memory_order_acquire) <
                                kChanSlots)
                                return true;
                        } else {
                            Channel &ch = channel(peer, rank());
                            if (ch.sent.load(std::memory_order_acquire) != ch.received.load(std::memory_order_relaxed))
                                return true;
                        }
                    }
                    return false;
                },
                lo, hi, "a peer to send or receive");
        }
    }

    std::shared_ptr<Segment> seg_;
    SegmentLayout layout_;
    Header *hdr_;
    RankRecord *ranks_;
    Channel *channels_;
    char *stage_;
    char *chan_data_;
    bool attached_ = false;
    std::atomic<bool> aborted_{false};  // set by abort(): waits for peers end at their next check
    uint32_t barriers_ = 0;
    uint64_t chunk_seq_ = 0;
    std::mutex err_mu_;
    infiniStatus_t err_status_ = INFINI_STATUS_SUCCESS;
    std::string err_message_;
};

// The live communicators of this process (the handle is &Comm::header).
std::mutex comms_mu;
std::unordered_map<infinicclComm_t, std::shared_ptr<Comm>> &comms() {
    static auto *m = new std::unordered_map<infinicclComm_t, std::shared_ptr<Comm>>();
    return *m;
}

std::shared_ptr<Comm> findComm(infinicclComm_t c) {
    std::lock_guard<std::mutex> lock(comms_mu);
    auto it = comms().find(c);
    return it == comms().end() ? nullptr : it->second;
}

infinicclComm_t registerComm(std::shared_ptr<Comm> c) {
    infinicclComm_t h = &c->header;
    std::lock_guard<std::mutex> lock(comms_mu);
    comms().emplace(h, std::move(c));
    return h;
}

// ---------------------------------------------------------------------------------------------
// Group state: calls made between GroupStart and GroupEnd on this thread.

struct Pending {
    std::shared_ptr<Comm> comm;
    std::shared_ptr<Stream> stream;
    Op op;
};
struct GroupState {
    int depth = 0;
    std::vector<Pending> pending;
};
thread_local GroupState group;

void submit(const std::shared_ptr<Comm> &comm, const std::shared_ptr<Stream> &stream, std::vector<Op> ops) {
    stream->enqueue([comm, ops = std::move(ops)] { comm->run(ops); });
}

// Checks that [p, p + bytes) is memory of cpu:device.
infiniStatus_t checkRange(const char *what, const void *p, size_t bytes, int device) {
    if (bytes == 0) return INFINI_STATUS_SUCCESS;
    Runtime &rt = Runtime::get();
    std::lock_guard<std::mutex> lock(rt.mem_mu);
    auto *a = rt.findContaining(p);
    if (a == nullptr || a->second.device != device) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s %p is not memory of cpu:%d", what, p, device);
    }
    if (reinterpret_cast<uintptr_t>(p) + bytes > a->first + a->second.size) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %zu bytes from %p run past the end of its allocation", what, bytes,
                    p);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t issue(infinicclComm_t handle, infinirtStream_t stream_handle, const Op &op, size_t send_bytes,
                     size_t recv_bytes) {
    std::shared_ptr<Comm> comm = findComm(handle);
    if (!comm) return fail(INFINI_STATUS_INVALID_HANDLE, "%p is not a communicator of the cpu backend", (void *)handle);
    std::string message;
    if (infiniStatus_t s = comm->asyncError(&message); s != INFINI_STATUS_SUCCESS) {
        return fail(s, "the communicator failed earlier: %s", message.c_str());
    }
    std::shared_ptr<Stream> stream;
    if (stream_handle == nullptr) {
        stream = Runtime::get().device(comm->device()).default_stream;
    } else {
        INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream_handle, &stream));
        if (stream->device() != comm->device()) {
            return fail(INFINI_STATUS_BAD_PARAM, "the stream is on cpu:%d, the communicator on cpu:%d",
                        stream->device(), comm->device());
        }
    }
    if (send_bytes) INFINI_RETURN_IF_ERROR(checkRange("sendbuf", op.send, send_bytes, comm->device()));
    if (recv_bytes) INFINI_RETURN_IF_ERROR(checkRange("recvbuf", op.recv, recv_bytes, comm->device()));
    if (group.depth > 0) {
        group.pending.push_back(Pending{comm, stream, op});
    } else {
        submit(comm, stream, {op});
    }
    return INFINI_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// The table's functions.

infiniStatus_t getUniqueId(infinicclUniqueId *id) {
    IdData d{};
    d.magic = kIdMagic;
    d.device_type = INFINI_DEVICE_CPU;
    std::random_device rd;
    uint64_t nonce = (uint64_t(rd()) << 32) ^ rd();
    std::snprintf(d.name, sizeof(d.name), "/infiniccl-%d-%016llx", int(getpid()), (unsigned long long)nonce);
    std::memcpy(id->internal, &d, sizeof(d));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitRank(infinicclComm_t *out, int nranks, const infinicclUniqueId *id, int rank) {
    IdData d;
    std::memcpy(&d, id->internal, sizeof(d));
    if (d.magic != kIdMagic || d.device_type != INFINI_DEVICE_CPU || memchr(d.name, 0, sizeof(d.name)) == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM, "the unique id was not made by infinicclGetUniqueId for the cpu backend");
    }
    if (nranks > kMaxRanks)
        return fail(INFINI_STATUS_BAD_PARAM, "at most %d ranks are supported, not %d", kMaxRanks, nranks);
    SegmentLayout layout(nranks);
    int fd = shm_open(d.name, O_CREAT | O_RDWR, 0600);
    if (fd < 0) return fail(INFINI_STATUS_INTERNAL_ERROR, "shm_open(%s) failed: %s", d.name, std::strerror(errno));
    struct stat st{};
    if (fstat(fd, &st) != 0 || (size_t(st.st_size) < layout.total && ftruncate(fd, off_t(layout.total)) != 0)) {
        int e = errno;
        close(fd);
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "cannot size the shared segment %s to %zu bytes: %s", d.name,
                    layout.total, std::strerror(e));
    }
    void *base = mmap(nullptr, layout.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (base == MAP_FAILED) return fail(INFINI_STATUS_OUT_OF_MEMORY, "mmap of %s failed: %s", d.name, std::strerror(e));
    auto seg = std::make_shared<Segment>();
    seg->base = base;
    seg->size = layout.total;
    seg->name = d.name;
    auto comm = std::make_shared<Comm>(seg, rank, nranks, Runtime::currentDevice());
    try {
        comm->attach();
    } catch (const CclError &err) {
        return fail(err.status, "%s", err.what());
    }
    *out = registerComm(std::move(comm));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitAll(infinicclComm_t *out, int ndevice, const int *device_ids) {
    if (ndevice > kMaxRanks)
        return fail(INFINI_STATUS_BAD_PARAM, "at most %d ranks are supported, not %d", kMaxRanks, ndevice);
    SegmentLayout layout(ndevice);
    void *base = mmap(nullptr, layout.total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return fail(INFINI_STATUS_OUT_OF_MEMORY, "mmap failed: %s", std::strerror(errno));
    auto seg = std::make_shared<Segment>();
    seg->base = base;
    seg->size = layout.total;
    for (int i = 0; i < ndevice; ++i) {
        auto comm = std::make_shared<Comm>(seg, i, ndevice, device_ids[i]);
        comm->attach();
        out[i] = registerComm(std::move(comm));
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commDestroy(infinicclComm_t handle) {
    std::shared_ptr<Comm> comm;
    {
        std::lock_guard<std::mutex> lock(comms_mu);
        auto it = comms().find(handle);
        if (it == comms().end()) return fail(INFINI_STATUS_INVALID_HANDLE, "not a communicator of the cpu backend");
        comm = std::move(it->second);
        comms().erase(it);
    }
    // queued tasks hold their own references: the communicator goes when the last of them has run
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commSetTimeout(infinicclComm_t handle, uint64_t ms) {
    auto comm = findComm(handle);
    if (!comm) return fail(INFINI_STATUS_INVALID_HANDLE, "not a communicator of the cpu backend");
    comm->timeout_ms_.store(ms);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commAbort(infinicclComm_t handle) {
    auto comm = findComm(handle);
    if (!comm) return fail(INFINI_STATUS_INVALID_HANDLE, "not a communicator of the cpu backend");
    comm->abort();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commGetAsyncError(infinicclComm_t handle, infiniStatus_t *error) {
    auto comm = findComm(handle);
    if (!comm) return fail(INFINI_STATUS_INVALID_HANDLE, "not a communicator of the cpu backend");
    std::string message;
    *error = comm->asyncError(&message);
    if (*error != INFINI_STATUS_SUCCESS) lastErrorMessage() = message;
    return INFINI_STATUS_SUCCESS;
}

Op makeOp(Kind k, const void *send, void *recv, size_t count, infiniDtype_t dtype, infinicclReduceOp_t redop,
          int root) {
    return Op{k, static_cast<const char *>(send), static_cast<char *>(recv), count, dtype, redop, root};
}

infiniStatus_t allReduce(void *send, void *recv, size_t count, infiniDtype_t dtype, infinicclReduceOp_t op,
                         infinicclComm_t comm, infinirtStream_t stream) {
    size_t bytes = count * dtypeSize(dtype);
    return issue(comm, stream, makeOp(Kind::AllReduce, send, recv, count, dtype, op, 0), bytes, bytes);
}

infiniStatus_t broadcast(void *send, void *recv, size_t count, infiniDtype_t dtype, int root, infinicclComm_t comm,
                         infinirtStream_t stream) {
    size_t bytes = count * dtypeSize(dtype);
    bool is_root = comm->rank == root;
    return issue(comm, stream,
                 makeOp(Kind::Broadcast, is_root ? send : nullptr, recv, count, dtype, INFINICCL_SUM, root),
                 is_root ? bytes : 0, bytes);
}

infiniStatus_t reduceRoot(void *send, void *recv, size_t count, infiniDtype_t dtype, infinicclReduceOp_t op, int root,
                          infinicclComm_t comm, infinirtStream_t stream) {
    size_t bytes = count * dtypeSize(dtype);
    bool is_root = comm->rank == root;
    return issue(comm, stream, makeOp(Kind::Reduce, send, is_root ? recv : nullptr, count, dtype, op, root), bytes,
                 is_root ? bytes : 0);
}

infiniStatus_t allGather(void *send, void *recv, size_t count, infiniDtype_t dtype, infinicclComm_t comm,
                         infinirtStream_t stream) {
    size_t bytes = count * dtypeSize(dtype);
    return issue(comm, stream, makeOp(Kind::AllGather, send, recv, count, dtype, INFINICCL_SUM, 0), bytes,
                 bytes * comm->nranks);
}

infiniStatus_t reduceScatter(void *send, void *recv, size_t count, infiniDtype_t dtype, infinicclReduceOp_t op,
                             infinicclComm_t comm, infinirtStream_t stream) {
    size_t bytes = count * dtypeSize(dtype);
    return issue(comm, stream, makeOp(Kind::ReduceScatter, send, recv, count, dtype, op, 0), bytes * comm->nranks,
                 bytes);
}

infiniStatus_t send(void *buf, size_t count, infiniDtype_t dtype, int peer, infinicclComm_t comm,
                    infinirtStream_t stream) {
    return issue(comm, stream, makeOp(Kind::Send, buf, nullptr, count, dtype, INFINICCL_SUM, peer),
                 count * dtypeSize(dtype), 0);
}

infiniStatus_t recv(void *buf, size_t count, infiniDtype_t dtype, int peer, infinicclComm_t comm,
                    infinirtStream_t stream) {
    return issue(comm, stream, makeOp(Kind::Recv, nullptr, buf, count, dtype, INFINICCL_SUM, peer), 0,
                 count * dtypeSize(dtype));
}

infiniStatus_t groupStart() {
    ++group.depth;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t groupEnd() {
    if (group.depth == 0) return fail(INFINI_STATUS_BAD_PARAM, "no group was started on this thread");
    if (--group.depth > 0) return INFINI_STATUS_SUCCESS;
    std::vector<Pending> pending;
    pending.swap(group.pending);
    // one task per (communicator, stream), keeping each one's calls in issue order
    std::vector<bool> taken(pending.size(), false);
    for (size_t i = 0; i < pending.size(); ++i) {
        if (taken[i]) continue;
        std::vector<Op> ops;
        for (size_t j = i; j < pending.size(); ++j) {
            if (!taken[j] && pending[j].comm == pending[i].comm && pending[j].stream == pending[i].stream) {
                ops.push_back(pending[j].op);
                taken[j] = true;
            }
        }
        submit(pending[i].comm, pending[i].stream, std::move(ops));
    }
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

void fillCclTable(infiniBackend_t &t) { INFINI_BACKEND_FILL_CCL(t); }

}  // namespace infini::cpu
