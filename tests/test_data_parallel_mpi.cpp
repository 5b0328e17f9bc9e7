// Data-parallel gradients (src/train/data_parallel.h), run by ctest as `mpirun -np 2` of this
// program (label mpi). Each rank also computes, by plain forward/backward calls and no
// communication, what one process would do with the same global batch: one batch of 2B rows, and
// B rows with accumulation 2. Targets are partly ignored (< 0) and unevenly per rank, so a
// per-rank normalisation would differ from the global one the data-parallel step must use.
// Both all-reduce modes are checked: one MPI_Allreduce after backward, and per block during it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/comm.h"
#include "model_fixtures.h"
#include "test_util.h"
#include "train/adamw.h"
#include "train/data_parallel.h"
#include "train/grad_clip.h"

using namespace llm0;
using llm0::testing_fixtures::Heads;

namespace {

constexpr int B = 3, T = 11, kRows = 2 * B, kSteps = 5;  // global batch: 2 ranks x B rows
constexpr double kLr = 3e-3, kClip = 1.0;

// Global batch of step s: [2B, T] random tokens, target = next token or ignored (-1). Rows of
// rank 0 (0..B-1) ignore few targets, rows of rank 1 many, one row of rank 1 all of them.
Batch global_batch(int s, int V) {
  std::mt19937 rng(1000 + s);
  Batch g;
  g.B = kRows, g.T = T;
  g.inputs.resize((size_t)kRows * T), g.targets.resize((size_t)kRows * T);
  for (int r = 0; r < kRows; ++r)
    for (int t = 0; t < T; ++t) {
      const size_t i = (size_t)r * T + t;
      g.inputs[i] = (int)(rng() % (unsigned)V);
      g.targets[i] = (int)(rng() % (unsigned)V);
      const unsigned ignore_per_16 = r < B ? 2 : 11;
      if (rng() % 16 < ignore_per_16 || r == kRows - 1) g.targets[i] = -1;
    }
  return g;
}

// Rows [first, first + n) of `g`.
Batch rows(const Batch& g, int first, int n) {
  Batch b;
  b.B = n, b.T = g.T;
  b.inputs.assign(g.inputs.begin() + (long)first * T, g.inputs.begin() + (long)(first + n) * T);
  b.targets.assign(g.targets.begin() + (long)first * T, g.targets.begin() + (long)(first + n) * T);
  return b;
}

long count_targets(const std::vector<Batch>& micro) {
  long n = 0;
  for (const Batch& b : micro)
    for (int32_t t : b.targets) n += t >= 0;
  return n;
}

// One process: micro-batches of the global batch, loss normalised by their total target count.
double one_process_gradients(Model& m, std::vector<Batch>& micro) {
  m.params().zero_grad();
  const long total = count_targets(micro);
  double loss = 0;
  for (Batch& b : micro) {
    loss += m.forward(b.inputs.data(), b.targets.data(), b.B, b.T);
    m.backward(1.0f / (float)total);
  }
  return loss / (double)total;
}

struct Trajectory {
  std::unique_ptr<Model> model;
  std::unique_ptr<AdamW> opt;
  std::vector<double> losses;
};

Trajectory make_run(const ModelConfig& cfg) {
  Trajectory r;
  r.model = std::make_unique<Model>(cfg);
  llm0::testing_fixtures::random_weights(*r.model, 42, 0.2);
  r.opt = std::make_unique<AdamW>(r.model->params(), AdamWConfig{0.9, 0.95, 1e-8, 0.1});
  return r;
}

void step(Trajectory& r, double loss) {
  r.losses.push_back(loss);
  ParamStore& p = r.model->params();
  clip_grad_norm(p.grad(), p.size(), kClip);
  r.opt->step(p, kLr);
}

}  // namespace

TEST(DataParallelMpi, TwoRanksEqualOneProcessWithTwiceTheBatchAndWithAccumulation) {
  ASSERT_EQ(comm::size(), 2) << "run under mpirun -np 2";
  const ModelConfig cfg = llm0::testing_fixtures::tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  DataParallel dp(B, 1), dp_buckets(B, 1, "", /*buckets=*/true);
  EXPECT_EQ(dp.share().global_batch(), kRows);
  Trajectory ranks = make_run(cfg), wide = make_run(cfg), accum = make_run(cfg), buckets = make_run(cfg);
  double targets_seen = 0;
  for (int s = 0; s < kSteps; ++s) {
    const Batch g = global_batch(s, cfg.vocab_size);
    std::vector<Batch> mine = {rows(g, dp.rank() * B, B)}, whole = {g},
                       halves = {rows(g, 0, B), rows(g, B, B)};
    double targets = 0;
    step(ranks, dp.gradients(*ranks.model, mine, &targets));
    targets_seen += targets;
    step(buckets, dp_buckets.gradients(*buckets.model, mine, &targets));
    EXPECT_EQ(targets, (double)count_targets(whole)) << "step " << s;
    step(wide, one_process_gradients(*wide.model, whole));
    step(accum, one_process_gradients(*accum.model, halves));
  }
  // The two ranks' shares really are uneven (else per-rank normalisation would pass too).
  const Batch g = global_batch(0, cfg.vocab_size);
  EXPECT_GT(count_targets({rows(g, 0, B)}), count_targets({rows(g, B, B)}) + 10);
  EXPECT_GT(targets_seen, 0);
  EXPECT_TRUE(test::all_close(ranks.losses, wide.losses, 1e-5, 0, "losses vs 1 process x 2B"));
  EXPECT_TRUE(test::all_close(ranks.losses, accum.losses, 1e-5, 0, "losses vs 1 process, accumulation 2"));
  const ParamStore &p = ranks.model->params(), &pw = wide.model->params(), &pa = accum.model->params();
  EXPECT_TRUE(test::all_close(p.data(), pw.data(), p.size(), 1e-5, 1e-5, "parameters vs 1 process x 2B"));
  EXPECT_TRUE(test::all_close(p.data(), pa.data(), p.size(), 1e-5, 1e-5, "parameters vs accumulation 2"));
  // Per-block all-reduce during backward: the same sums, started earlier.
  const ParamStore& pb = buckets.model->params();
  EXPECT_TRUE(test::all_close(buckets.losses, wide.losses, 1e-5, 0, "per-block losses vs 1 process x 2B"));
  EXPECT_TRUE(test::all_close(pb.data(), pw.data(), p.size(), 1e-5, 1e-5, "per-block parameters vs 1 process x 2B"));
  EXPECT_EQ(dp_buckets.stats().calls, kSteps);
  // Both ranks hold the same bits.
  EXPECT_NO_THROW(dp.check_in_sync(p, "after step 5"));
  EXPECT_NO_THROW(dp.check_in_sync(pb, "after step 5"));
}

TEST(DataParallelMpi, ParameterCheckNamesTheStepAndTheRankThatDiffers) {
  const ModelConfig cfg = llm0::testing_fixtures::tiny_config(Heads::MHA, PositionKind::Rope, 1.0, false);
  DataParallel dp(1, 1);
  Trajectory r = make_run(cfg);
  EXPECT_NO_THROW(dp.check_in_sync(r.model->params(), "after step 7"));
  if (dp.rank() == 1) r.model->params().data()[r.model->params().size() - 1] += 1e-7f;  // one ulp-ish
  try {
    dp.check_in_sync(r.model->params(), "after step 8");
    ADD_FAILURE() << "a rank with different parameters was not caught";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("rank(s) 1 differ from rank 0's after step 8"), std::string::npos) << m;
  }
}

TEST(DataParallelMpi, SumsMaxAndAnyAgreeOnEveryRank) {
  DataParallel dp(1, 1);
  EXPECT_EQ(dp.sum(dp.rank() + 1.5), 1.5 + 2.5);
  EXPECT_EQ(dp.max(dp.rank() == 1 ? -3.0 : -7.0), -3.0);
  EXPECT_TRUE(dp.any(dp.rank() == 1));
  EXPECT_FALSE(dp.any(false));
  std::vector<float> v = {1.0f * dp.rank(), 2.0f, -0.5f};
  comm::sum(v.data(), v.size());
  EXPECT_EQ(v, (std::vector<float>{1.0f, 4.0f, -1.0f}));
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  comm::init();
  const int rc = RUN_ALL_TESTS();
  comm::finalize();
  return rc;
}
