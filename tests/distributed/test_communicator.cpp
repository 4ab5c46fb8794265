// Simulated ranks: every collective against values computed here, rank threads (one per rank, rank 0 the
// caller), and a failing rank ending the others' waits instead of hanging them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "tilegrad/distributed/communicator.h"
#include "tilegrad/distributed/rank_threads.h"

using namespace tilegrad;
using namespace tilegrad::distributed;

TEST(Communicator, AllReduceSumMaxMinInRankOrder) {
  CommGroup group = make_simulated_group(3);
  RankThreads threads(group);
  threads.run([&](int r) {
    Communicator& c = threads.comm(r);
    EXPECT_EQ(c.rank(), r);
    EXPECT_EQ(c.size(), 3);
    EXPECT_EQ(c.device(), Device::Cpu);
    std::vector<std::int64_t> i = {r, 10 * r - 7, std::int64_t(1) << (40 + r)};
    c.all_reduce(i.data(), i.size(), DataType::I64, ReduceOp::Sum);
    EXPECT_EQ(i, (std::vector<std::int64_t>{3, 30 - 21, (std::int64_t(1) << 40) * 7}));
    std::vector<std::uint8_t> b = {std::uint8_t(r), std::uint8_t(200 - r)};
    c.all_reduce(b.data(), b.size(), DataType::U8, ReduceOp::Max);
    EXPECT_EQ(b, (std::vector<std::uint8_t>{2, 200}));
    std::vector<float> f = {float(r) - 1.5f};
    c.all_reduce(f.data(), 1, DataType::F32, ReduceOp::Min);
    EXPECT_EQ(f[0], -1.5f);
    // Float sums in rank order: ((1e8 + 1) + 1) - 1e8 in float arithmetic.
    std::vector<float> s = {r == 0 ? 1e8f : (r == 1 ? 1.0f : -1e8f)};
    c.all_reduce(s.data(), 1, DataType::F32, ReduceOp::Sum);
    EXPECT_EQ(s[0], (1e8f + 1.0f) - 1e8f);
    std::vector<double> d = {0.25 * r};
    c.all_reduce(d.data(), 1, DataType::F64, ReduceOp::Sum);
    EXPECT_EQ(d[0], 0.75);
    std::vector<std::int32_t> z = {r};
    c.all_reduce(z.data(), 1, DataType::I32, ReduceOp::Max);
    EXPECT_EQ(z[0], 2);
  });
}

TEST(Communicator, GatherBroadcastAndTraffic) {
  CommGroup group = make_simulated_group(4);
  RankThreads threads(group);
  threads.run([&](int r) {
    Communicator& c = threads.comm(r);
    const std::uint64_t before = c.traffic().bytes;
    const std::int32_t mine[2] = {r, -r};
    std::int32_t all[8];
    c.all_gather(mine, all, sizeof(mine));
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(all[2 * k], k);
      EXPECT_EQ(all[2 * k + 1], -k);
    }
    EXPECT_EQ(c.traffic().bytes - before, sizeof(mine));
    double value = r == 2 ? 3.25 : -1.0;
    c.broadcast(&value, sizeof(value), 2);
    EXPECT_EQ(value, 3.25);
    int host = r == 3 ? 42 : 0;
    c.host_broadcast(&host, sizeof(host), 3);
    EXPECT_EQ(host, 42);
    const std::vector<int> ranks = c.host_all_gather(r * r);
    EXPECT_EQ(ranks, (std::vector<int>{0, 1, 4, 9}));
    std::vector<char> bytes(std::size_t(r), char('a' + r));  // rank r sends r bytes
    const auto parts = c.host_gather(bytes.data(), bytes.size(), 1);
    if (r == 1) {
      ASSERT_EQ(parts.size(), 4u);
      for (int k = 0; k < 4; ++k) EXPECT_EQ(parts[std::size_t(k)], std::vector<char>(std::size_t(k), char('a' + k)));
    } else {
      EXPECT_TRUE(parts.empty());
    }
    c.barrier();
  });
}

TEST(Communicator, AllToAllVMovesEveryBlockToItsRank) {
  const int n = 3;
  CommGroup group = make_simulated_group(n);
  RankThreads threads(group);
  // Rank s sends (s + 1) * d + (s == d) ints to rank d, each equal to 1000 s + 100 d + k (some blocks empty).
  auto rows = [](int s, int d) { return std::size_t((s + 1) * d + (s == d)); };
  threads.run([&](int r) {
    Communicator& c = threads.comm(r);
    std::vector<std::size_t> sb(n), so(n), rb(n), ro(n);
    std::vector<int> send, recv;
    for (int d = 0; d < n; ++d) {
      so[std::size_t(d)] = send.size() * sizeof(int);
      for (std::size_t k = 0; k < rows(r, d); ++k) send.push_back(1000 * r + 100 * d + int(k));
      sb[std::size_t(d)] = rows(r, d) * sizeof(int);
    }
    std::size_t total = 0;
    for (int s = 0; s < n; ++s) {
      ro[std::size_t(s)] = total * sizeof(int);
      rb[std::size_t(s)] = rows(s, r) * sizeof(int);
      total += rows(s, r);
    }
    recv.assign(total, -1);
    c.all_to_all_v(send.data(), sb, so, recv.data(), rb, ro);
    std::size_t at = 0;
    for (int s = 0; s < n; ++s)
      for (std::size_t k = 0; k < rows(s, r); ++k) EXPECT_EQ(recv[at++], 1000 * s + 100 * r + int(k));
  });
}

TEST(Communicator, RankThreadsRunEachRankOnItsOwnThread) {
  CommGroup group = make_simulated_group(3);
  RankThreads threads(group);
  std::vector<std::thread::id> ids(3);
  for (int round = 0; round < 2; ++round) threads.run([&](int r) { ids[std::size_t(r)] = std::this_thread::get_id(); });
  EXPECT_EQ(ids[0], std::this_thread::get_id());
  EXPECT_NE(ids[1], ids[0]);
  EXPECT_NE(ids[2], ids[0]);
  EXPECT_NE(ids[1], ids[2]);
}

TEST(Communicator, AFailingRankEndsTheOthersWaitsAndItsErrorIsRethrown) {
  CommGroup group = make_simulated_group(3);
  RankThreads threads(group);
  std::atomic<int> aborted{0};
  try {
    threads.run([&](int r) {
      if (r == 1) throw InvalidArgument("rank 1 failed on purpose");
      try {
        std::vector<float> x(4, 1.0f);
        threads.comm(r).all_reduce(x.data(), x.size(), DataType::F32, ReduceOp::Sum);  // waits for rank 1
      } catch (const Aborted&) {
        ++aborted;
        throw;
      }
    });
    FAIL() << "expected the failure of rank 1";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 failed"), std::string::npos);
  }
  EXPECT_EQ(aborted.load(), 2);
}

TEST(Communicator, BadArgumentsAreReported) {
  EXPECT_THROW(make_simulated_group(0), InvalidArgument);
  if (!nccl_compiled()) {
    EXPECT_THROW(make_nccl_group({0}), Unsupported);
  }
  CommGroup group = make_simulated_group(2);
  RankThreads threads(group);
  EXPECT_THROW(threads.run([&](int r) {
    int v = 0;
    threads.comm(r).host_broadcast(&v, sizeof(v), 5);
  }),
               InvalidArgument);
}
