// Steps that fit a time budget. See time_budget.h.
#include "train/time_budget.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace llm0 {

int steps_for_budget(double budget_s, double step_s, double eval_s) {
  LLM0_CHECK(budget_s > 0 && step_s > 0 && eval_s >= 0,
             "steps_for_budget: budget {} s, step {} s, validation {} s per step (needs > 0, > 0, >= 0)",
             budget_s, step_s, eval_s);
  const double steps = std::floor(budget_s * 0.9 / (step_s + eval_s));
  return (int)std::clamp(steps, 1.0, (double)kMaxPlannedSteps);
}

int replan_steps(int planned, int done, double elapsed_s, double budget_s, double pace_s) {
  LLM0_CHECK(0 < done && done < planned && elapsed_s > 0 && budget_s > 0 && pace_s > 0,
             "replan_steps: {} of {} steps in {} s of a {} s budget at {} s a step (needs 0 < done "
             "< planned, times > 0)", done, planned, elapsed_s, budget_s, pace_s);
  const double more = std::max(1.0, std::floor((0.95 * budget_s - elapsed_s) / pace_s));
  const double total = std::min(done + more, (double)kMaxPlannedSteps);
  return std::abs(total - planned) <= 0.1 * planned ? planned : (int)total;
}

}  // namespace llm0
