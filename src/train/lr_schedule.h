// Learning-rate schedule: linear warmup, then cosine decay to min_lr (SGDR, Loshchilov & Hutter,
// arXiv:1608.03983, without restarts; as in llm.c's train_gpt2 and nanoGPT's get_lr).
#pragma once

namespace llm0 {

/// Schedule parameters. Learning rates are absolute; steps count optimizer steps.
struct LrSchedule {
  double max_lr = 1e-3;   // peak, reached at the last warmup step
  double min_lr = 1e-4;   // floor, reached at step total_steps
  int warmup_steps = 0;   // steps 0 .. warmup_steps-1 ramp up linearly
  int total_steps = 1;    // length of the run; the cosine ends here
};

/// Learning rate for the optimizer step `step`, 0-based (the first update uses lr_at(0, s)),
/// following llm.c:
///   step <  warmup_steps:                 max_lr * (step + 1) / warmup_steps
///   warmup_steps <= step < total_steps:   min_lr + (max_lr - min_lr) * (1 + cos(pi * r)) / 2,
///                                         r = (step - warmup_steps) / (total_steps - warmup_steps)
///   step >= total_steps:                  min_lr
/// So the first step already learns (nanoGPT's (it+1) fix), the last warmup step and the first
/// cosine step both use max_lr, and the last step of the run (total_steps - 1) is just above min_lr.
/// Throws llm0::Error if step < 0, warmup_steps < 0, total_steps < max(1, warmup_steps), or
/// not 0 <= min_lr <= max_lr.
double lr_at(int step, const LrSchedule& s);

/// The warmup a schedule of `total_steps` uses: min(warmup_steps, max(1, total_steps / 10)), at
/// most a tenth of the schedule so that a short (time-budgeted) run still decays. A function of the
/// length alone, so a resume, and a re-planned length (train/time_budget.h), derive it again alike.
int capped_warmup(int warmup_steps, int total_steps);

}  // namespace llm0
