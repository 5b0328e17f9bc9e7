// Linear warmup + cosine decay. See lr_schedule.h.
#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/check.h"

namespace llm0 {

double lr_at(int step, const LrSchedule& s) {
  LLM0_CHECK(step >= 0, "learning-rate step={} must be >= 0", step);
  LLM0_CHECK(s.warmup_steps >= 0, "warmup_steps={} must be >= 0", s.warmup_steps);
  LLM0_CHECK(s.total_steps >= 1 && s.total_steps >= s.warmup_steps,
             "total_steps={} must be >= 1 and >= warmup_steps={}", s.total_steps, s.warmup_steps);
  LLM0_CHECK(s.min_lr >= 0.0 && s.min_lr <= s.max_lr, "need 0 <= min_lr={} <= max_lr={}", s.min_lr,
             s.max_lr);
  if (step < s.warmup_steps) return s.max_lr * (step + 1) / s.warmup_steps;
  if (step >= s.total_steps) return s.min_lr;
  const double r = static_cast<double>(step - s.warmup_steps) / (s.total_steps - s.warmup_steps);
  const double coeff = 0.5 * (1.0 + std::cos(std::numbers::pi * r));  // 1 -> 0
  return s.min_lr + coeff * (s.max_lr - s.min_lr);
}

int capped_warmup(int warmup_steps, int total_steps) {
  return std::min(warmup_steps, std::max(1, total_steps / 10));
}

}  // namespace llm0
