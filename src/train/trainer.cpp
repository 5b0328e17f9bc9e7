// The training loop. See trainer.h.
#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/threads.h"
#include "ops/dropout.h"
#include "io/checkpoint.h"
#include "ledger/flops.h"
#include "train/moe_load.h"
#include "ledger/sgemm_peak.h"
#include "model/init.h"
#include "tokenizer/tokenizer.h"
#include "train/adamw.h"
#include "train/corpus.h"
#include "train/grad_clip.h"
#include "train/loss_curve.h"
#include "train/lr_schedule.h"
#include "train/stop_request.h"
#include "train/validation_probes.h"
#include "train/train_state.h"
#include "train/time_budget.h"
#include "train/trainer_impl.h"

namespace fs = std::filesystem;

namespace llm0 {

Trainer::Trainer(const TrainOptions& o) : impl_(std::make_unique<TrainerImpl>(o)) {}
Trainer::~Trainer() = default;
TrainSummary Trainer::run() { return impl_->run(); }

double TrainerImpl::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

// One optimizer step: this rank's grad_accum micro-batches of the global batch, gradients summed
// over ranks and normalised by the global target count, then one clip and one AdamW step.
double TrainerImpl::train_step(double lr) {
  ParamStore& p = model_->params();
  double targets = 0;
  // Residual dropout's draw: a function of the seed and the step (so a resume draws the same).
  const Dropout dropout{(float)o_.dropout, splitmix64(o_.seed + splitmix64((uint64_t)state_.step))};
  const double loss = dp_->step_gradients(*model_, *loader_, micro_, &targets, dropout);
  grad_norm_ = clip_grad_norm(p.grad(), p.size(), o_.grad_clip);
  opt_->step(p, lr);
  if (model_->config().moe.balance == MoeBalance::BiasUpdate) {
    // Each rank would see only its own loads and the biases would drift apart.
    LLM0_CHECK(dp_->ranks() == 1, "--moe-balance bias_update runs in one process only (the "
               "expert loads are not summed over ranks yet); use aux_loss under mpirun");
    model_->update_router_bias(o_.moe_bias_gamma, dp_->expert_load());  // the whole step's loads
  }
  state_.tokens_seen += targets;
  return loss;
}

// eval_batches validation batches per rank, dealt round-robin (rank r takes r, r + ranks, ...), so
// 2 ranks x B and 1 process x 2B evaluate the same windows; sums and counts are added up.
double TrainerImpl::evaluate() {
  const int64_t n = std::min<int64_t>((int64_t)o_.eval_batches * dp_->ranks(),
                                      val_loader_->num_eval_batches());
  double sum = 0, count = 0;
  for (int64_t i = dp_->rank(); i < n; i += dp_->ranks()) {
    val_loader_->eval_batch(i, eval_batch_);
    long c = 0;
    sum += dp_->lanes(*model_).forward(eval_batch_.inputs.data(), eval_batch_.targets.data(),
                                       eval_batch_.B, eval_batch_.T, &c);
    count += (double)c;
  }
  return dp_->sum(sum) / std::max(1.0, dp_->sum(count));
}

void TrainerImpl::log(const nlohmann::json& j) {
  if (dp_->rank() != 0) return;  // one writer: rank 0
  // (a sample of an undertrained model may hold bytes that are not UTF-8: written as U+FFFD)
  std::ofstream(o_.out + "/metrics.jsonl", std::ios::app)
      << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// The samples and attention records of this validation (rank 0), the samples also on the terminal.
void TrainerImpl::report_probes() {
  if (dp_->rank() != 0) return;
  if (!o_.sample_prompts.empty()) {
    const std::vector<ProbeSample> samples = sample_prompts(*model_, *tokenizer_, o_);
    if (!o_.quiet) {
      for (const ProbeSample& s : samples) std::printf("%s\n", sample_line(s).c_str());
      std::fflush(stdout);
    }
    log(samples_record(state_.step, samples, o_));
  }
  if (!o_.attention_text.empty()) log(attention_record(state_.step, *model_, *tokenizer_, o_));
}

// The figures of a progress line and step record at this step, from the throughput since the last.
TrainerImpl::StepFigures TrainerImpl::step_figures(double tok_s) const {
  StepFigures f;
  f.elapsed_s = seconds();
  const double per_step = f.elapsed_s / std::max(1, state_.step - first_step_);
  f.eta_s = per_step * (state_.total_steps - state_.step);  // the schedule's end, or the clock's
  if (o_.time_limit_minutes > 0)
    f.eta_s = std::max(0.0, std::min(f.eta_s, o_.time_limit_minutes * 60 - f.elapsed_s));
  const double flops = tok_s * train_flops_per_token(model_->config(), o_.seq_len);
  f.mfu = flops / (peak_gflops_ * 1e9), f.mfu_fma = flops / (fma_gflops_ * 1e9);
  return f;
}

void TrainerImpl::print_progress(double loss, double lr, double tok_s, const StepFigures& f) {
  if (o_.quiet) return;
  const MoeLoadSpread spread = moe_load_spread(dp_->expert_load());
  char experts[96] = "";
  if (spread.layer >= 0)  // the worst layer's busiest and idlest expert (uniform: 1/E each)
    std::snprintf(experts, sizeof experts, " | experts %.3f/%.3f (layer %d)", spread.max_fraction,
                  spread.min_fraction, spread.layer);
  std::printf("step %5d/%d | loss %.4f | lr %.2e | %6.0f tok/s | MFU %4.1f%% of sgemm, %4.1f%% of "
              "%s peak | %s elapsed | ETA %s%s\n", state_.step, state_.total_steps, loss, lr, tok_s,
              100 * f.mfu, 100 * f.mfu_fma, peak_name(), clock_text(f.elapsed_s).c_str(),
              clock_text(f.eta_s).c_str(), experts);
  std::fflush(stdout);
}

void TrainerImpl::save_checkpoint_now() {
  if (dp_->rank() != 0) return;  // every rank holds the same state; rank 0 writes it
  CheckpointWriter w(o_.out + "/checkpoint");
  write_model_files(*model_, w.path(""));
  tokenizer_->save(w.path("tokenizer.json"));
  save_train_state(w.path(""), state_, model_->params(), *opt_);
  w.commit();
}

// A progress line and a metrics record; with several ranks also the gradient all-reduce's time
// per step since the last record (waiting for the slowest rank, then the transfer).
void TrainerImpl::log_step(double loss, double lr, double tok_s) {
  const StepFigures f = step_figures(tok_s);
  print_progress(loss, lr, tok_s, f);
  nlohmann::json j = {{"step", state_.step}, {"loss", loss}, {"lr", lr}, {"grad_norm", grad_norm_},
                      {"tokens_per_s", tok_s}, {"elapsed_s", f.elapsed_s},
                      {"tokens_seen", state_.tokens_seen}, {"total_steps", state_.total_steps},
                      {"mfu", f.mfu}, {"mfu_fma", f.mfu_fma}, {"eta_s", f.eta_s}};
  const MoeLoadSpread spread = moe_load_spread(dp_->expert_load());
  if (spread.layer >= 0) {  // expert-load spread of the step (all micro-batches), worst MoE layer
    j["moe_load_max"] = spread.max_fraction, j["moe_load_min"] = spread.min_fraction;
    j["moe_load_worst_layer"] = spread.layer;
    if (model_->config().moe.balance == MoeBalance::AuxLoss) j["aux_loss"] = model_->aux_loss();
  }
  const AllreduceStats& a = dp_->stats();
  if (a.calls > 0) {
    j["allreduce_bytes"] = a.bytes;
    j["allreduce_ms"] = 1e3 * a.transfer_s / a.calls;
    j["allreduce_wait_ms"] = 1e3 * a.wait_s / a.calls;
    j["allreduce_gb_s"] = a.bytes * a.calls / std::max(1e-12, a.transfer_s) / 1e9;
  }
  dp_->reset_stats();
  log(j);
}

// The session's first record, once the schedule is planned: what this process trains and how.
void TrainerImpl::log_start(int warmup) {
  const nlohmann::json config = model_->config().to_json();  // as the checkpoint's config.json
  log({{"step", state_.step}, {"event", "start"}, {"parameters", model_->num_parameters()},
       {"total_steps", state_.total_steps}, {"warmup_steps", warmup}, {"lr", o_.lr},
       {"min_lr", o_.min_lr}, {"batch_size", o_.batch_size}, {"seq_len", o_.seq_len},
       {"grad_accum", o_.grad_accum}, {"threads", num_threads()}, {"ranks", dp_->ranks()},
       {"precision", precision_name(precision_)}, {"peak_name", peak_name()},
       {"sgemm_gflops", peak_gflops_}, {"peak_gflops", fma_gflops_}, {"seed", o_.seed},
       {"dropout", o_.dropout}, {"time_limit_minutes", o_.time_limit_minutes},
       {"max_steps", o_.max_steps}, {"resumed", !o_.resume.empty()},
       {"model_type", config.value("model_type", "")}, {"config", config},
       // what a resume needs besides the checkpoint (the explorer resumes a terminal run with it)
       {"data", o_.data}, {"sample_prompts", o_.sample_prompts}, {"sample_tokens", o_.sample_tokens},
       {"attention_text", o_.attention_text}});
}

// The session's last record: what ended it ("" = the schedule's end) and its final figures.
void TrainerImpl::log_done(const TrainSummary& s) {
  log({{"step", state_.step}, {"event", "done"}, {"stopped_by", s.stopped_by},
       {"total_steps", s.total_steps}, {"final_train_loss", s.final_train_loss},
       {"final_val_loss", s.final_val_loss}, {"unigram_baseline", s.unigram_entropy},
       {"bigram_baseline", s.bigram_entropy}, {"tokens_per_s", s.tokens_per_second},
       {"mfu", s.mfu}, {"mfu_fma", s.mfu_fma}});
}

// Whether this step ends the session; ranks agree (a time limit is read on every rank's clock, a
// stop request may reach one rank only: train/stop_request.h).
bool TrainerImpl::is_last_step() {
  const bool timed_out = o_.time_limit_minutes > 0 && dp_->any(out_of_time());
  const bool requested = dp_->any(stop_requested());
  const bool stopped = o_.stop_after > 0 && state_.step - first_step_ >= o_.stop_after;
  const bool end = state_.step == state_.total_steps;
  stopped_by_ = end ? "" : timed_out ? kByClock : requested ? "a stop request" : stopped ? "--stop-after" : "";
  return end || timed_out || requested || stopped;
}

TrainSummary TrainerImpl::run() {
  start_ = std::chrono::steady_clock::now();
  first_step_ = state_.step;
  const int warmup = capped_warmup(o_.warmup_steps, state_.total_steps);
  LrSchedule sched{o_.lr, o_.min_lr, warmup, state_.total_steps};  // its length may be re-planned
  if (!o_.quiet)
    std::printf("warmup: %d step%s%s\n", warmup, warmup == 1 ? "" : "s",
                warmup < o_.warmup_steps
                    ? format(" ({} {} capped at a tenth of the {}-step schedule)",
                             o_.given.count("--warmup-steps") ? "--warmup-steps"
                             : o_.resume.empty() ? "the default warmup" : "the checkpoint's warmup",
                             o_.warmup_steps, state_.total_steps).c_str() : "");
  log_start(warmup);
  if (!o_.quiet && o_.dropout > 0)
    std::printf("dropout: %g on the embeddings and each residual branch (training steps only)\n",
                o_.dropout);
  double loss = 0, tokens_at_start = state_.tokens_seen, val = NAN;
  double window_t = seconds(), window_tok = state_.tokens_seen;
  while (state_.step < state_.total_steps) {
    const double lr = lr_at(state_.step, sched);
    loss = train_step(lr);
    state_.loader = loader_->state();
    ++state_.step;
    dp_->apply_test_fault(state_.step, model_->params());
    if (next_check_s_ > 0 && state_.step < state_.total_steps && dp_->any(seconds() >= next_check_s_))
      check_schedule(sched);
    const bool last = is_last_step();
    if (state_.step % o_.log_every == 0 || last) {
      const double tok_s = (state_.tokens_seen - window_tok) / std::max(1e-9, seconds() - window_t);
      window_t = seconds(), window_tok = state_.tokens_seen;
      log_step(loss, lr, tok_s);
    }
    if ((o_.check_sync_every > 0 && state_.step % o_.check_sync_every == 0) || last)
      dp_->check_in_sync(model_->params(), "after step " + std::to_string(state_.step));
    const bool validate = state_.step % o_.eval_every == 0 || last;
    const bool save = state_.step % o_.checkpoint_every == 0 || last;
    if (validate) {
      measure_peaks(false);  // the MFU denominators: the highest measurement so far
      report_validation(val = evaluate());
      report_probes();
    }
    if (save) save_checkpoint_now();
    if (validate || save)
      window_t = seconds(), window_tok = state_.tokens_seen;  // tok/s counts training steps only
    if (last && stopped_by_ == kByClock) report_time_limit_cut();
    if (last) break;
  }
  if (std::isnan(val)) val = evaluate();
  const TrainSummary s = summary(loss, val, state_.tokens_seen - tokens_at_start);
  log_done(s);
  if (dp_->rank() == 0) write_loss_curve(o_.out);
  return s;
}

}  // namespace llm0
