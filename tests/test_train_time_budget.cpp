// Steps for a time budget and the checks of the schedule against the run's pace
// (src/train/time_budget.h): values against the header's closed forms, and the invariants a
// re-plan keeps.
#include <gtest/gtest.h>

#include "core/check.h"
#include "train/time_budget.h"

using llm0::replan_steps;
using llm0::steps_for_budget;

TEST(TimeBudget, StartupPlanIsNineTenthsOfTheBudgetOverAStep) {
  EXPECT_EQ(steps_for_budget(600, 0.17, 0.0), 3176);    // floor(540 / 0.17) = floor(3176.47)
  EXPECT_EQ(steps_for_budget(600, 0.25, 0.125), 1440);  // 540 / 0.375 (exact in binary)
  EXPECT_EQ(steps_for_budget(1, 100, 0), 1);            // never below one step
  EXPECT_THROW(steps_for_budget(600, 0, 0), llm0::Error);
  EXPECT_THROW(steps_for_budget(0, 0.1, 0), llm0::Error);
  EXPECT_THROW(steps_for_budget(600, 0.1, -1), llm0::Error);
}

// The case the checks exist for: start-up measured ~1.15 s a step on a busy machine, 456 steps
// planned; the run then goes at 0.125 s a step. At 60 s of a 600 s budget, 300 steps done:
// 300 + (570 − 60) / 0.125 = 300 + 4080, and at that pace the run ends at 0.95 of the budget.
TEST(TimeBudget, ASlowStartupIsCorrectedByThePace) {
  const int total = replan_steps(456, 300, 60.0, 600.0, 0.125);
  EXPECT_EQ(total, 300 + 4080);
  EXPECT_DOUBLE_EQ(60.0 + (total - 300) * 0.125, 570.0);
}

// A plan too long (start-up faster than the run): the clock would stop the run before the cosine
// reached its floor; the re-plan shortens it so that it ends inside the budget.
TEST(TimeBudget, ASlowerRunIsShortened) {
  const int total = replan_steps(6000, 240, 60.0, 600.0, 0.25);  // 0.25 s a step, not 0.09
  EXPECT_EQ(total, 240 + 2040);                                  // 240 + (570 − 60) / 0.25
  EXPECT_LE(60.0 + (total - 240) * 0.25, 0.95 * 600.0);
}

// The new length comes from the pace, not from the old plan (once it differs by more than 10%).
TEST(TimeBudget, TheNewLengthDoesNotDependOnTheOldPlan) {
  EXPECT_EQ(replan_steps(456, 300, 60.0, 600.0, 0.125), replan_steps(3000, 300, 60.0, 600.0, 0.125));
}

TEST(TimeBudget, APaceWithinATenthKeepsThePlan) {
  // 3000 planned: 300 + (570 − 60) / pace within 3000 · (1 ± 0.1) leaves it unchanged.
  EXPECT_EQ(replan_steps(3000, 300, 60.0, 600.0, 0.1875), 3000);  // 300 + 2720 = 3020: +0.7%
  EXPECT_EQ(replan_steps(3000, 300, 60.0, 600.0, 0.2), 3000);     // 300 + 2550 = 2850: −5%
  EXPECT_NE(replan_steps(3000, 300, 60.0, 600.0, 0.15625), 3000); // 300 + 3264 = 3564: +19%
  EXPECT_NE(replan_steps(3000, 300, 60.0, 600.0, 0.25), 3000);    // 300 + 2040 = 2340: −22%
}

TEST(TimeBudget, AtLeastOneMoreStepAndBadInputRefused) {
  // Already past 0.95 of the budget: one more step (the clock ends the run, the schedule with it).
  EXPECT_EQ(replan_steps(1000, 10, 590.0, 600.0, 1.0), 11);
  EXPECT_THROW(replan_steps(100, 0, 1.0, 600.0, 0.1), llm0::Error);
  EXPECT_THROW(replan_steps(100, 100, 1.0, 600.0, 0.1), llm0::Error);
  EXPECT_THROW(replan_steps(100, 10, 0.0, 600.0, 0.1), llm0::Error);
  EXPECT_THROW(replan_steps(100, 10, 1.0, 0.0, 0.1), llm0::Error);
  EXPECT_THROW(replan_steps(100, 10, 1.0, 600.0, 0.0), llm0::Error);
}
