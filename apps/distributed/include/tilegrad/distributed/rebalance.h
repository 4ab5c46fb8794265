// Rebalancing the parts of a Gaussian-partitioned model: rank r holds the rows [begin[r], begin[r + 1]) of a global
// order, and after a densification the parts differ in size, so equal ranges are restored by moving rows between
// neighbouring ranks.
#pragma once
#include <cstddef>
#include <vector>

#include "tilegrad/distributed/communicator.h"
#include "tilegrad/training/model.h"

namespace tilegrad::distributed {

// Collective. `part` holds this rank's rows [old_begin[r], old_begin[r + 1]) (every rank passes the same ranges,
// ranks + 1 values each, covering the same rows); returns its rows [new_begin[r], new_begin[r + 1]) with their
// moments and statistics, on part's device, with part's Adam step and the next parameter version. Only rows that
// change rank travel; those that stay are copied within the device, so the peak holds the part twice and the rows
// that move twice more (not the whole part four times).
training::GaussianModel rebalanced_part(Communicator& comm, const training::GaussianModel& part,
                                        const std::vector<std::size_t>& old_begin,
                                        const std::vector<std::size_t>& new_begin);

}  // namespace tilegrad::distributed
