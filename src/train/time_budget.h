// How many optimizer steps fit a time budget (`llm0 train --time-limit-minutes M`, make run's ten
// minutes). The cosine schedule (train/lr_schedule.h) needs its length before the first step, so
// the run plans it from two timed steps at start-up, then checks it against its own pace at each
// tenth of the budget through the first half: a start-up measured on a busy machine (or load that
// comes and goes) would otherwise end the run minutes early with the learning rate already at its
// floor, or let the clock cut it before the decay ends. llm.c and nanoGPT fix the step count by
// hand instead; warmup-stable-decay schedules (Hägele et al. 2024, arXiv:2405.18392) avoid the
// question by deciding the decay late.
#pragma once

namespace llm0 {

/// The longest schedule a plan or a re-plan gives (10⁹ steps: within an int, and years of steps).
constexpr int kMaxPlannedSteps = 1000000000;

/// Steps planned at start-up: 0.9 of `budget_s` (seconds) over `step_s` + `eval_s` (seconds per
/// step of training and of its share of validation), at least 1 and at most kMaxPlannedSteps. Throws
/// llm0::Error unless budget_s > 0 and step_s > 0 and eval_s >= 0.
int steps_for_budget(double budget_s, double step_s, double eval_s);

/// The re-planned schedule length after `done` steps and `elapsed_s` seconds of the run, the rest
/// of the budget's 0.95 taken at `pace_s` seconds a step (the recent pace, validations and
/// checkpoints included): done + floor((0.95·budget_s − elapsed_s) / pace_s), at least done + 1
/// and at most kMaxPlannedSteps. Returns `planned` unchanged when the new length is within 10% of it (the
/// pace's noise moves no schedule). Throws llm0::Error unless 0 < done < planned, elapsed_s > 0, budget_s > 0, pace_s > 0.
int replan_steps(int planned, int done, double elapsed_s, double budget_s, double pace_s);

/// The schedule is checked at every kReplanEvery of the budget up to kReplanUntil, each time at the
/// pace since the previous check (the validations and checkpoints that fell in it included; with
/// make run's ~150 steps a tenth, one or two validations). Later the length stays: the nearer the
/// decay's end, the more a new length would move the learning rate. A run resumed from a
/// checkpoint keeps the checkpoint's length and does not re-plan.
constexpr double kReplanEvery = 0.1, kReplanUntil = 0.5;

}  // namespace llm0
