// ProcessGroupInfiniCCL.cpp: the torch.distributed backend "infiniccl", a c10d::Backend over infiniccl.
//
// One communicator per device a group uses, made at the first collective on that device (rank 0 makes
// the unique id, the group's store carries it). Every collective runs on a communication stream of the
// device (one per group and device): that stream first waits for the caller's current stream, and a
// Work ends with an event on it. Work::wait() makes the caller's current stream wait for that event;
// on the CPU backend (whose "device" is the host) and with INFINICCL_BLOCKING_WAIT=1 it also waits on
// the host and raises the communicator's failure (a timeout, a peer that exited), so a failed
// collective is an exception, not silent garbage. Tensors used by a collective are recorded on the
// communication stream, so the caching allocator keeps them until the collective has run.
//
// Faults (Watchdog.h): the group's watchdog fails the group when a communicator reports an error or a
// work does not complete within the group's timeout; abort() fails it on request. A failed group has
// aborted its communicators; wait() on any of its works that had not completed, and every later
// collective, raise DistBackendError with the reason. shutdown() (dist.destroy_process_group) stops the
// watchdog and destroys the communicators; later collectives raise. The destructor shuts down.
//
// A receive from any source (dist.recv without src) on the CPU backend: every send of the group, once
// queued, adds one to the store's counter of its (sender, receiver) pair, and every receive counts, per
// sender, the sends it has claimed. recvAnysource waits on the host until some sender's counter
// exceeds its claimed count, claims that sender's next message and receives it from that rank. Messages of
// one sender arrive in issue order and the ranks issue matching operations in one order, so the claimed
// message is the next one of that sender's channel. Other backends keep sends free of store traffic and
// refuse a receive from any source.
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/csrc/utils/pybind.h>

#include <infini/infiniccl.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "../ops/OpRunner.h"
#include "Watchdog.h"
#include "../runtime/InfiniFunctions.h"
#include "../runtime/InfiniStream.h"

namespace infini_torch::distributed {
namespace {

using c10d::OpType;

// Raises torch.distributed.DistBackendError with the library's message.
[[noreturn]] void raiseComm(const char *op, infiniStatus_t status) {
    std::string msg = infiniGetLastErrorMessage();
    C10_THROW_ERROR(DistBackendError, c10::str("infiniccl ", op, ": ", msg, " [", infiniGetStatusString(status), "]"));
}

#define CCL_CHECK(op, expr)                                               \
    do {                                                                  \
        infiniStatus_t s_ = (expr);                                       \
        if (C10_UNLIKELY(s_ != INFINI_STATUS_SUCCESS)) raiseComm(op, s_); \
    } while (0)

infinicclReduceOp_t toReduceOp(const char *op, const c10d::ReduceOp &r) {
    switch (r.op_) {
        case c10d::ReduceOp::SUM: return INFINICCL_SUM;
        case c10d::ReduceOp::PRODUCT: return INFINICCL_PROD;
        case c10d::ReduceOp::MIN: return INFINICCL_MIN;
        case c10d::ReduceOp::MAX: return INFINICCL_MAX;
        case c10d::ReduceOp::AVG: return INFINICCL_AVG;
        case c10d::ReduceOp::BAND: return INFINICCL_BAND;
        case c10d::ReduceOp::BOR: return INFINICCL_BOR;
        case c10d::ReduceOp::BXOR: return INFINICCL_BXOR;
        case c10d::ReduceOp::PREMUL_SUM: return INFINICCL_SUM;  // the inputs scaled first (premul)
        default:
            TORCH_CHECK(false, "infiniccl ", op, ": reduce op ", static_cast<int>(r.op_),
                        " is not supported (SUM, PRODUCT, MIN, MAX, AVG, BAND, BOR, BXOR and PREMUL_SUM are)");
    }
}

// PREMUL_SUM: the input times the op's factor (a copy, made on the stream that runs the collective), else the input.
at::Tensor premul(const c10d::ReduceOp &r, const at::Tensor &t) {
    if (r.op_ != c10d::ReduceOp::PREMUL_SUM) return t;
    auto *sup = dynamic_cast<c10d::NCCLPreMulSumSupplement *>(r.supplement_.get());
    TORCH_CHECK(sup != nullptr, "infiniccl: PREMUL_SUM without its factor (make it with _make_nccl_premul_sum)");
    if (sup->tensor_factor.defined()) return t * sup->tensor_factor.to(t.device(), t.scalar_type());
    return (t * sup->double_factor).to(t.scalar_type());
}

bool blockingWaitFromEnv() {
    const char *env = std::getenv("INFINICCL_BLOCKING_WAIT");
    return env != nullptr && env[0] == '1';
}

class WorkInfiniCCL : public c10d::Work {
   public:
    WorkInfiniCCL(int rank, OpType type, c10::Device device, std::shared_ptr<Completion> done, infinicclComm_t comm,
                  bool blocking, std::vector<at::Tensor> outputs)
        : c10d::Work(rank, type),
          device_(device),
          done_(std::move(done)),
          comm_(comm),
          blocking_(blocking),
          outputs_(std::move(outputs)) {}

    bool isCompleted() override { return done_->failed() || done_->reached(); }

    bool isSuccess() const override {
        if (done_->failed()) return false;
        infiniStatus_t err = INFINI_STATUS_SUCCESS;
        infinicclCommGetAsyncError(comm_, &err);
        return err == INFINI_STATUS_SUCCESS;
    }

    // A work the group's failure caught raises its reason. A host wait (blocking, or with a timeout) ends:
    // the watchdog aborts the communicators of a work that outlives the group's timeout, which ends it.
    bool wait(std::chrono::milliseconds timeout) override {
        TORCH_CHECK(done_->end != nullptr, "infiniccl: wait() on a work of a coalescing block that has not ended");
        raiseIfFailed();
        c10::DeviceGuard guard(device_);
        if (blocking_ || timeout != kNoTimeout) {
            if (timeout == kNoTimeout) {
                infiniStatus_t s = infinirtEventSynchronize(done_->end);
                raiseIfFailed();
                CCL_CHECK("wait", s);
            } else {
                auto limit = std::chrono::steady_clock::now() + timeout;
                while (!isCompleted()) {
                    if (std::chrono::steady_clock::now() >= limit) {
                        C10_THROW_ERROR(DistBackendError, c10::str("infiniccl: the work did not complete within ",
                                                                   timeout.count(), " ms"));
                    }
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                }
                raiseIfFailed();
            }
            infiniStatus_t err = INFINI_STATUS_SUCCESS;
            CCL_CHECK("wait", infinicclCommGetAsyncError(comm_, &err));
            if (err != INFINI_STATUS_SUCCESS) raiseComm(opTypeToString(opType_).c_str(), err);
        }
        infinirtStream_t caller = native_stream(getCurrentStream(device_.index()));
        CCL_CHECK("wait", infinirtStreamWaitEvent(caller, done_->end));
        return true;
    }

    void synchronize() override { wait(kNoTimeout); }

    std::vector<at::Tensor> result() override { return outputs_; }

    int sourceRank() const override {
        TORCH_CHECK(source_ >= 0, "infiniccl: only a receive from any source has a source rank");
        return source_;
    }

    int source_ = -1;  // the sender a receive from any source took its message from

    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override {
        TORCH_CHECK(done_->future, "infiniccl: the future of a work of a coalescing block exists once the block ends");
        return done_->future;
    }

   private:
    void raiseIfFailed() const {
        if (done_->failed()) C10_THROW_ERROR(DistBackendError, done_->failure());
    }

    c10::Device device_;
    std::shared_ptr<Completion> done_;
    infinicclComm_t comm_;
    bool blocking_;
    std::vector<at::Tensor> outputs_;
};

class ProcessGroupInfiniCCL : public c10d::Backend {
   public:
    ProcessGroupInfiniCCL(c10::intrusive_ptr<c10d::Store> store, int rank, int size, std::chrono::milliseconds timeout)
        : c10d::Backend(rank, size),
          store_(std::move(store)),
          timeout_(timeout),
          blocking_(backendType() == INFINI_DEVICE_CPU || blockingWaitFromEnv()),
          any_source_(backendType() == INFINI_DEVICE_CPU),
          claimed_(size, 0),
          watchdog_(rank, timeout) {}

    ~ProcessGroupInfiniCCL() override {
        try {
            shutdown();
        } catch (...) {  // a destructor does not throw
        }
    }

    // Fails the group (its communicators aborted, unfinished works failed, later collectives refused) and
    // stops the watchdog; the communicators are destroyed by shutdown() or the destructor.
    void abort() override {
        watchdog_.failGroup(c10::str("infiniccl: the group was aborted on rank ", rank_, " (ProcessGroup.abort())"));
        watchdog_.stop();
    }

    // Stops the watchdog and destroys the communicators (a backend bounds the wait for queued work by the
    // communicator's timeout); later collectives raise. Idempotent.
    void shutdown() override {
        std::lock_guard<std::mutex> lock(mu_);
        if (shut_down_.exchange(true)) return;
        watchdog_.stop();
        for (auto &kv : devices_) {
            c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, kv.first));
            infinicclCommDestroy(kv.second.comm);
        }
        devices_.clear();
    }

    const std::string getBackendName() const override { return "infiniccl"; }

    bool supportsCoalescing() const override { return true; }

    // Calls until endCoalescing are issued as one infiniccl group (send/recv pairs cannot deadlock) and
    // share one Work.
    void startCoalescing() override {
        TORCH_CHECK(!coalescing_, "infiniccl: coalescing blocks do not nest");
        CCL_CHECK("start_coalescing", infinicclGroupStart());
        coalescing_ = true;
        coalesced_ = std::make_shared<Completion>();
        coalesced_outputs_.clear();
        coalesced_device_.reset();
    }

    c10::intrusive_ptr<c10d::Work> endCoalescing() override {
        TORCH_CHECK(coalescing_, "infiniccl: endCoalescing without startCoalescing");
        coalescing_ = false;
        CCL_CHECK("end_coalescing", infinicclGroupEnd());
        c10::Device device = coalesced_device_.value_or(c10::Device(c10::DeviceType::PrivateUse1, current_device()));
        DeviceState &st = state(device);
        finish("coalesced", device, st, coalesced_outputs_, coalesced_);
        return c10::make_intrusive<WorkInfiniCCL>(rank_, OpType::COALESCED, device, coalesced_, st.comm, blocking_,
                                                  std::move(coalesced_outputs_));
    }

    void setTimeout(std::chrono::milliseconds timeout) override {
        std::lock_guard<std::mutex> lock(mu_);
        timeout_ = timeout;
        watchdog_.setTimeout(timeout);
        for (auto &kv : devices_) infinicclCommSetTimeout(kv.second.comm, static_cast<uint64_t>(timeout.count()));
    }

    c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &tensors,
                                             const c10d::BroadcastOptions &opts) override {
        const char *op = "broadcast";
        at::Tensor t = single(op, tensors);
        checkRoot(op, opts.rootRank);
        return run(op, OpType::BROADCAST, {t}, {t}, [&](infinicclComm_t c, infinirtStream_t s) {
            CCL_CHECK(op, infinicclBroadcast(t.data_ptr(), t.data_ptr(), t.numel(), dtypeOf(t), opts.rootRank, c, s));
        });
    }

    c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &tensors,
                                             const c10d::AllreduceOptions &opts) override {
        const char *op = "allreduce";
        at::Tensor t = single(op, tensors);
        auto r = toReduceOp(op, opts.reduceOp);
        return run(op, OpType::ALLREDUCE, {t}, {t}, [&](infinicclComm_t c, infinirtStream_t s) {
            at::Tensor in = premul(opts.reduceOp, t);
            CCL_CHECK(op, infinicclAllReduce(in.data_ptr(), t.data_ptr(), t.numel(), dtypeOf(t), r, c, s));
        });
    }

    c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor> &tensors,
                                                       const c10d::AllreduceCoalescedOptions &opts) override {
        const char *op = "allreduce_coalesced";
        checkTensors(op, tensors);
        auto r = toReduceOp(op, opts.reduceOp);
        return run(op, OpType::ALLREDUCE_COALESCED, tensors, tensors, [&](infinicclComm_t c, infinirtStream_t s) {
            Group g(op);
            std::vector<at::Tensor> ins;  // (alive until the group is issued)
            for (auto &t : tensors) ins.push_back(premul(opts.reduceOp, t));
            for (size_t i = 0; i < tensors.size(); ++i) {
                at::Tensor &t = tensors[i];
                CCL_CHECK(op, infinicclAllReduce(ins[i].data_ptr(), t.data_ptr(), t.numel(), dtypeOf(t), r, c, s));
            }
        });
    }

    c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &tensors, const c10d::ReduceOptions &opts) override {
        const char *op = "reduce";
        at::Tensor t = single(op, tensors);
        checkRoot(op, opts.rootRank);
        auto r = toReduceOp(op, opts.reduceOp);
        return run(op, OpType::REDUCE, {t}, {t}, [&](infinicclComm_t c, infinirtStream_t s) {
            at::Tensor in = premul(opts.reduceOp, t);
            CCL_CHECK(op, infinicclReduce(in.data_ptr(), t.data_ptr(), t.numel(), dtypeOf(t), r, opts.rootRank, c, s));
        });
    }

    c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>> &outputs,
                                             std::vector<at::Tensor> &inputs,
                                             const c10d::AllgatherOptions &opts) override {
        const char *op = "allgather";
        at::Tensor in = single(op, inputs);
        TORCH_CHECK(outputs.size() == 1, "infiniccl ", op, ": expects one list of output tensors");
        std::vector<at::Tensor> &outs = outputs[0];
        checkList(op, "output", outs, in);
        bool even = true;
        for (auto &o : outs) even = even && o.numel() == in.numel() && o.scalar_type() == in.scalar_type();
        if (!even) {
            // sizes differ by rank: each rank's tensor is broadcast from it
            return run(op, OpType::ALLGATHER, {in}, outs, [&](infinicclComm_t c, infinirtStream_t s) {
                Group g(op);
                for (int j = 0; j < size_; ++j) {
                    at::Tensor &o = outs[j];
                    if (j == rank_) {
                        TORCH_CHECK(o.numel() == in.numel(), "infiniccl ", op, ": output ", j, " has ", o.numel(),
                                    " elements, this rank's input ", in.numel());
                        CCL_CHECK(op, infinicclBroadcast(in.data_ptr(), o.data_ptr(), o.numel(), dtypeOf(o), j, c, s));
                    } else {
                        CCL_CHECK(op, infinicclBroadcast(nullptr, o.data_ptr(), o.numel(), dtypeOf(o), j, c, s));
                    }
                }
            });
        }
        at::Tensor flat;
        return run(
            op, OpType::ALLGATHER, {in}, outs,
            [&](infinicclComm_t c, infinirtStream_t s) {
                flat = at::empty({static_cast<int64_t>(size_) * in.numel()}, in.options());
                CCL_CHECK(op, infinicclAllGather(in.data_ptr(), flat.data_ptr(), in.numel(), dtypeOf(in), c, s));
            },
            [&] {
                for (int j = 0; j < size_; ++j) outs[j].view({-1}).copy_(flat.narrow(0, j * in.numel(), in.numel()));
            });
    }

    c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &output, at::Tensor &input,
                                                   const c10d::AllgatherOptions &opts) override {
        const char *op = "all_gather_into_tensor";
        checkTensors(op, {output, input});
        TORCH_CHECK(output.numel() == input.numel() * size_, "infiniccl ", op, ": the output has ", output.numel(),
                    " elements, it needs ", input.numel() * size_, " (input elements x world size)");
        TORCH_CHECK(output.scalar_type() == input.scalar_type(), "infiniccl ", op, ": dtypes differ");
        return run(op, OpType::_ALLGATHER_BASE, {input}, {output}, [&](infinicclComm_t c, infinirtStream_t s) {
            CCL_CHECK(op, infinicclAllGather(input.data_ptr(), output.data_ptr(), input.numel(), dtypeOf(input), c, s));
        });
    }

    c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                                                   std::vector<at::Tensor> &inputs,
                                                                   const c10d::AllgatherOptions &opts) override {
        const char *op = "allgather_into_tensor_coalesced";
        TORCH_CHECK(outputs.size() == inputs.size(), "infiniccl ", op, ": as many outputs as inputs are needed");
        checkTensors(op, inputs);
        checkTensors(op, outputs);
        for (size_t i = 0; i < inputs.size(); ++i) {
            TORCH_CHECK(outputs[i].numel() == inputs[i].numel() * size_, "infiniccl ", op, ": output ", i,
                        " needs input elements x world size");
        }
        return run(op, OpType::COALESCED, inputs, outputs, [&](infinicclComm_t c, infinirtStream_t s) {
            Group g(op);
            for (size_t i = 0; i < inputs.size(); ++i) {
                CCL_CHECK(op, infinicclAllGather(inputs[i].data_ptr(), outputs[i].data_ptr(), inputs[i].numel(),
                                                 dtypeOf(inputs[i]), c, s));
            }
        });
    }

    c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor> &outputs,
                                                  std::vector<std::vector<at::Tensor>> &inputs,
                                                  const c10d::ReduceScatterOptions &opts) override {
        const char *op = "reduce_scatter";
        at::Tensor out = single(op, outputs);
        TORCH_CHECK(inputs.size() == 1, "infiniccl ", op, ": expects one list of input tensors");
        std::vector<at::Tensor> &ins = inputs[0];
        checkList(op, "input", ins, out);
        auto r = toReduceOp(op, opts.reduceOp);
        bool even = true;
        for (auto &i : ins) even = even && i.numel() == out.numel() && i.scalar_type() == out.scalar_type();
        if (!even) {
            // sizes differ by rank: block j is reduced to rank j
            TORCH_CHECK(ins[rank_].numel() == out.numel(), "infiniccl ", op, ": input ", rank_, " has ",
                        ins[rank_].numel(), " elements, the output ", out.numel());
            return run(op, OpType::REDUCE_SCATTER, ins, {out}, [&](infinicclComm_t c, infinirtStream_t s) {
                std::vector<at::Tensor> scaled;  // (alive until the group is issued)
                for (auto &i : ins) scaled.push_back(premul(opts.reduceOp, i));
                Group g(op);
                for (int j = 0; j < size_; ++j) {
                    void *dst = j == rank_ ? out.data_ptr() : nullptr;
                    CCL_CHECK(op, infinicclReduce(scaled[j].data_ptr(), dst, ins[j].numel(), dtypeOf(out), r, j, c, s));
                }
            });
        }
        at::Tensor flat;
        return run(op, OpType::REDUCE_SCATTER, ins, {out}, [&](infinicclComm_t c, infinirtStream_t s) {
            flat = at::empty({static_cast<int64_t>(size_) * out.numel()}, out.options());
            for (int j = 0; j < size_; ++j) flat.narrow(0, j * out.numel(), out.numel()).copy_(ins[j].reshape({-1}));
            flat = premul(opts.reduceOp, flat);
            CCL_CHECK(op, infinicclReduceScatter(flat.data_ptr(), out.data_ptr(), out.numel(), dtypeOf(out), r, c, s));
        });
    }

    c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                                                        const c10d::ReduceScatterOptions &opts) override {
        const char *op = "reduce_scatter_tensor";
        checkTensors(op, {output, input});
        TORCH_CHECK(input.numel() == output.numel() * size_, "infiniccl ", op, ": the input has ", input.numel(),
                    " elements, it needs ", output.numel() * size_, " (output elements x world size)");
        TORCH_CHECK(output.scalar_type() == input.scalar_type(), "infiniccl ", op, ": dtypes differ");
        auto r = toReduceOp(op, opts.reduceOp);
        return run(op, OpType::_REDUCE_SCATTER_BASE, {input}, {output}, [&](infinicclComm_t c, infinirtStream_t s) {
            at::Tensor in = premul(opts.reduceOp, input);
            CCL_CHECK(
                op, infinicclReduceScatter(in.data_ptr(), output.data_ptr(), output.numel(), dtypeOf(output), r, c, s));
        });
    }

    c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                                                   std::vector<at::Tensor> &inputs,
                                                                   const c10d::ReduceScatterOptions &opts) override {
        const char *op = "reduce_scatter_tensor_coalesced";
        TORCH_CHECK(outputs.size() == inputs.size(), "infiniccl ", op, ": as many outputs as inputs are needed");
        checkTensors(op, inputs);
        checkTensors(op, outputs);
        auto r = toReduceOp(op, opts.reduceOp);
        for (size_t i = 0; i < inputs.size(); ++i) {
            TORCH_CHECK(inputs[i].numel() == outputs[i].numel() * size_, "infiniccl ", op, ": input ", i,
                        " needs output elements x world size");
        }
        return run(op, OpType::COALESCED, inputs, outputs, [&](infinicclComm_t c, infinirtStream_t s) {
            std::vector<at::Tensor> scaled;  // (alive until the group is issued)
            for (auto &i : inputs) scaled.push_back(premul(opts.reduceOp, i));
            Group g(op);
            for (size_t i = 0; i < inputs.size(); ++i) {
                CCL_CHECK(op, infinicclReduceScatter(scaled[i].data_ptr(), outputs[i].data_ptr(), outputs[i].numel(),
                                                     dtypeOf(outputs[i]), r, c, s));
            }
        });
    }

    c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>> &outputs,
                                          std::vector<at::Tensor> &inputs, const c10d::GatherOptions &opts) override {
        const char *op = "gather";
        at::Tensor in = single(op, inputs);
        checkRoot(op, opts.rootRank);
        const int root = static_cast<int>(opts.rootRank);
        std::vector<at::Tensor> outs;
        if (rank_ == root) {
            TORCH_CHECK(outputs.size() == 1, "infiniccl ", op, ": the root expects one list of output tensors");
            outs = outputs[0];
            checkList(op, "output", outs, in);
            for (auto &o : outs) {
                TORCH_CHECK(o.numel() == in.numel(), "infiniccl ", op, ": every output needs ", in.numel(),
                            " elements");
            }
        } else {
            TORCH_CHECK(outputs.empty() || outputs[0].empty(), "infiniccl ", op,
                        ": only the root rank takes output tensors");
        }
        return run(
            op, OpType::GATHER, {in}, outs,
            [&](infinicclComm_t c, infinirtStream_t s) {
                if (rank_ != root) {
                    CCL_CHECK(op, infinicclSend(in.data_ptr(), in.numel(), dtypeOf(in), root, c, s));
                    return;
                }
                Group g(op);
                for (int j = 0; j < size_; ++j) {
                    if (j == root) continue;
                    CCL_CHECK(op, infinicclRecv(outs[j].data_ptr(), outs[j].numel(), dtypeOf(in), j, c, s));
                }
            },
            [&] {
                if (rank_ == root) outs[root].copy_(in.view(outs[root].sizes()));
            });
    }

    c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor> &outputs,
                                           std::vector<std::vector<at::Tensor>> &inputs,
                                           const c10d::ScatterOptions &opts) override {
        const char *op = "scatter";
        at::Tensor out = single(op, outputs);
        checkRoot(op, opts.rootRank);
        const int root = static_cast<int>(opts.rootRank);
        std::vector<at::Tensor> ins;
        if (rank_ == root) {
            TORCH_CHECK(inputs.size() == 1, "infiniccl ", op, ": the root expects one list of input tensors");
            ins = inputs[0];
            checkList(op, "input", ins, out);
            for (auto &i : ins) {
                TORCH_CHECK(i.numel() == out.numel(), "infiniccl ", op, ": every input needs ", out.numel(),
                            " elements");
            }
        } else {
            TORCH_CHECK(inputs.empty() || inputs[0].empty(), "infiniccl ", op,
                        ": only the root rank takes input tensors");
        }
        return run(
            op, OpType::SCATTER, ins, {out},
            [&](infinicclComm_t c, infinirtStream_t s) {
                if (rank_ != root) {
                    CCL_CHECK(op, infinicclRecv(out.data_ptr(), out.numel(), dtypeOf(out), root, c, s));
                    return;
                }
                Group g(op);
                for (int j = 0; j < size_; ++j) {
                    if (j == root) continue;
                    CCL_CHECK(op, infinicclSend(ins[j].data_ptr(), ins[j].numel(), dtypeOf(out), j, c, s));
                }
            },
            [&] {
                if (rank_ == root) out.copy_(ins[root].view(out.sizes()));
            });
    }

    c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &output, at::Tensor &input,
                                                 std::vector<int64_t> &outputSplitSizes,
                                                 std::vector<int64_t> &inputSplitSizes,
                                                 const c10d::AllToAllOptions &opts) override {
        const char *op = "all_to_all_single";
        checkTensors(op, {output, input});
        TORCH_CHECK(output.scalar_type() == input.scalar_type(), "infiniccl ", op, ": dtypes differ");
        auto offsets = [&](const at::Tensor &t, const std::vector<int64_t> &splits, const char *what) {
            const int64_t rows = t.dim() == 0 ? 1 : t.size(0);
            const int64_t row = rows == 0 ? 0 : t.numel() / rows;
            std::vector<int64_t> counts(size_), starts(size_);
            if (splits.empty()) {
                TORCH_CHECK(rows % size_ == 0, "infiniccl ", op, ": the ", what, "'s first dimension (", rows,
                            ") does not divide by the world size ", size_);
                for (int j = 0; j < size_; ++j) counts[j] = rows / size_ * row;
            } else {
                TORCH_CHECK(static_cast<int>(splits.size()) == size_, "infiniccl ", op, ": ", what,
                            " split sizes need one entry per rank");
                int64_t total = 0;
                for (int j = 0; j < size_; ++j) {
                    TORCH_CHECK(splits[j] >= 0, "infiniccl ", op, ": negative split size");
                    counts[j] = splits[j] * row;
                    total += splits[j];
                }
                TORCH_CHECK(total == rows, "infiniccl ", op, ": the ", what, " split sizes add up to ", total,
                            ", the first dimension is ", rows);
            }
            int64_t acc = 0;
            for (int j = 0; j < size_; ++j) {
                starts[j] = acc;
                acc += counts[j];
            }
            return std::make_pair(counts, starts);
        };
        auto [in_counts, in_starts] = offsets(input, inputSplitSizes, "input");
        auto [out_counts, out_starts] = offsets(output, outputSplitSizes, "output");
        TORCH_CHECK(in_counts[rank_] == out_counts[rank_], "infiniccl ", op,
                    ": this rank sends itself a different number of elements than it receives");
        const size_t es = input.element_size();
        auto dt = dtypeOf(input);
        return run(op, OpType::ALLTOALL_BASE, {input}, {output}, [&](infinicclComm_t c, infinirtStream_t s) {
            char *in = static_cast<char *>(input.data_ptr());
            char *out = static_cast<char *>(output.data_ptr());
            if (in_counts[rank_] > 0) {
                CCL_CHECK(op, infinirtMemcpyAsync(out + out_starts[rank_] * es, in + in_starts[rank_] * es,
                                                  in_counts[rank_] * es, INFINIRT_MEMCPY_D2D, s));
            }
            Group g(op);
            for (int j = 0; j < size_; ++j) {
                if (j == rank_) continue;
                CCL_CHECK(op, infinicclSend(in + in_starts[j] * es, in_counts[j], dt, j, c, s));
                CCL_CHECK(op, infinicclRecv(out + out_starts[j] * es, out_counts[j], dt, j, c, s));
            }
        });
    }

    c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor> &outputs, std::vector<at::Tensor> &inputs,
                                            const c10d::AllToAllOptions &opts) override {
        const char *op = "all_to_all";
        TORCH_CHECK(static_cast<int>(outputs.size()) == size_ && static_cast<int>(inputs.size()) == size_, "infiniccl ",
                    op, ": one input and one output tensor per rank are needed");
        checkTensors(op, inputs);
        checkTensors(op, outputs);
        TORCH_CHECK(outputs[rank_].numel() == inputs[rank_].numel(), "infiniccl ", op,
                    ": this rank's own input and output differ in size");
        return run(
            op, OpType::ALLTOALL, inputs, outputs,
            [&](infinicclComm_t c, infinirtStream_t s) {
                Group g(op);
                for (int j = 0; j < size_; ++j) {
                    if (j == rank_) continue;
                    CCL_CHECK(op, infinicclSend(inputs[j].data_ptr(), inputs[j].numel(), dtypeOf(inputs[j]), j, c, s));
                    CCL_CHECK(op,
                              infinicclRecv(outputs[j].data_ptr(), outputs[j].numel(), dtypeOf(outputs[j]), j, c, s));
                }
            },
            [&] { outputs[rank_].copy_(inputs[rank_]); });
    }

    c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors, int dstRank, int tag) override {
        const char *op = "send";
        at::Tensor t = single(op, tensors);
        checkPeer(op, dstRank);
        auto work = run(op, OpType::SEND, {t}, {}, [&](infinicclComm_t c, infinirtStream_t s) {
            CCL_CHECK(op, infinicclSend(t.data_ptr(), t.numel(), dtypeOf(t), dstRank, c, s));
        });
        if (any_source_) store_->add(sendsKey(rank_, dstRank), 1);
        return work;
    }

    c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors, int srcRank, int tag) override {
        const char *op = "recv";
        at::Tensor t = single(op, tensors);
        checkPeer(op, srcRank);
        auto work = run(op, OpType::RECV, {}, {t}, [&](infinicclComm_t c, infinirtStream_t s) {
            CCL_CHECK(op, infinicclRecv(t.data_ptr(), t.numel(), dtypeOf(t), srcRank, c, s));
        });
        ++claimed_[srcRank];
        return work;
    }

    // Blocks the host until a sender's message is known to be issued (or the group's timeout passes), then
    // receives it like recv(src) from that sender; the Work's sourceRank() names it.
    c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &tensors, int tag) override {
        const char *op = "recv";
        TORCH_CHECK(any_source_,
                    "infiniccl recv: a receive from any source needs the CPU backend (there every send counts "
                    "itself in the group's store); on this backend name the source rank");
        TORCH_CHECK(!coalescing_, "infiniccl recv: a receive from any source cannot be part of a coalescing block");
        at::Tensor t = single(op, tensors);
        TORCH_CHECK(size_ > 1, "infiniccl recv: a one-rank group has no other rank to receive from");
        const auto deadline = std::chrono::steady_clock::now() + timeout_;
        int src = -1;
        for (auto pause = std::chrono::microseconds(50); src < 0; pause = std::min(pause * 2, kMaxPoll)) {
            for (int k = 1; k < size_ && src < 0; ++k) {
                const int peer = (rank_ + k) % size_;
                if (store_->add(sendsKey(peer, rank_), 0) > claimed_[peer]) src = peer;
            }
            if (src >= 0) break;
            if (std::chrono::steady_clock::now() >= deadline) {
                C10_THROW_ERROR(DistBackendError, c10::str("infiniccl recv: no rank sent to rank ", rank_, " within ",
                                                           timeout_.count(), " ms (a receive from any source)"));
            }
            std::this_thread::sleep_for(pause);
        }
        auto work = recv(tensors, src, tag);
        c10::static_intrusive_pointer_cast<WorkInfiniCCL>(work)->source_ = src;
        return work;
    }

    c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override {
        c10::Device device(c10::DeviceType::PrivateUse1, current_device());
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (!devices_.empty()) device = c10::Device(c10::DeviceType::PrivateUse1, devices_.begin()->first);
        }
        if (opts.device.has_value() && opts.device->type() == c10::DeviceType::PrivateUse1) device = *opts.device;
        at::Tensor t = at::empty({1}, at::TensorOptions().dtype(at::kInt).device(device));
        const char *op = "barrier";
        auto work = run(op, OpType::BARRIER, {t}, {t}, [&](infinicclComm_t c, infinirtStream_t s) {
            CCL_CHECK(op, infinicclAllReduce(t.data_ptr(), t.data_ptr(), 1, INFINI_DTYPE_I32, INFINICCL_SUM, c, s));
        });
        return work;
    }

   private:
    // Issues the calls of a body between infinicclGroupStart and infinicclGroupEnd.
    struct Group {
        explicit Group(const char *op) : op_(op) { CCL_CHECK(op_, infinicclGroupStart()); }
        ~Group() noexcept(false) {
            infiniStatus_t s = infinicclGroupEnd();
            if (s != INFINI_STATUS_SUCCESS && !std::uncaught_exceptions()) raiseComm(op_, s);
        }
        const char *op_;
    };

    struct DeviceState {
        infinicclComm_t comm = nullptr;
        c10::Stream stream = c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::DeviceType::PrivateUse1, 0));
    };

    static infiniDtype_t dtypeOf(const at::Tensor &t) { return ops::toInfiniDtype(t.scalar_type()); }

    static constexpr std::chrono::microseconds kMaxPoll{2000};  // the longest pause between store polls

    // The store's counter of the sends issued from rank `from` to rank `to` in this group.
    static std::string sendsKey(int from, int to) {
        return "infiniccl_sends_" + std::to_string(from) + "_" + std::to_string(to);
    }

    void checkTensors(const char *op, at::ArrayRef<at::Tensor> tensors) {
        TORCH_CHECK(!tensors.empty(), "infiniccl ", op, ": no tensors given");
        const c10::Device device = tensors[0].device();
        for (const at::Tensor &t : tensors) {
            TORCH_CHECK(t.defined(), "infiniccl ", op, ": undefined tensor");
            TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, "infiniccl ", op,
                        ": tensors must be on the infini device, got one on ", t.device(),
                        " (use a \"cpu:gloo,infini:infiniccl\" group for CPU tensors)");
            TORCH_CHECK(t.device() == device, "infiniccl ", op, ": tensors on ", device, " and ", t.device(),
                        " (one device per call)");
            TORCH_CHECK(t.is_non_overlapping_and_dense() && t.is_contiguous(), "infiniccl ", op,
                        ": tensors must be contiguous");
            (void)dtypeOf(t);
        }
    }

    at::Tensor single(const char *op, std::vector<at::Tensor> &tensors) {
        TORCH_CHECK(tensors.size() == 1, "infiniccl ", op, ": expects exactly one tensor per rank, got ",
                    tensors.size());
        checkTensors(op, tensors);
        return tensors[0];
    }

    void checkList(const char *op, const char *what, std::vector<at::Tensor> &list, const at::Tensor &like) {
        TORCH_CHECK(static_cast<int>(list.size()) == size_, "infiniccl ", op, ": the ", what, " list has ", list.size(),
                    " tensors, the world size is ", size_);
        std::vector<at::Tensor> all = list;
        all.push_back(like);
        checkTensors(op, all);
        for (auto &t : list) {
            TORCH_CHECK(t.scalar_type() == like.scalar_type(), "infiniccl ", op, ": ", what, " dtype ", t.scalar_type(),
                        " differs from ", like.scalar_type());
        }
    }

    void checkRoot(const char *op, int64_t root) {
        TORCH_CHECK(root >= 0 && root < size_, "infiniccl ", op, ": root rank ", root, " is not in [0, ", size_, ")");
    }

    void checkPeer(const char *op, int peer) {
        TORCH_CHECK(peer >= 0 && peer < size_, "infiniccl ", op, ": peer rank ", peer, " is not in [0, ", size_, ")");
        TORCH_CHECK(peer != rank_, "infiniccl ", op, ": rank ", rank_, " cannot ", op, " to or from itself");
    }

    // The device's communicator and stream, made at its first use (every rank must reach it).
    DeviceState &state(c10::Device device) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = devices_.find(device.index());
        if (it != devices_.end()) return it->second;
        c10::DeviceGuard guard(device);
        const std::string key = "infiniccl_unique_id_" + std::to_string(comms_made_++);
        infinicclUniqueId id;
        if (rank_ == 0) {
            CCL_CHECK("init", infinicclGetUniqueId(backendType(), &id));
            std::vector<uint8_t> bytes(reinterpret_cast<uint8_t *>(&id), reinterpret_cast<uint8_t *>(&id) + sizeof(id));
            store_->set(key, bytes);
        } else {
            std::vector<uint8_t> bytes = store_->get(key);
            TORCH_CHECK(bytes.size() == sizeof(id), "infiniccl init: the store holds a malformed unique id");
            std::memcpy(&id, bytes.data(), sizeof(id));
        }
        DeviceState st;
        st.stream = getStreamFromPool(device.index());
        CCL_CHECK("init", infinicclCommInitRank(&st.comm, size_, id, rank_));
        DeviceState &made = devices_.emplace(device.index(), st).first->second;  // shutdown destroys it
        watchdog_.addComm(st.comm, device);
        CCL_CHECK("init", infinicclCommSetTimeout(st.comm, static_cast<uint64_t>(timeout_.count())));
        return made;
    }

    // Runs a collective: the communication stream waits for the caller's stream, body issues the
    // infiniccl calls on it, after() runs torch ops there (copies out of staging tensors), and the
    // Work ends with an event on it.
    template <typename Body, typename After = void (*)()>
    c10::intrusive_ptr<c10d::Work> run(
        const char *op, OpType type, std::vector<at::Tensor> inputs, std::vector<at::Tensor> outputs, Body body,
        After after = [] {}) {
        checkUsable(op);
        const std::vector<at::Tensor> &any = !inputs.empty() ? inputs : outputs;
        TORCH_CHECK(!any.empty(), "infiniccl ", op, ": no tensors given");
        const c10::Device device = any[0].device();
        DeviceState &st = state(device);
        c10::DeviceGuard guard(device);
        infinirtStream_t comm_stream = native_stream(st.stream);
        infinirtEvent_t ready = nullptr;
        CCL_CHECK(op, infinirtEventCreateWithFlags(&ready, INFINIRT_EVENT_DISABLE_TIMING));
        infiniStatus_t s1 = infinirtEventRecord(ready, native_stream(getCurrentStream(device.index())));
        infiniStatus_t s2 = s1 == INFINI_STATUS_SUCCESS ? infinirtStreamWaitEvent(comm_stream, ready) : s1;
        infinirtEventDestroy(ready);
        CCL_CHECK(op, s2);
        {
            c10::StreamGuard on_comm(st.stream);  // staging tensors and copies belong to the comm stream
            body(st.comm, comm_stream);
            after();
        }
        auto *impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::PrivateUse1);
        for (const auto *list : {&inputs, &outputs}) {
            for (const at::Tensor &t : *list) impl->recordDataPtrOnStream(t.storage().data_ptr(), st.stream);
        }
        if (coalescing_) {
            TORCH_CHECK(!coalesced_device_ || *coalesced_device_ == device, "infiniccl ", op,
                        ": one coalescing block uses one device (", *coalesced_device_, " and ", device, ")");
            coalesced_device_ = device;
            coalesced_outputs_.insert(coalesced_outputs_.end(), outputs.begin(), outputs.end());
            return c10::make_intrusive<WorkInfiniCCL>(rank_, type, device, coalesced_, st.comm, blocking_,
                                                      std::move(outputs));
        }
        auto done = std::make_shared<Completion>();
        finish(op, device, st, outputs, done);
        const bool blocking = blocking_ || type == OpType::BARRIER;
        return c10::make_intrusive<WorkInfiniCCL>(rank_, type, device, std::move(done), st.comm, blocking,
                                                  std::move(outputs));
    }

    // Refuses a collective on a failed or shut-down group.
    void checkUsable(const char *op) {
        if (C10_UNLIKELY(watchdog_.failed())) {
            C10_THROW_ERROR(DistBackendError,
                            c10::str("infiniccl ", op, ": the group has failed: ", watchdog_.failure()));
        }
        if (C10_UNLIKELY(shut_down_.load(std::memory_order_acquire))) {
            C10_THROW_ERROR(DistBackendError,
                            c10::str("infiniccl ", op, ": the group was shut down (dist.destroy_process_group)"));
        }
    }

    // Records the end event on the communication stream, completes the future there, and hands the work
    // to the watchdog.
    void finish(const char *op, c10::Device device, DeviceState &st, const std::vector<at::Tensor> &outputs,
                const std::shared_ptr<Completion> &work) {
        Completion &done = *work;
        done.device = device;  // before the event: the destructor destroys it on this device
        c10::DeviceGuard guard(device);
        infinirtEvent_t end = nullptr;
        CCL_CHECK(op, infinirtEventCreateWithFlags(&end, INFINIRT_EVENT_DISABLE_TIMING));
        if (infiniStatus_t s = infinirtEventRecord(end, native_stream(st.stream)); s != INFINI_STATUS_SUCCESS) {
            infinirtEventDestroy(end);
            raiseComm(op, s);
        }
        done.end = end;
        done.future = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()),
                                                               std::vector<c10::Device>{device});
        {
            c10::StreamGuard on_comm(st.stream);  // the future's consumers wait for the comm stream
            done.future->markCompleted(c10::IValue(outputs));
        }
        done.op = op;
        done.comm = st.comm;
        done.issued = std::chrono::steady_clock::now();
        watchdog_.watch(work);
    }

    c10::intrusive_ptr<c10d::Store> store_;
    std::chrono::milliseconds timeout_;
    const bool blocking_;
    const bool any_source_;         // sends count themselves in the store, so recvAnysource works
    std::vector<int64_t> claimed_;  // per sender: its messages claimed by this rank's receives so far
    std::mutex mu_;
    std::unordered_map<c10::DeviceIndex, DeviceState> devices_;
    int comms_made_ = 0;
    bool coalescing_ = false;
    std::shared_ptr<Completion> coalesced_;
    std::vector<at::Tensor> coalesced_outputs_;
    std::optional<c10::Device> coalesced_device_;
    std::atomic<bool> shut_down_{false};
    Watchdog watchdog_;  // last: destroyed (joined) first
};

c10::intrusive_ptr<c10d::Backend> create(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
                                         int64_t timeout_ms) {
    return c10::make_intrusive<ProcessGroupInfiniCCL>(store, rank, size, std::chrono::milliseconds(timeout_ms));
}

}  // namespace

void initDistributedBindings(PyObject *module) {
    auto m = py::handle(module).cast<py::module>();
    m.def("_create_infiniccl_backend", &create, py::arg("store"), py::arg("rank"), py::arg("size"),
          py::arg("timeout_ms"), "Makes a ProcessGroupInfiniCCL (a c10d Backend) for torch.distributed.");
}

}  // namespace infini_torch::distributed
