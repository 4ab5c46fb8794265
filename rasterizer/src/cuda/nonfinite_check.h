// Internal: the backward's check of dL/d* for NaN and infinite values (BackwardSettings::check_finite), on a side
// branch of the stream so that the backward's work never waits for it. fork() marks where the check starts (it
// sees everything queued before), launch() queues its kernels once the backward's first work is queued (so its host
// calls delay none of that work), and flag(k) joins the branch back into the stream and waits for the answer.
#pragma once
#include <array>
#include <optional>

#include "backend.h"
#include "tilegrad/core/buffer.h"
#include "tilegrad/core/cuda/side_stream.h"

namespace tilegrad::raster::cuda_backend {

class NonfiniteCheck {
 public:
  static constexpr int kViews = int(kCheckedViews);
  using Views = CheckedViews;

  NonfiniteCheck();
  ~NonfiniteCheck();
  NonfiniteCheck(const NonfiniteCheck&) = delete;
  NonfiniteCheck& operator=(const NonfiniteCheck&) = delete;

  // Opens the branch for a check of `views` into device_flags (kViews words of device memory).
  void fork(const Views& views, unsigned* device_flags);
  // Queues the check on the branch: its kernels, the copy of the flags into pinned host memory, and an event.
  void launch();
  // Whether views[k] holds a NaN or an infinity: joins the branch, then waits for the copy.
  bool flag(int k);
  // Joins an open branch without throwing: what the caller queues next (a free of the checked views) waits for it.
  void close() noexcept;

 private:
  Views m_views{};
  unsigned* m_device_flags = nullptr;
  unsigned* m_flags = nullptr;  // pinned host memory
  cudaEvent_t m_copied = nullptr;
  std::optional<cuda::SideBranch> m_branch;
  bool m_launched = false;
};

}  // namespace tilegrad::raster::cuda_backend
