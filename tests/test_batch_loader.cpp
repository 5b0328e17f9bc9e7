// Batch loader (src/train/batch_loader.h): shift-by-one targets, window range and coverage,
// determinism, resume from a saved state, sequential evaluation windows, short streams.
#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/check.h"
#include "train/batch_loader.h"

using llm0::Batch;
using llm0::BatchLoader;

namespace {
constexpr int32_t kBase = 1000;
// stream[i] = 1000 + i, so every token names its own position.
std::vector<int32_t> position_stream(int n) {
  std::vector<int32_t> s(static_cast<size_t>(n));
  std::iota(s.begin(), s.end(), kBase);
  return s;
}
std::vector<std::vector<int32_t>> draw(BatchLoader& loader, int batches) {
  std::vector<std::vector<int32_t>> out;
  Batch b;
  for (int i = 0; i < batches; ++i) {
    loader.next(b);
    out.push_back(b.inputs);
    out.back().insert(out.back().end(), b.targets.begin(), b.targets.end());
  }
  return out;
}
}  // namespace

TEST(BatchLoader, TargetsAreInputsShiftedByOne) {
  const int N = 50, B = 3, T = 7;
  BatchLoader loader(position_stream(N), B, T, 42);
  Batch b;
  for (int step = 0; step < 20; ++step) {
    loader.next(b);
    ASSERT_EQ(b.B, B);
    ASSERT_EQ(b.T, T);
    ASSERT_EQ(b.inputs.size(), size_t{B * T});
    ASSERT_EQ(b.targets.size(), size_t{B * T});
    for (int r = 0; r < B; ++r) {
      const int32_t start = b.inputs[r * T] - kBase;
      ASSERT_GE(start, 0);
      ASSERT_LE(start, N - T - 1);  // the window's T+1 tokens fit in the stream
      for (int t = 0; t < T; ++t) {
        EXPECT_EQ(b.inputs[r * T + t], kBase + start + t);
        EXPECT_EQ(b.targets[r * T + t], kBase + start + t + 1);
        if (t + 1 < T) {
          EXPECT_EQ(b.targets[r * T + t], b.inputs[r * T + t + 1]);
        }
      }
    }
  }
}

TEST(BatchLoader, EveryStartIsDrawn) {
  const int N = 20, T = 5;  // starts 0..14
  BatchLoader loader(position_stream(N), 4, T, 1);
  std::set<int> starts;
  Batch b;
  for (int step = 0; step < 200; ++step) {
    loader.next(b);
    for (int r = 0; r < 4; ++r) starts.insert(b.inputs[r * T] - kBase);
  }
  EXPECT_EQ(starts.size(), 15u);
  EXPECT_EQ(*starts.begin(), 0);
  EXPECT_EQ(*starts.rbegin(), 14);
}

TEST(BatchLoader, SameSeedSameBatchesOtherSeedOthers) {
  BatchLoader a(position_stream(1000), 4, 16, 7), b(position_stream(1000), 4, 16, 7);
  BatchLoader c(position_stream(1000), 4, 16, 8);
  const auto da = draw(a, 10), db = draw(b, 10), dc = draw(c, 10);
  EXPECT_EQ(da, db);
  EXPECT_NE(da, dc);
  EXPECT_NE(da[0], da[1]);  // consecutive batches differ
}

TEST(BatchLoader, ResumeFromSavedStateEqualsUninterrupted) {
  BatchLoader run(position_stream(5000), 8, 32, 123);
  draw(run, 3);
  const llm0::BatchLoaderState saved = run.state();
  EXPECT_EQ(saved.windows, 3 * 8);
  const auto rest = draw(run, 5);
  // A fresh loader (even with another seed) continues identically once the state is restored.
  BatchLoader resumed(position_stream(5000), 8, 32, 999);
  resumed.set_state(saved);
  EXPECT_EQ(draw(resumed, 5), rest);
  EXPECT_EQ(resumed.state().windows, 8 * 8);
  EXPECT_EQ(resumed.state().rng, run.state().rng);
}

TEST(BatchLoader, SkipDrawsTheSameWindowsAsAWiderBatch) {
  // Data parallelism: a batch of 6 rows = rows 0-1 (rank 0), 2-3 (rank 1), 4-5 (rank 2). Each rank
  // skips the others' windows with skip() and ends in the same loader state.
  const int T = 9;
  BatchLoader wide(position_stream(3000), 6, T, 77);
  const auto want = draw(wide, 2);
  for (int rank = 0; rank < 3; ++rank) {
    BatchLoader part(position_stream(3000), 2, T, 77);
    Batch b;
    for (int step = 0; step < 2; ++step) {
      part.skip(2 * rank);
      part.next(b);
      part.skip(2 * (2 - rank));
      const std::vector<int32_t>& w = want[(size_t)step];  // inputs [6, T] then targets [6, T]
      const size_t at = (size_t)2 * rank * T, n = (size_t)2 * T;
      EXPECT_EQ(b.inputs, std::vector<int32_t>(w.begin() + at, w.begin() + at + n)) << rank;
      EXPECT_EQ(b.targets, std::vector<int32_t>(w.begin() + 6 * T + at, w.begin() + 6 * T + at + n));
    }
    EXPECT_EQ(part.state().rng, wide.state().rng);
    EXPECT_EQ(part.state().windows, 12);
  }
  EXPECT_THROW(wide.skip(-1), llm0::Error);
}

TEST(BatchLoader, EvalWalksTheStreamInNonOverlappingWindows) {
  const int N = 23, B = 3, T = 5;  // windows start at 0, 5, 10, 15 (22 / 5 = 4)
  BatchLoader loader(position_stream(N), B, T, 0);
  ASSERT_EQ(loader.num_eval_windows(), 4);
  ASSERT_EQ(loader.num_eval_batches(), 2);
  std::vector<int32_t> all_inputs, all_targets;
  Batch b;
  for (int64_t i = 0; i < loader.num_eval_batches(); ++i) {
    loader.eval_batch(i, b);
    EXPECT_EQ(b.B, i == 0 ? 3 : 1);  // the last batch is partial
    EXPECT_EQ(b.inputs.size(), size_t(b.B * T));
    all_inputs.insert(all_inputs.end(), b.inputs.begin(), b.inputs.end());
    all_targets.insert(all_targets.end(), b.targets.begin(), b.targets.end());
  }
  std::vector<int32_t> want_in(20), want_tg(20);  // inputs tokens 0..19, targets 1..20
  std::iota(want_in.begin(), want_in.end(), kBase);
  std::iota(want_tg.begin(), want_tg.end(), kBase + 1);
  EXPECT_EQ(all_inputs, want_in);
  EXPECT_EQ(all_targets, want_tg);
  EXPECT_THROW(loader.eval_batch(2, b), llm0::Error);
  EXPECT_THROW(loader.eval_batch(-1, b), llm0::Error);
}

TEST(BatchLoader, EvalDoesNotTouchTrainingState) {
  BatchLoader a(position_stream(300), 2, 8, 5), b(position_stream(300), 2, 8, 5);
  Batch tmp;
  a.eval_batch(0, tmp);
  a.eval_batch(3, tmp);
  EXPECT_EQ(draw(a, 4), draw(b, 4));
}

TEST(BatchLoader, ShortestStreamHasOneWindow) {
  BatchLoader loader(position_stream(9), 2, 8, 3);  // exactly T + 1 tokens: start 0 only
  Batch b;
  loader.next(b);
  for (int r = 0; r < 2; ++r) EXPECT_EQ(b.inputs[r * 8], kBase);
  EXPECT_EQ(loader.num_eval_windows(), 1);
}

TEST(BatchLoader, StreamShorterThanWindowThrows) {
  try {
    BatchLoader loader(position_stream(8), 2, 8, 3);
    FAIL() << "expected llm0::Error";
  } catch (const llm0::Error& e) {
    EXPECT_NE(std::string(e.what()).find("has 8 tokens, fewer than T + 1 = 9"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(BatchLoader(position_stream(100), 0, 8, 3), llm0::Error);
  EXPECT_THROW(BatchLoader(position_stream(100), 2, 0, 3), llm0::Error);
}
