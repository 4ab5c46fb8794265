// Communication between the ranks of a run over several devices: collectives and a sparse all-to-all on device
// buffers, small collectives on host memory, and the groups that implement them (NCCL, one GPU per rank, or
// simulated ranks exchanging host memory). Every rank of a group lives in this process with a thread of its own
// (docs/ARCHITECTURE.md, "Training on several devices").
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilegrad/core/device.h"
#include "tilegrad/core/error.h"

namespace tilegrad::distributed {

enum class DataType { U8, I32, I64, F32, F64 };
enum class ReduceOp { Sum, Max, Min };
std::size_t type_size(DataType type);

// What this rank handed to collectives since the communicator was made: payload bytes (not the algorithm's wire
// traffic: a ring all-reduce moves about 2 (N - 1) / N times its payload per rank) and calls.
struct Traffic {
  std::uint64_t bytes = 0, calls = 0;
};

// Raised on every rank whose collective cannot complete because another rank failed (see abort()).
class Aborted : public Error {
 public:
  using Error::Error;
};

// One rank's end of a group. Every rank calls the same collectives in the same order with matching sizes; a
// collective returns when this rank's part is queued (CUDA: on this rank's stream, ordered after the kernels
// already launched on the device's default stream and before those launched later) or done (host memory).
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Where collective buffers live: host memory (Cpu) or this rank's GPU (Cuda).
  virtual Device device() const = 0;
  // CUDA: the GPU of this rank (ordinal); -1 for host ranks.
  virtual int gpu() const { return -1; }
  // Makes this rank's GPU current on the calling thread; every thread working for the rank calls it first.
  virtual void bind_thread() {}

  // Collectives on buffers in device() memory.
  virtual void all_reduce(void* data, std::size_t count, DataType type, ReduceOp op) = 0;  // in place
  // recv holds size() blocks of `bytes`, in rank order.
  virtual void all_gather(const void* send, void* recv, std::size_t bytes) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  // Sparse exchange: send_bytes[r] bytes at send + send_offsets[r] go to rank r; the recv_bytes[r] bytes from rank
  // r land at recv + recv_offsets[r]. Both sides know the sizes (an earlier exchange of counts).
  virtual void all_to_all_v(const void* send, const std::vector<std::size_t>& send_bytes,
                            const std::vector<std::size_t>& send_offsets, void* recv,
                            const std::vector<std::size_t>& recv_bytes,
                            const std::vector<std::size_t>& recv_offsets) = 0;

  // Collectives on host memory (counts, control words, timings); each also orders the ranks like a barrier.
  virtual void host_all_gather(const void* send, void* recv, std::size_t bytes) = 0;
  virtual void host_broadcast(void* data, std::size_t bytes, int root) = 0;
  // Every rank's `bytes` at `data` (sizes may differ), in rank order, returned on `root`; empty elsewhere.
  virtual std::vector<std::vector<char>> host_gather(const void* data, std::size_t bytes, int root) = 0;
  void barrier() { host_all_gather(nullptr, nullptr, 0); }
  template <class T>
  std::vector<T> host_all_gather(const T& value) {
    std::vector<T> out(static_cast<std::size_t>(size()));
    host_all_gather(&value, out.data(), sizeof(T));
    return out;
  }

  // Waits until this rank's queued collectives are complete (CUDA: its stream; host ranks: nothing to wait for).
  virtual void synchronize() {}
  // Called when a rank fails: every rank's pending and later collectives throw Aborted instead of waiting for it.
  virtual void abort() = 0;

  const Traffic& traffic() const { return m_traffic; }

 protected:
  void count(std::size_t bytes) {
    m_traffic.bytes += bytes;
    ++m_traffic.calls;
  }

 private:
  Traffic m_traffic;
};

// The communicators of one group, index = rank.
using CommGroup = std::vector<std::unique_ptr<Communicator>>;

// `ranks` simulated ranks exchanging host memory: CPU training over several ranks and the tests. Reductions
// combine the ranks in rank order (a float sum is therefore reproducible here, unlike NCCL's).
CommGroup make_simulated_group(int ranks);

// True when this build has the NCCL backend (CUDA builds that found nccl.h and libnccl).
bool nccl_compiled();
// One rank per GPU ordinal in `devices` (distinct), NCCL communicators made together (ncclCommInitAll).
// NVLink multicast stays off: NCCL_NVLS_ENABLE is set to 0 unless the environment already sets it. Unsupported
// without NCCL; InvalidArgument for unknown or repeated GPUs.
CommGroup make_nccl_group(const std::vector<int>& devices);
// CUDA devices visible to this process (0 without CUDA).
int visible_gpus();
// Peak bytes in use in GPU `gpu`'s default memory pool (where tilegrad allocates) since the process started;
// 0 without CUDA. NCCL's own buffers are not in it.
std::size_t gpu_pool_peak_bytes(int gpu);

}  // namespace tilegrad::distributed
