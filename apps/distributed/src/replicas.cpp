// Replica hashes: the arrays' sums of word hashes (kernels.h, computed where the model lives, one read back),
// chained in a fixed order with element/random.h's mix64.
#include "tilegrad/distributed/replicas.h"

#include <string>
#include <vector>

#include "kernels.h"
#include "tilegrad/core/error.h"
#include "tilegrad/training/element/random.h"

namespace tilegrad::distributed {

std::uint64_t model_hash(const training::GaussianModel& m) {
  const Device device = m.device();
  std::vector<detail::HashArgs> arrays;
  for (const Buffer<float>* b : m.arrays()) {
    TG_ASSERT(b->size() == 0 || b->device() == device, "model_hash: the model's arrays are on different devices");
    arrays.push_back({b->data(), b->size()});
  }
  const std::vector<std::uint64_t> sums = detail::hash_sums(device, arrays);
  std::uint64_t h = training::mix64(std::uint64_t(m.adam_step));
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    h = training::mix64(h ^ arrays[k].floats);  // the sizes too: a moved boundary between arrays changes the hash
    h = training::mix64(h ^ sums[k]);
  }
  return h;
}

void verify_replicas(Communicator& comm, const training::GaussianModel& model, int iteration) {
  const std::vector<std::uint64_t> hashes = comm.host_all_gather(model_hash(model));
  std::string differing;
  for (std::size_t r = 1; r < hashes.size(); ++r)
    if (hashes[r] != hashes[0]) differing += (differing.empty() ? "" : ", ") + std::to_string(r);
  if (!differing.empty())
    throw Error(tilegrad::detail::concat(
        "data-parallel replicas diverged at iteration ", iteration, ": the model of rank(s) ", differing,
        " differs from rank 0's; every rank applies the same combined gradients, so this is a fault (hardware or a "
        "bug), and training stops"));
}

}  // namespace tilegrad::distributed
