// Training run setup: everything is loaded and validated before the first byte is written.
// See trainer.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "core/comm.h"
#include "core/cpu_features.h"
#include "core/openblas_core.h"
#include "core/threads.h"
#include "io/checkpoint.h"
#include "layers/mixer_factory.h"
#include "ledger/flops.h"
#include "ledger/fma_peak.h"
#include "ledger/sgemm_peak.h"
#include "model/init.h"
#include "train/baselines.h"
#include "train/corpus.h"
#include "train/loss_curve.h"
#include "train/metrics_log.h"
#include "train/run_lock.h"
#include "train/trainer.h"
#include "train/time_budget.h"
#include "train/trainer_impl.h"
#include "train/validation_probes.h"

namespace fs = std::filesystem;

namespace llm0 {

TrainerImpl::TrainerImpl(const TrainOptions& o) : o_(o) {
  LLM0_CHECK(!o_.out.empty(), "--out is required");
  if (!o_.resume.empty()) adopt_checkpoint_schedule(read_train_state(resolve_checkpoint_dir(o_.resume)));
  for (auto [flag, v, least] : {std::tuple{"--batch-size", o_.batch_size, 1},
                                 std::tuple{"--seq-len", o_.seq_len, 2},
                                 std::tuple{"--grad-accum", o_.grad_accum, 1},
                                 std::tuple{"--log-every", o_.log_every, 1},
                                 std::tuple{"--eval-every", o_.eval_every, 1},
                                 std::tuple{"--eval-batches", o_.eval_batches, 1},
                                 std::tuple{"--checkpoint-every", o_.checkpoint_every, 1},
                                 std::tuple{"--max-steps", o_.max_steps, 0},
                                 std::tuple{"--stop-after", o_.stop_after, 0},
                                 std::tuple{"--warmup-steps", o_.warmup_steps, 0}})
    LLM0_CHECK(v >= least, "{} {} must be at least {}", flag, v, least);
  LLM0_CHECK(std::isfinite(o_.time_limit_minutes) && o_.time_limit_minutes >= 0,
             "--time-limit-minutes {} must be a finite number of minutes >= 0", o_.time_limit_minutes);
  LLM0_CHECK(o_.max_steps > 0 || o_.time_limit_minutes > 0,
             "give --max-steps or --time-limit-minutes (both 0 means no end)");
  for (auto [name, v] : {std::pair{"--min-lr", o_.min_lr},
                         std::pair{"--weight-decay", o_.weight_decay},
                         std::pair{"--grad-clip", o_.grad_clip},
                         std::pair{"--moe-bias-gamma", o_.moe_bias_gamma}})
    LLM0_CHECK(std::isfinite(v) && v >= 0, "{} {} must be a finite number >= 0", name, v);
  // (the masks draw in float: a value that rounds to 1.0f, e.g. 0.99999999, is 1 there)
  LLM0_CHECK(std::isfinite(o_.dropout) && o_.dropout >= 0 && static_cast<float>(o_.dropout) < 1,
             "--dropout {} must be a probability in [0, 1)", o_.dropout);
  LLM0_CHECK(std::isfinite(o_.lr) && o_.lr > 0, "--lr {} must be a finite number > 0", o_.lr);
  LLM0_CHECK(o_.moe_bias_gamma > 0, "--moe-bias-gamma {} must be > 0", o_.moe_bias_gamma);
  LLM0_CHECK(o_.min_lr <= o_.lr, "--min-lr {}{} must not exceed --lr {}{} (the cosine decays from "
             "--lr to --min-lr)", o_.min_lr, o_.given.count("--min-lr") ? "" : " (the default)",
             o_.lr, o_.given.count("--lr") ? "" : " (the default)");
  check_probe_options(o_);
  if (!o_.resume.empty() && !o_.tokenizer.empty() && !o_.quiet)
    std::printf("note: --resume uses the checkpoint's own tokenizer.json; --tokenizer %s is "
                "ignored\n", o_.tokenizer.c_str());
  dp_ = std::make_unique<DataParallel>(o_.batch_size, o_.grad_accum, o_.test_fault,
                                       o_.allreduce_buckets);
  if (dp_->rank() != 0) o_.quiet = true;  // one voice: rank 0
  // Only rank 0 writes (and its machine holds the run directory); refused before any work.
  const bool replace_run = dp_->rank() == 0 && check_output_dir();
  std::vector<std::string> train, val;
  load_corpus(train, val);
  setup_model_and_tokenizer(train);  // on --resume: the state read, the batch checked
  LLM0_CHECK(o_.resume.empty() || state_.step < state_.total_steps, "--resume {}: the run is "
             "already finished (step {} of {}): nothing is left to train", o_.resume, state_.step,
             state_.total_steps);
  const MoeBalance balance = model_->config().moe.balance;  // γ is bias_update's rate alone
  LLM0_CHECK(!o_.given.count("--moe-bias-gamma") || balance == MoeBalance::BiasUpdate,
             "--moe-bias-gamma {}: unused, the model's balancing is {} (γ is bias_update's rate)",
             o_.moe_bias_gamma, !model_->config().moe.enabled() ? "none (no experts)"
             : balance == MoeBalance::AuxLoss ? "aux_loss" : "none");
  LLM0_CHECK(o_.seq_len <= model_->config().max_position_embeddings,
             "--seq-len {} is longer than the model's context max_position_embeddings={}", o_.seq_len,
             model_->config().max_position_embeddings);
  check_probe_lengths(o_, *tokenizer_, model_->config());
  choose_run_precision();
  setup_streams(train, val);
  if (dp_->rank() == 0) {  // every check passed: the directory and its log may change now
    make_output_dir();
    if (replace_run)  // a fresh run, or another run's files replaced: none of them may stay
      for (const char* old : {"checkpoint", "checkpoint.old", "checkpoint.tmp", "metrics.jsonl",
                              "loss_curve.svg"})
        fs::remove_all(o_.out + "/" + old);
    else  // the interrupted run may have logged steps past its checkpoint: they are re-run
      drop_metrics_after(o_.out + "/metrics.jsonl", state_.step);
  }
  measure_peaks(true);
  if (state_.total_steps == 0) state_.total_steps = plan_total_steps();
  else if (o_.resume.empty() && o_.time_limit_minutes > 0 && !o_.quiet)
    std::printf("schedule: %d steps (--max-steps); --time-limit-minutes %g stops the run sooner if "
                "the clock runs out first\n", state_.total_steps, o_.time_limit_minutes);
  state_.batch_size = o_.batch_size, state_.seq_len = o_.seq_len, state_.grad_accum = o_.grad_accum;
  state_.ranks = dp_->ranks(), state_.threads = num_threads();
  state_.has_schedule = true;
  state_.lr = o_.lr, state_.min_lr = o_.min_lr, state_.warmup_steps = o_.warmup_steps;
  state_.weight_decay = o_.weight_decay, state_.grad_clip = o_.grad_clip;
  state_.dropout = o_.dropout;
  if (dp_->ranks() > 1 && !o_.quiet)
    std::printf("data parallel: %d ranks x batch_size %d x grad_accum %d = global batch %lld "
                "sequences (%lld tokens) per step; threads per rank: %d\n", dp_->ranks(),
                o_.batch_size, o_.grad_accum, (long long)dp_->share().global_batch(),
                (long long)dp_->share().global_batch() * o_.seq_len, num_threads());
}

// --resume: the schedule and batch shape come from the checkpoint's trainer_state.json; an option
// the user gave explicitly (TrainOptions::given) with another value is refused, naming both.
// batch_size and grad_accum may be split differently over another number of ranks (the global
// batch must stay: check_resume_batch); the part not given is derived from the global batch.
void TrainerImpl::adopt_checkpoint_schedule(const TrainState& s) {
  auto take = [&](const char* flag, auto& value, auto saved) {
    LLM0_CHECK(!o_.given.count(flag) || value == saved,
               "--resume: {} {} differs from the checkpoint's {} (trainer_state.json); omit it to "
               "continue the run", flag, value, saved);
    value = saved;
  };
  take("--max-steps", o_.max_steps, s.total_steps);
  take("--seq-len", o_.seq_len, s.seq_len);
  take("--seed", o_.seed, s.seed);
  if (s.has_schedule) {
    take("--lr", o_.lr, s.lr);
    take("--min-lr", o_.min_lr, s.min_lr);
    take("--warmup-steps", o_.warmup_steps, s.warmup_steps);
    take("--weight-decay", o_.weight_decay, s.weight_decay);
    take("--grad-clip", o_.grad_clip, s.grad_clip);
    take("--dropout", o_.dropout, s.dropout);
  }
  const int64_t global = s.global_batch(), ranks = comm::size();
  const bool bs_given = o_.given.count("--batch-size") > 0, ga_given = o_.given.count("--grad-accum") > 0;
  if (!bs_given)
    o_.batch_size = ga_given && o_.grad_accum > 0 && global % (ranks * o_.grad_accum) == 0
                        ? static_cast<int>(global / (ranks * o_.grad_accum)) : s.batch_size;
  if (!ga_given)
    o_.grad_accum = o_.batch_size > 0 && global % (ranks * o_.batch_size) == 0
                        ? static_cast<int>(global / (ranks * o_.batch_size)) : s.grad_accum;
}

// A resume from DIR.old because DIR is missing or incomplete (resolve_checkpoint_dir's fallback)
// says so: the newer checkpoint's commit was interrupted between its two renames, and the steps
// after DIR.old's are trained again.
void TrainerImpl::report_interrupted_commit(const std::string& dir) const {
  const fs::path old(dir);
  const std::string latest = fs::path(old).replace_extension().string();
  std::error_code ec;
  if (o_.quiet || old.extension() != ".old" || fs::exists(latest + "/config.json", ec)) return;
  std::printf("note: %s %s (a crash interrupted the commit of a newer checkpoint): resuming from "
              "the last complete one, %s (step %d)\n", latest.c_str(),
              fs::exists(latest, ec) ? "is incomplete (no config.json)" : "is missing", dir.c_str(),
              state_.step);
}

// Thread lanes make a run's bits depend on its thread count (train/thread_lanes.h): a resume with
// another count continues the run, and says that its bits will differ from an uninterrupted run's.
// Checkpoints written before the count was recorded (threads 0) say nothing.
void TrainerImpl::check_resume_threads() const {
  if (o_.quiet || state_.threads == 0 || state_.threads == num_threads()) return;
  std::printf("note: the run trained with %d thread%s per process and this session has %d: a run's "
              "bits depend on its thread count, so from here on they will differ from an "
              "uninterrupted run's (resume with --threads %d to continue it bit for bit)\n",
              state_.threads, state_.threads == 1 ? "" : "s", num_threads(), state_.threads);
}

// Resuming needs the same global batch (sequences per step) and seq_len; the split into ranks,
// micro-batches and accumulation may change (the windows of a step are the same either way).
void TrainerImpl::check_resume_batch() {
  const RankShare& now = dp_->share();
  const int64_t want = state_.global_batch();
  std::string hint;
  if (want % now.ranks != 0)
    hint = format(" ({} sequences cannot be split over {} ranks: use a number of ranks that divides it)",
                  want, now.ranks);
  else
    hint = format(" (with {} ranks: batch_size x grad_accum = {})", now.ranks, want / now.ranks);
  LLM0_CHECK(state_.seq_len == o_.seq_len && want == now.global_batch(),
             "--resume: the checkpoint was trained with seq_len={} and a global batch of {} sequences "
             "(batch_size {} x grad_accum {} x {} ranks); this run has seq_len={} and {} (batch_size {} "
             "x grad_accum {} x {} ranks). Keep seq_len and the global batch{}", state_.seq_len, want,
             state_.batch_size, state_.grad_accum, state_.ranks, o_.seq_len, now.global_batch(),
             now.batch_size, now.grad_accum, now.ranks, hint);
  if (!o_.quiet && (state_.batch_size != now.batch_size || state_.ranks != now.ranks))
    std::printf("note: resuming a run of %d ranks x batch_size %d x grad_accum %d as %d ranks x "
                "batch_size %d x grad_accum %d (the same global batch of %lld sequences)\n",
                state_.ranks, state_.batch_size, state_.grad_accum, now.ranks, now.batch_size,
                now.grad_accum, (long long)want);
}

// What every rank must agree on besides data and weights (checked by check_same_start).
uint64_t TrainerImpl::options_hash() const {
  const std::string s = format("{} {} {} {} {} {} {} {} {} {} {} {} {}", o_.batch_size, o_.seq_len,
                               o_.grad_accum, o_.lr, o_.min_lr, o_.warmup_steps, o_.weight_decay,
                               o_.grad_clip, o_.eval_every, o_.eval_batches, state_.step,
                               state_.total_steps, state_.seed);
  return hash_bits(s.data(), s.size());
}

void TrainerImpl::load_corpus(std::vector<std::string>& train, std::vector<std::string>& val) const {
  LLM0_CHECK(!o_.data.empty(), "--data is required (a corpus directory from `llm0 data`, a text file or a directory)");
  if (fs::exists(o_.data + "/train.jsonl")) {
    train = read_documents(o_.data + "/train.jsonl");
    LLM0_CHECK(fs::exists(o_.data + "/validation.jsonl"), "{}: validation.jsonl is missing", o_.data);
    val = read_documents(o_.data + "/validation.jsonl");
  } else {
    CorpusSplit s = split_documents(read_documents(o_.data));
    train = std::move(s.train), val = std::move(s.validation);
  }
  LLM0_CHECK(!train.empty() && !val.empty(), "{}: the corpus needs documents for both training and validation", o_.data);
}

void TrainerImpl::setup_model_and_tokenizer(const std::vector<std::string>& train_docs) {
  if (!o_.resume.empty()) {
    LLM0_CHECK(o_.moe_balance.empty(), "--moe-balance {}: on --resume the balancing is the "
               "checkpoint's (moe_balance in its config.json)", o_.moe_balance);
    const std::string dir = resolve_checkpoint_dir(o_.resume);
    model_ = load_model(dir);
    tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::load(dir + "/tokenizer.json"));
    opt_ = std::make_unique<AdamW>(model_->params(), AdamWConfig{0.9, 0.95, 1e-8, o_.weight_decay});
    state_ = load_train_state(dir, model_->params(), *opt_);
    report_interrupted_commit(dir);
    check_resume_batch();
    check_resume_threads();
    if (!o_.config.empty() && !o_.quiet)
      std::printf("note: --resume uses the checkpoint's own config.json; --config %s is ignored\n",
                  o_.config.c_str());
    return;
  }
  LLM0_CHECK(!o_.config.empty(), "--config is required (or --resume)");
  ModelConfig cfg = ModelConfig::from_file(o_.config);
  check_mixers(cfg);  // a layer kind's refusal before the tokenizer is trained
  LLM0_CHECK(o_.moe_balance.empty() || cfg.moe.enabled(), "--moe-balance {}: {} has no "
             "mixture-of-experts layers", o_.moe_balance, o_.config);
  if (!o_.moe_balance.empty()) {
    cfg.moe.balance = parse_moe_balance(o_.moe_balance, "--moe-balance");
    if (cfg.moe.balance == MoeBalance::AuxLoss && cfg.moe.router_aux_loss_coef == 0)
      cfg.moe.router_aux_loss_coef = 1e-3;  // HF Qwen3MoeConfig's default
    cfg.moe.validate("--moe-balance");
  }
  if (!o_.tokenizer.empty()) {
    tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::load(o_.tokenizer));
  } else {
    if (!o_.quiet) std::printf("training a byte-level BPE tokenizer (vocab_size %d)...\n", cfg.vocab_size);
    tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::train(train_docs, cfg.vocab_size));
  }
  LLM0_CHECK(tokenizer_->vocab_size() <= cfg.vocab_size,
             "tokenizer has {} tokens but the config's vocab_size is {}", tokenizer_->vocab_size(),
             cfg.vocab_size);
  cfg.eos_token_id = tokenizer_->eos_id();
  model_ = std::make_unique<Model>(cfg);
  init_weights(*model_, o_.seed);
  opt_ = std::make_unique<AdamW>(model_->params(), AdamWConfig{0.9, 0.95, 1e-8, o_.weight_decay});
  state_.seed = o_.seed;
  if (o_.max_steps > 0) state_.total_steps = o_.max_steps;
}

namespace {
// Token stream: every document followed by <|endoftext|>.
std::vector<int32_t> token_stream(const Tokenizer& tok, const std::vector<std::string>& docs) {
  std::vector<int32_t> s;
  for (const std::string& d : docs) {
    for (int id : tok.encode(d)) s.push_back(id);
    s.push_back(tok.eos_id());
  }
  return s;
}
}  // namespace

void TrainerImpl::setup_streams(const std::vector<std::string>& train, const std::vector<std::string>& val) {
  std::vector<int32_t> ts = token_stream(*tokenizer_, train), vs = token_stream(*tokenizer_, val);
  LLM0_CHECK((int)vs.size() > o_.seq_len, "validation split has {} tokens, fewer than seq_len+1={}",
             vs.size(), o_.seq_len + 1);
  unigram_entropy_ = unigram_cross_entropy(ts, vs, model_->config().vocab_size);
  bigram_entropy_ = bigram_cross_entropy(ts, vs, model_->config().vocab_size);
  if (!o_.quiet)
    std::printf("corpus: %zu train documents (%zu tokens), %zu validation documents (%zu tokens)\n",
                train.size(), ts.size(), val.size(), vs.size());
  dp_->check_same_start(model_->params(), ts, options_hash());
  loader_ = std::make_unique<BatchLoader>(std::move(ts), o_.batch_size, o_.seq_len, state_.seed);
  val_loader_ = std::make_unique<BatchLoader>(std::move(vs), o_.batch_size, o_.seq_len, state_.seed);
  if (!o_.resume.empty()) loader_->set_state(state_.loader);
  micro_.assign((size_t)o_.grad_accum, Batch{});
}

// Never discard a run by accident: starting fresh in a directory that holds one (a checkpoint, or
// the log of a run that died before its first), or continuing another run into it (--resume A
// --out B), is an error without --overwrite; --overwrite with --resume of the run in --out itself
// is a contradiction. Writes nothing. Returns whether the directory's run files are replaced
// (anything but --resume of the run it holds): its old checkpoint and log then go together, so an
// interrupted replacement never leaves one run's checkpoint beside another's log.
// The run's checkpoint is RUN/checkpoint, or RUN/checkpoint.old where a crash between the two
// renames of a checkpoint commit left only that (io/checkpoint.h): --resume of either is this run.
bool TrainerImpl::check_output_dir() const {
  check_run_not_locked(o_.out);  // another trainer writes there now
  std::error_code ec;
  const std::string ckpt = o_.out + "/checkpoint", old = ckpt + ".old";
  const bool holds_run = fs::exists(ckpt, ec) || fs::exists(old, ec) ||
                         fs::exists(o_.out + "/metrics.jsonl", ec);
  const std::string resumed = o_.resume.empty() ? "" : resolve_checkpoint_dir(o_.resume);
  const bool same_run = !resumed.empty() && holds_run &&
                        (fs::equivalent(resumed, ckpt, ec) || fs::equivalent(resumed, old, ec));
  LLM0_CHECK(!(same_run && o_.overwrite), "--overwrite starts over and --resume {} continues the "
             "run in {}: give one of them", o_.resume, o_.out);
  if (o_.resume.empty())
    LLM0_CHECK(!holds_run || o_.overwrite, "{} already holds a training run (continue it with "
               "--resume, or start over with --overwrite)", o_.out);
  else
    LLM0_CHECK(!holds_run || same_run || o_.overwrite, "{} holds another training run: --resume "
               "{} there would replace it (pass --overwrite to allow that)", o_.out, o_.resume);
  LLM0_CHECK(!fs::exists(o_.out, ec) || fs::is_directory(o_.out, ec), "--out {} is a file, not a directory",
             o_.out);
  return !same_run;
}

// Creates --out (after every check: bad input writes nothing), takes its train.lock (held until
// this trainer is destroyed: train/run_lock.h) and proves the directory writable.
void TrainerImpl::make_output_dir() {
  std::error_code ec;
  fs::create_directories(o_.out, ec);
  LLM0_CHECK(!ec, "output directory {} is not writable (it cannot be created: {})", o_.out, ec.message());
  lock_ = std::make_unique<RunLock>(o_.out);
  const std::string probe = o_.out + "/.llm0-write-test";
  std::ofstream f(probe);
  LLM0_CHECK(!ec && f.good(), "output directory {} is not writable", o_.out);
  f.close();
  fs::remove(probe, ec);
}

// Steps that fit in the time limit (a run without --max-steps): one timed forward+backward on a validation batch (the
// weights and the training stream are untouched), plus evaluation overhead.
int TrainerImpl::plan_total_steps() {
  val_loader_->eval_batch(0, eval_batch_);
  double best = 1e30;
  for (int r = 0; r < 2; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    ThreadLanes& lanes = dp_->lanes(*model_);  // as the training steps run
    lanes.forward(eval_batch_.inputs.data(), eval_batch_.targets.data(), eval_batch_.B, eval_batch_.T);
    lanes.backward(0.0f);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  model_->params().zero_grad();
  if (o_.test_startup_step_s > 0) best = o_.test_startup_step_s;
  best = dp_->max(best);  // every rank plans the same number of steps: the slowest rank's
  const double step_s = best * o_.grad_accum * 1.08;  // + optimizer and data
  const double eval_s = best / 3 * o_.eval_batches / o_.eval_every;
  const int steps = steps_for_budget(o_.time_limit_minutes * 60, step_s, eval_s);
  if (!o_.quiet)
    std::printf("time budget %g min: one step takes ~%.3g s -> %d steps%s\n", o_.time_limit_minutes,
                step_s, steps, steps == kMaxPlannedSteps ? " (the most a plan may hold)" : "");
  next_check_s_ = kReplanEvery * o_.time_limit_minutes * 60;
  log({{"step", 0}, {"planned_total_steps", steps}});  // the start-up plan (log: rank 0 writes)
  return steps;
}

// A check of the schedule's length against the pace since the previous check
// (train/time_budget.h). Every rank takes the slowest rank's figures, so all re-plan alike. The
// warmup follows the new length (capped_warmup), as a resume from a later checkpoint derives it.
void TrainerImpl::check_schedule(LrSchedule& sched) {
  const double budget = o_.time_limit_minutes * 60, elapsed = dp_->max(seconds());
  const double pace = std::max(1e-9, elapsed - last_check_s_) / (state_.step - last_check_step_);
  next_check_s_ += kReplanEvery * budget;
  if (next_check_s_ > kReplanUntil * budget + 1e-9) next_check_s_ = 0;  // the last check
  last_check_s_ = elapsed, last_check_step_ = state_.step;
  const int was = state_.total_steps;
  const int now = replan_steps(was, state_.step, elapsed, budget, pace);
  if (now == was) return;
  const int warmup_was = sched.warmup_steps;
  state_.total_steps = sched.total_steps = now;
  sched.warmup_steps = capped_warmup(o_.warmup_steps, now);  // <= now: a valid schedule
  if (!o_.quiet)
    std::printf("re-planned at step %d (%s elapsed): steps now take ~%.3g s with validation -> %d "
                "steps (was %d)%s\n", state_.step, clock_text(elapsed).c_str(), pace, now, was,
                sched.warmup_steps == warmup_was ? ""
                : format(", warmup {} step{} (was {})", sched.warmup_steps,
                         sched.warmup_steps == 1 ? "" : "s", warmup_was).c_str());
  log({{"step", state_.step}, {"replanned_total_steps", now}, {"previous_total_steps", was},
       {"warmup_steps", sched.warmup_steps}});
}

// The clock ended the run before its schedule did (a --max-steps schedule, or a planned one whose
// steps slowed after the last check): said on the terminal and in metrics.jsonl, since the learning
// rate had not decayed to --min-lr and the checkpoint's schedule is unfinished.
void TrainerImpl::report_time_limit_cut() {
  if (!o_.quiet)
    std::printf("time limit %g min reached at step %d of the %d-step schedule: stopped there (the "
                "learning rate had not decayed to --min-lr; --resume continues the schedule)\n",
                o_.time_limit_minutes, state_.step, state_.total_steps);
  log({{"step", state_.step}, {"stopped_by_time_limit", true}, {"total_steps", state_.total_steps}});
}

bool TrainerImpl::out_of_time() const {
  return o_.time_limit_minutes > 0 && seconds() > o_.time_limit_minutes * 60;
}

std::string TrainerImpl::clock_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%dm%02ds", (int)(s / 60), (int)std::fmod(s, 60));
  return b;
}

// --precision: on --resume the checkpoint's (another explicit value is refused: a run resumes
// bit-exactly only in its own precision); auto is BF16 only where every rank chose it (the
// ranks must multiply alike). The start-up line says which and why.
void TrainerImpl::choose_run_precision() {
  std::string requested = o_.precision;
  if (!o_.resume.empty()) {
    LLM0_CHECK(requested == "auto" || requested == state_.precision, "--resume: --precision {} "
               "differs from the checkpoint's {} (trainer_state.json); a run resumes in its own "
               "precision (omit --precision)", requested, state_.precision);
    requested = state_.precision;
    LLM0_CHECK(requested != "bf16" || kernel_isa() == Isa::Avx512Bf16, "--resume {}: the run "
               "trains in bf16, which needs BF16 dot products (AVX512_BF16's vdpbf16ps); this CPU "
               "runs kernel level {}: resume it where the CPU has them", o_.resume,
               isa_name(kernel_isa()));
  }
  PrecisionChoice c = choose_precision(requested, model_->config(), o_.batch_size * o_.seq_len);
  if (!o_.resume.empty()) c.reason = "the checkpoint's: a run resumes in its own precision";
  const int bf16_ranks = (int)dp_->sum(c.precision == TrainPrecision::Bf16 ? 1.0 : 0.0);
  if (c.precision == TrainPrecision::Bf16 && bf16_ranks < dp_->ranks())
    c = {TrainPrecision::F32, c.reason + format("; {} of {} ranks chose bf16, so all use f32",
                                                bf16_ranks, dp_->ranks())};
  precision_ = c.precision;
  state_.precision = precision_name(precision_);
  model_->set_bf16_products(precision_ == TrainPrecision::Bf16);
  if (!o_.quiet)
    std::printf("precision: %s (%s)\n", precision_ == TrainPrecision::Bf16
                ? "bf16 products, float32 accumulation, weights and AdamW" : "f32",
                c.reason.c_str());
}

void TrainerImpl::report_validation(double val) {
  if (!o_.quiet)
    std::printf("step %5d | validation loss %.4f | perplexity %.2f | unigram %.4f | bigram %.4f\n",
                state_.step, val, std::exp(val), unigram_entropy_, bigram_entropy_);
  log({{"step", state_.step}, {"val_loss", val}, {"val_perplexity", std::exp(val)},
       {"unigram_baseline", unigram_entropy_}, {"bigram_baseline", bigram_entropy_}});
}

// The peaks of all ranks together (measured at once), the denominators of their joint MFU: sgemm
// (what the BLAS reaches) and the FMA peak (what the cores can; ledger/fma_peak.h). Both are
// ceilings, which other work on the machine can only lower for the ~0.3 s of a measurement: they
// are measured again at every validation and the highest so far is kept. At start-up one line
// says what the machine is and warns when sgemm is under half the FMA peak (a BLAS on generic
// kernels). Every rank calls it (the sums are collective).
void TrainerImpl::measure_peaks(bool startup) {
  const double sgemm = measure_sgemm_gflops(1024, 2);
  const double fma = precision_ == TrainPrecision::Bf16 ? measure_bf16_dot_gflops(num_threads())
                                                        : measure_fma_gflops(num_threads());
  const double all_sgemm = dp_->sum(sgemm), all_fma = dp_->sum(fma);
  peak_gflops_ = startup ? all_sgemm : std::max(peak_gflops_, all_sgemm);
  fma_gflops_ = startup ? all_fma : std::max(fma_gflops_, all_fma);
  if (!startup || o_.quiet || dp_->rank() != 0) return;
  const int lanes = dp_->lanes(*model_).lanes_for(o_.batch_size);
  std::printf("machine: %s, %d thread%s%s%s | %s | %s peak %.0f GFLOP/s (%s) | sgemm %.0f GFLOP/s "
              "= %.0f%% of it\n", cpu_model_name().c_str(), num_threads(), num_threads() == 1 ? "" : "s",
              dp_->ranks() > 1 ? format(" per rank, {} ranks", dp_->ranks()).c_str() : "",
              lanes > 1 ? format(" as {} thread lanes of the batch's sequences", lanes).c_str() : "",
              openblas_core_line().c_str(), peak_name(), fma, isa_name(kernel_isa()), sgemm,
              100 * sgemm / fma);
  if (sgemm < 0.5 * fma && precision_ == TrainPrecision::F32)
    std::printf("warning: sgemm reaches only %.0f%% of this CPU's FMA peak: OpenBLAS's %s kernels "
                "are slow here (OPENBLAS_CORETYPE names another core); MFU below is given against "
                "both\n", 100 * sgemm / fma, openblas_core().core.c_str());
}

TrainSummary TrainerImpl::summary(double loss, double val, double tokens) const {
  TrainSummary s;
  s.steps = state_.step, s.total_steps = state_.total_steps;
  s.final_train_loss = loss, s.final_val_loss = val, s.unigram_entropy = unigram_entropy_;
  s.bigram_entropy = bigram_entropy_;
  s.tokens_per_second = tokens / std::max(1e-9, seconds());
  const double flops = s.tokens_per_second * train_flops_per_token(model_->config(), o_.seq_len);
  s.mfu = flops / (peak_gflops_ * 1e9), s.mfu_fma = flops / (fma_gflops_ * 1e9);
  s.parameters = model_->num_parameters();
  s.precision = precision_name(precision_);
  s.stopped_by = stopped_by_;
  return s;
}

void TrainerImpl::write_loss_curve(const std::string& dir) const {
  std::map<int, double> train, val;  // last entry per step wins (a resumed run re-logs steps)
  std::ifstream in(dir + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = parse_metrics_line(line);
    if (j.is_discarded() || !j.contains("step")) continue;
    if (j.contains("loss")) train[j["step"].get<int>()] = j["loss"].get<double>();
    if (j.contains("val_loss")) val[j["step"].get<int>()] = j["val_loss"].get<double>();
  }
  const std::vector<CurveBaseline> baselines{
      {"unigram baseline", "token frequencies of the training split, no context", unigram_entropy_},
      {"bigram baseline", "the same given the previous token", bigram_entropy_}};
  write_loss_curve_svg(dir + "/loss_curve.svg", {train.begin(), train.end()}, {val.begin(), val.end()},
                       baselines, "llm0 training loss");
}

}  // namespace llm0
