// Learning-rate schedule: values at chosen steps against closed forms (src/train/lr_schedule.h).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/check.h"
#include "train/lr_schedule.h"

using llm0::lr_at;
using llm0::LrSchedule;

namespace {
// max 1e-3, min 1e-4, 10 warmup steps, 110 steps in all: the cosine spans steps 10..110.
const LrSchedule kS{1e-3, 1e-4, 10, 110};
}  // namespace

TEST(LrSchedule, WarmupIsLinearFromTheFirstStep) {
  EXPECT_DOUBLE_EQ(lr_at(0, kS), 1e-4);  // 1e-3 * 1/10: step 0 already learns
  EXPECT_DOUBLE_EQ(lr_at(4, kS), 5e-4);  // 1e-3 * 5/10
  EXPECT_DOUBLE_EQ(lr_at(9, kS), 1e-3);  // last warmup step reaches max_lr
}

TEST(LrSchedule, CosineAtChosenSteps) {
  EXPECT_DOUBLE_EQ(lr_at(10, kS), 1e-3);  // r = 0: cos 0 = 1
  // r = 1/4: (1 + cos(pi/4)) / 2 = (2 + sqrt 2) / 4
  EXPECT_NEAR(lr_at(35, kS), 1e-4 + 9e-4 * (2.0 + std::sqrt(2.0)) / 4.0, 1e-15);
  EXPECT_NEAR(lr_at(60, kS), 5.5e-4, 1e-15);  // r = 1/2: halfway between min and max
  // r = 3/4: (1 - cos(pi/4)) / 2 = (2 - sqrt 2) / 4
  EXPECT_NEAR(lr_at(85, kS), 1e-4 + 9e-4 * (2.0 - std::sqrt(2.0)) / 4.0, 1e-15);
  // Last step of the run, r = 99/100: (1 + cos(0.99 pi)) / 2 = sin^2(0.005 pi)
  const double s = std::sin(0.005 * std::numbers::pi);
  EXPECT_NEAR(lr_at(109, kS), 1e-4 + 9e-4 * s * s, 1e-15);
  EXPECT_GT(lr_at(109, kS), 1e-4);
}

TEST(LrSchedule, MinLrAtAndAfterTheEnd) {
  EXPECT_DOUBLE_EQ(lr_at(110, kS), 1e-4);
  EXPECT_DOUBLE_EQ(lr_at(100000, kS), 1e-4);
}

TEST(LrSchedule, NonIncreasingAfterWarmup) {
  for (int step = 10; step < 120; ++step) EXPECT_LE(lr_at(step + 1, kS), lr_at(step, kS)) << step;
}

TEST(LrSchedule, NoWarmupStartsAtMax) {
  const LrSchedule s{6e-4, 0.0, 0, 4};
  EXPECT_DOUBLE_EQ(lr_at(0, s), 6e-4);
  EXPECT_NEAR(lr_at(2, s), 3e-4, 1e-18);  // r = 1/2
  EXPECT_DOUBLE_EQ(lr_at(4, s), 0.0);
}

TEST(LrSchedule, WarmupOnlyRunHoldsMinLrAfterwards) {
  const LrSchedule s{1.0, 0.5, 4, 4};  // total == warmup: no cosine phase, no division by zero
  EXPECT_DOUBLE_EQ(lr_at(0, s), 0.25);
  EXPECT_DOUBLE_EQ(lr_at(3, s), 1.0);
  EXPECT_DOUBLE_EQ(lr_at(4, s), 0.5);
}

TEST(LrSchedule, BadArgumentsThrow) {
  EXPECT_THROW(lr_at(-1, kS), llm0::Error);
  EXPECT_THROW(lr_at(0, LrSchedule{1e-4, 1e-3, 0, 10}), llm0::Error);   // min > max
  EXPECT_THROW(lr_at(0, LrSchedule{1e-3, -1.0, 0, 10}), llm0::Error);   // negative min
  EXPECT_THROW(lr_at(0, LrSchedule{1e-3, 1e-4, 20, 10}), llm0::Error);  // warmup > total
  EXPECT_THROW(lr_at(0, LrSchedule{1e-3, 1e-4, 0, 0}), llm0::Error);    // no steps
  EXPECT_THROW(lr_at(0, LrSchedule{1e-3, 1e-4, -1, 10}), llm0::Error);
}

TEST(LrSchedule, WarmupIsCappedAtATenthOfTheSchedule) {
  using llm0::capped_warmup;
  EXPECT_EQ(capped_warmup(50, 3094), 50);   // a tenth is 309: the option stands
  EXPECT_EQ(capped_warmup(50, 98), 9);      // 98 / 10 (integer division)
  EXPECT_EQ(capped_warmup(50, 5), 1);       // at least one step
  EXPECT_EQ(capped_warmup(0, 1000), 0);     // no warmup asked, none given
  for (int total = 1; total <= 200; ++total) {  // a valid schedule at every length
    const int w = capped_warmup(1000, total);
    EXPECT_LE(w, total);
    EXPECT_NO_THROW(lr_at(0, LrSchedule{1e-3, 1e-4, w, total}));
  }
}
