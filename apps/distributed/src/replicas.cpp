// Replica hashes: SplitMix64 finaliser over 64-bit words of every array (element/random.h's mix64).
#include "tilegrad/distributed/replicas.h"

#include <cstring>
#include <string>
#include <vector>

#include "tilegrad/core/error.h"
#include "tilegrad/training/element/random.h"

namespace tilegrad::distributed {

namespace {
void mix_floats(std::uint64_t& h, const Buffer<float>& b) {
  const std::vector<float> host = b.to_vector();
  h = training::mix64(h ^ host.size());
  std::size_t i = 0;
  for (; i + 1 < host.size(); i += 2) {
    std::uint64_t w;
    std::memcpy(&w, host.data() + i, 8);
    h = training::mix64(h ^ w);
  }
  if (i < host.size()) {
    std::uint32_t w;
    std::memcpy(&w, host.data() + i, 4);
    h = training::mix64(h ^ w);
  }
}
}  // namespace

std::uint64_t model_hash(const training::GaussianModel& m) {
  std::uint64_t h = training::mix64(std::uint64_t(m.adam_step));
  for (const raster::Gaussians* g : {&m.params, &m.adam_m, &m.adam_v})
    for (const Buffer<float>* b : {&g->means, &g->log_scales, &g->quats, &g->opacity_logits, &g->sh})
      mix_floats(h, *b);
  for (const Buffer<float>* b : {&m.grad_accum, &m.view_count, &m.max_radius}) mix_floats(h, *b);
  return h;
}

void verify_replicas(Communicator& comm, const training::GaussianModel& model, int iteration) {
  const std::vector<std::uint64_t> hashes = comm.host_all_gather(model_hash(model));
  std::string differing;
  for (std::size_t r = 1; r < hashes.size(); ++r)
    if (hashes[r] != hashes[0]) differing += (differing.empty() ? "" : ", ") + std::to_string(r);
  if (!differing.empty())
    throw Error(detail::concat("data-parallel replicas diverged at iteration ", iteration, ": the model of rank(s) ",
                               differing, " differs from rank 0's; every rank applies the same combined gradients, so "
                               "this is a fault (hardware or a bug), and training stops"));
}

}  // namespace tilegrad::distributed
