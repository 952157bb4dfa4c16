/* infiniccl.h: collectives between devices, in the style of NCCL.
 *
 * A communicator is one rank of a group and belongs to one device; every call is queued on the given
 * stream of that device (NULL: the device's default stream) and returns at once. Failures found when
 * the call is made (bad arguments) are returned; failures found while the queued work runs (a peer
 * that never arrives within the communicator's timeout, a peer that exits) are reported by the next
 * synchronization of that stream, by infinicclCommGetAsyncError, and by every later call on the
 * communicator. Every rank must issue the same collectives in the same order; send/recv between a
 * pair of ranks are matched in issue order. */
#ifndef INFINI_INFINICCL_H_
#define INFINI_INFINICCL_H_

#include "infinirt.h"

typedef enum {
    INFINICCL_SUM = 0,
    INFINICCL_PROD = 1,
    INFINICCL_MAX = 2,
    INFINICCL_MIN = 3,
    INFINICCL_AVG = 4,
    INFINICCL_BAND = 5, /* bitwise and, or, xor: integer dtypes only (a backend may not have them: NCCL has not) */
    INFINICCL_BOR = 6,
    INFINICCL_BXOR = 7,
} infinicclReduceOp_t;

struct InfinicclComm;
typedef struct InfinicclComm *infinicclComm_t;

/* An opaque id that rank 0 creates and every rank passes to infinicclCommInitRank. */
#define INFINICCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[INFINICCL_UNIQUE_ID_BYTES];
} infinicclUniqueId;

/* Creates one communicator per listed device of this process (single-process groups). */
INFINI_API infiniStatus_t infinicclCommInitAll(infiniDevice_t device_type, infinicclComm_t *comms, int ndevice,
                                               const int *device_ids);
/* Creates a new unique id for a group (called on one rank, then shared out of band). */
INFINI_API infiniStatus_t infinicclGetUniqueId(infiniDevice_t device_type, infinicclUniqueId *id);
/* Joins rank `rank` of an nranks group on the current device (one process per rank). */
INFINI_API infiniStatus_t infinicclCommInitRank(infinicclComm_t *comm, int nranks, infinicclUniqueId id, int rank);
/* Destroys a communicator after its queued work completes (a backend may bound that wait by the
 * communicator's timeout and abort it then); an aborted or failed communicator is destroyed at once. */
INFINI_API infiniStatus_t infinicclCommDestroy(infinicclComm_t comm);

/* Reduces count elements across ranks into every rank's recvbuf (in place when sendbuf == recvbuf). */
INFINI_API infiniStatus_t infinicclAllReduce(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                             infinicclReduceOp_t op, infinicclComm_t comm, infinirtStream_t stream);
/* Copies count elements of root's buffer to every rank. */
INFINI_API infiniStatus_t infinicclBroadcast(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                             int root, infinicclComm_t comm, infinirtStream_t stream);
/* Reduces count elements across ranks into root's recvbuf. */
INFINI_API infiniStatus_t infinicclReduce(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                          infinicclReduceOp_t op, int root, infinicclComm_t comm,
                                          infinirtStream_t stream);
/* Gathers send_count elements from each rank into recvbuf, in rank order. */
INFINI_API infiniStatus_t infinicclAllGather(void *sendbuf, void *recvbuf, size_t send_count, infiniDtype_t datatype,
                                             infinicclComm_t comm, infinirtStream_t stream);
/* Reduces nranks * recv_count elements and leaves block `rank` of the result in recvbuf. */
INFINI_API infiniStatus_t infinicclReduceScatter(void *sendbuf, void *recvbuf, size_t recv_count,
                                                 infiniDtype_t datatype, infinicclReduceOp_t op, infinicclComm_t comm,
                                                 infinirtStream_t stream);
/* Sends count elements to rank peer. */
INFINI_API infiniStatus_t infinicclSend(void *sendbuf, size_t count, infiniDtype_t datatype, int peer,
                                        infinicclComm_t comm, infinirtStream_t stream);
/* Receives count elements from rank peer. */
INFINI_API infiniStatus_t infinicclRecv(void *recvbuf, size_t count, infiniDtype_t datatype, int peer,
                                        infinicclComm_t comm, infinirtStream_t stream);
/* extension: the number of ranks of the communicator's group. */
INFINI_API infiniStatus_t infinicclCommCount(infinicclComm_t comm, int *count);
/* extension: this communicator's rank in its group. */
INFINI_API infiniStatus_t infinicclCommUserRank(infinicclComm_t comm, int *rank);
/* extension: how long queued work may wait for peers before it fails with INFINI_STATUS_TIMEOUT
 * (default: the INFINICCL_TIMEOUT_MS environment variable, else 30 minutes). */
INFINI_API infiniStatus_t infinicclCommSetTimeout(infinicclComm_t comm, uint64_t timeout_ms);
/* extension: SUCCESS, or the status of the first queued work of this communicator that failed
 * (the message is left for infiniGetLastErrorMessage). A failed communicator refuses further work.
 * May be called from any thread, also while another thread is in a call on the communicator. */
INFINI_API infiniStatus_t infinicclCommGetAsyncError(infinicclComm_t comm, infiniStatus_t *async_error);
/* extension: aborts the communicator without waiting for its peers: queued work that has not completed
 * is abandoned (its buffers may be left partly written), the communicator fails with INFINI_STATUS_ABORTED
 * (infinicclCommGetAsyncError and every later call report it) and must still be destroyed. Returns
 * SUCCESS when it was already aborted or failed; NOT_IMPLEMENTED on a backend that cannot abort. May be
 * called from any thread, also while another thread is in a call on the communicator. */
INFINI_API infiniStatus_t infinicclCommAbort(infinicclComm_t comm);

/* Starts a group: calls until infinicclGroupEnd are issued together (send/recv pairs cannot deadlock). */
INFINI_API infiniStatus_t infinicclGroupStart(void);
/* Ends a group and issues its calls. */
INFINI_API infiniStatus_t infinicclGroupEnd(void);

#endif /* INFINI_INFINICCL_H_ */
