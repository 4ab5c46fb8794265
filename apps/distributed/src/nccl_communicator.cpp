// NCCL ranks: one GPU each, communicators made together with ncclCommInitAll, collectives on a stream of the
// rank's own, ordered with the device's default stream (where tilegrad launches its kernels and frees its
// memory) by events both ways: a collective starts after the work queued before it and the work queued after it
// (kernels reading its results, frees of its buffers) waits for it.
// Host collectives meet in process memory (host_group.h): every rank of a group lives in this process.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>

#include "host_group.h"
#include "tilegrad/core/cuda/check.h"
#include "tilegrad/core/error.h"
#include "tilegrad/distributed/communicator.h"

namespace tilegrad::distributed {

namespace {

void nccl_check(ncclResult_t r, const char* call) {
  if (r == ncclSuccess) return;
  throw Error(tilegrad::detail::concat("NCCL: ", call, " failed: ", ncclGetErrorString(r), " (", ncclGetLastError(nullptr),
                             ")"));
}
#define TG_NCCL_CHECK(call) nccl_check((call), #call)

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::U8:
      return ncclUint8;
    case DataType::I32:
      return ncclInt32;
    case DataType::I64:
      return ncclInt64;
    case DataType::F32:
      return ncclFloat32;
    case DataType::F64:
      return ncclFloat64;
  }
  return ncclUint8;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return ncclSum;
    case ReduceOp::Max:
      return ncclMax;
    case ReduceOp::Min:
      return ncclMin;
  }
  return ncclSum;
}

class NcclCommunicator final : public detail::GroupCommunicator {
 public:
  NcclCommunicator(ncclComm_t comm, int rank, int gpu, std::shared_ptr<detail::HostGroup> group)
      : GroupCommunicator(std::move(group), rank), m_comm(comm), m_gpu(gpu) {
    bind_thread();
    TG_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    TG_CUDA_CHECK(cudaEventCreateWithFlags(&m_before, cudaEventDisableTiming));
    TG_CUDA_CHECK(cudaEventCreateWithFlags(&m_after, cudaEventDisableTiming));
  }
  ~NcclCommunicator() override {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(m_gpu);
    if (!m_aborted) ncclCommDestroy(m_comm);
    cudaEventDestroy(m_before);
    cudaEventDestroy(m_after);
    cudaStreamDestroy(m_stream);
    cudaSetDevice(previous);
  }

  Device device() const override { return Device::Cuda; }
  int gpu() const override { return m_gpu; }
  void bind_thread() override { TG_CUDA_CHECK(cudaSetDevice(m_gpu)); }

  void all_reduce(void* data, std::size_t count, DataType type, ReduceOp op) override {
    check_live();
    count_bytes(count * type_size(type));
    if (count == 0) return;
    enter();
    TG_NCCL_CHECK(ncclAllReduce(data, data, count, nccl_type(type), nccl_op(op), m_comm, m_stream));
    leave();
  }
  void all_gather(const void* send, void* recv, std::size_t bytes) override {
    check_live();
    count_bytes(bytes);
    if (bytes == 0) return;
    enter();
    TG_NCCL_CHECK(ncclAllGather(send, recv, bytes, ncclUint8, m_comm, m_stream));
    leave();
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    check_live();
    TG_CHECK_ARG(root >= 0 && root < size(), "broadcast: root ", root, " is not a rank of ", size());
    count_bytes(m_rank == root ? bytes : 0);
    if (bytes == 0) return;
    enter();
    TG_NCCL_CHECK(ncclBroadcast(data, data, bytes, ncclUint8, root, m_comm, m_stream));
    leave();
  }
  void all_to_all_v(const void* send, const std::vector<std::size_t>& send_bytes,
                    const std::vector<std::size_t>& send_offsets, void* recv, const std::vector<std::size_t>& recv_bytes,
                    const std::vector<std::size_t>& recv_offsets) override {
    check_live();
    const std::size_t n = std::size_t(size()), me = std::size_t(m_rank);
    TG_CHECK_ARG(send_bytes.size() == n && send_offsets.size() == n && recv_bytes.size() == n &&
                     recv_offsets.size() == n,
                 "all_to_all_v: every size and offset list needs one entry per rank (", n, ")");
    TG_ASSERT(send_bytes[me] == recv_bytes[me], "all_to_all_v: ", send_bytes[me], " bytes to itself, ",
              recv_bytes[me], " expected");
    std::size_t sent = 0;
    for (std::size_t r = 0; r < n; ++r) sent += r == me ? 0 : send_bytes[r];
    count_bytes(sent);
    enter();
    if (send_bytes[me] > 0)
      TG_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(recv) + recv_offsets[me],
                                    static_cast<const char*>(send) + send_offsets[me], send_bytes[me],
                                    cudaMemcpyDeviceToDevice, m_stream));
    TG_NCCL_CHECK(ncclGroupStart());
    for (std::size_t r = 0; r < n; ++r) {
      if (r == me) continue;
      if (send_bytes[r] > 0)
        TG_NCCL_CHECK(ncclSend(static_cast<const char*>(send) + send_offsets[r], send_bytes[r], ncclUint8, int(r),
                               m_comm, m_stream));
      if (recv_bytes[r] > 0)
        TG_NCCL_CHECK(ncclRecv(static_cast<char*>(recv) + recv_offsets[r], recv_bytes[r], ncclUint8, int(r), m_comm,
                               m_stream));
    }
    TG_NCCL_CHECK(ncclGroupEnd());
    leave();
  }

  void synchronize() override { TG_CUDA_CHECK(cudaStreamSynchronize(m_stream)); }
  void abort() override {
    m_group->abort();
    if (!m_aborted) {
      m_aborted = true;
      ncclCommAbort(m_comm);  // ends this rank's kernels that wait for a failed peer
    }
  }

 private:
  void count_bytes(std::size_t bytes) { count(bytes); }
  // The collective's stream waits for the default stream's work so far; afterwards the default stream waits for
  // the collective.
  void enter() {
    TG_CUDA_CHECK(cudaEventRecord(m_before, cudaStream_t(0)));
    TG_CUDA_CHECK(cudaStreamWaitEvent(m_stream, m_before, 0));
  }
  void leave() {
    TG_CUDA_CHECK(cudaEventRecord(m_after, m_stream));
    TG_CUDA_CHECK(cudaStreamWaitEvent(cudaStream_t(0), m_after, 0));
  }
  void check_live() const {
    if (m_group->aborted()) throw Aborted("another rank failed");
  }
  ncclComm_t m_comm;
  int m_gpu;
  cudaStream_t m_stream = nullptr;
  cudaEvent_t m_before = nullptr, m_after = nullptr;
  bool m_aborted = false;
};

}  // namespace

bool nccl_compiled() { return true; }

CommGroup make_nccl_group(const std::vector<int>& devices) {
  const int n = int(devices.size());
  TG_CHECK_ARG(n >= 1, "an NCCL group needs at least one GPU");
  const int visible = visible_gpus();
  for (int i = 0; i < n; ++i) {
    TG_CHECK_ARG(devices[std::size_t(i)] >= 0 && devices[std::size_t(i)] < visible, "GPU ", devices[std::size_t(i)],
                 " does not exist: ", visible, " CUDA device(s) are visible");
    for (int k = 0; k < i; ++k)
      TG_CHECK_ARG(devices[std::size_t(k)] != devices[std::size_t(i)], "GPU ", devices[std::size_t(i)],
                   " is listed twice (one rank per GPU)");
  }
  // NVLink multicast (NVLS) stays off on these machines; an explicit setting in the environment is kept.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  int previous = 0;
  TG_CUDA_CHECK(cudaGetDevice(&previous));
  std::vector<ncclComm_t> comms(std::size_t(n), nullptr);
  TG_NCCL_CHECK(ncclCommInitAll(comms.data(), n, devices.data()));
  auto group = std::make_shared<detail::HostGroup>(n);
  CommGroup out;
  for (int r = 0; r < n; ++r)
    out.push_back(std::make_unique<NcclCommunicator>(comms[std::size_t(r)], r, devices[std::size_t(r)], group));
  TG_CUDA_CHECK(cudaSetDevice(previous));
  return out;
}

}  // namespace tilegrad::distributed
