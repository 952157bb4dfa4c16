/* infiniccl.h: collectives between devices, in the style of NCCL.
 *
 * Declared here as the contract; the backends implement it in the distributed issue. A communicator
 * belongs to one device; every call is queued on the given stream of that device. */
#ifndef INFINI_INFINICCL_H_
#define INFINI_INFINICCL_H_

#include "infinirt.h"

typedef enum {
    INFINICCL_SUM = 0,
    INFINICCL_PROD = 1,
    INFINICCL_MAX = 2,
    INFINICCL_MIN = 3,
    INFINICCL_AVG = 4,
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
/* Destroys a communicator after its queued work completes. */
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
/* Starts a group: calls until infinicclGroupEnd are issued together (send/recv pairs cannot deadlock). */
INFINI_API infiniStatus_t infinicclGroupStart(void);
/* Ends a group and issues its calls. */
INFINI_API infiniStatus_t infinicclGroupEnd(void);

#endif /* INFINI_INFINICCL_H_ */
