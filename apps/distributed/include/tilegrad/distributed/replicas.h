// The check that data-parallel replicas did not diverge: a hash of every bit of each rank's model, compared
// across the ranks.
#pragma once
#include <cstdint>

#include "tilegrad/distributed/communicator.h"
#include "tilegrad/training/model.h"

namespace tilegrad::distributed {

// 64-bit hash of the model's parameters, Adam moments and step, and density statistics (bits, not values: +0 and
// -0 differ), computed on the model's device (one read of it, a few bytes back): the same value for a model on the
// CPU and its copy on a GPU.
std::uint64_t model_hash(const training::GaussianModel& model);

// Collective: compares this rank's model_hash with every other rank's. Throws Error naming the ranks whose models
// differ from rank 0's (on every rank) when the replicas diverged.
void verify_replicas(Communicator& comm, const training::GaussianModel& model, int iteration);

}  // namespace tilegrad::distributed
