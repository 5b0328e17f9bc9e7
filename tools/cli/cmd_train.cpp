// `llm0 train --config CONFIG.json --data CORPUS --out DIR [...]`: train from random weights (or
// --resume) with AdamW, printing progress, validation loss and MFU. See src/train/trainer.h.
// `mpirun -np N llm0 train ...` trains one model data-parallel (src/train/data_parallel.h).
#include <omp.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "common.h"
#include "core/comm.h"
#include "core/threads.h"
#include "train/precision.h"
#include "train/stop_request.h"
#include "train/trainer.h"

namespace llm0::cli {

namespace {
// Under mpirun without --threads, each rank takes its share of the machine (as torchrun's
// OMP_NUM_THREADS): the cores it is bound to, else the machine's cores / ranks on this machine.
void default_threads_per_rank() {
  if (threads_option() != 0 || comm::size() == 1) return;
  const int procs = omp_get_num_procs(), cores = (int)std::thread::hardware_concurrency();
  set_num_threads(procs < cores ? procs : std::max(1, cores / comm::local_size()));
}

bool say_stopping = false;  // rank 0 says on stderr that the request was heard

// SIGINT / SIGTERM: a stop request (train/stop_request.h), and both signals back to their default
// action, so a second one kills as usual. Only async-signal-safe calls here.
void on_stop_signal(int) {
  llm0::request_stop();
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGINT, &dfl, nullptr);
  sigaction(SIGTERM, &dfl, nullptr);
  static const char note[] = "stop requested: finishing this step, then validating and writing the "
                             "checkpoint (--resume continues; a second signal kills)\n";
  if (say_stopping) {
    const ssize_t n = write(STDERR_FILENO, note, sizeof note - 1);
    (void)n;  // nothing to do if stderr is gone
  }
}

void stop_on_signals() {
  say_stopping = comm::rank() == 0;
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // The explorer starts a trainer with both blocked (src/explore/train_process.cpp), so that a stop
  // sent before this point waits here and becomes a stop request instead of killing the program.
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &stops, nullptr);
}
}  // namespace

void register_train(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train a model from zero (or --resume) on a corpus");
  cmd->footer("Ctrl-C or SIGTERM stops the run after its current step: it validates, writes the "
              "checkpoint (--resume continues the schedule) and exits 0. A second one kills.");
  static TrainOptions o;
  cmd->add_option("--config", o.config, "Model config.json (e.g. configs/llm0-small.json)");
  cmd->add_option("--data", o.data, "Corpus: a directory from `llm0 data`, a text file or a directory")->required();
  cmd->add_option("--out", o.out, "Run directory (checkpoint/, metrics.jsonl, loss_curve.svg)")->required();
  cmd->add_option("--resume", o.resume, "Continue from this run or checkpoint directory");
  cmd->add_option("--tokenizer", o.tokenizer, "Use this tokenizer.json instead of training one (on --resume the checkpoint's is used)");
  cmd->add_option("--batch-size", o.batch_size, "Sequences per micro-batch (B)")->capture_default_str();
  cmd->add_option("--seq-len", o.seq_len, "Tokens per sequence (T); not given: 256, or the model's context max_position_embeddings when shorter")->capture_default_str();
  cmd->add_option("--grad-accum", o.grad_accum, "Micro-batches per optimizer step")->capture_default_str();
  cmd->add_option("--max-steps", o.max_steps, "Optimizer steps (0 = as many as fit in the time limit)")->capture_default_str();
  cmd->add_option("--time-limit-minutes", o.time_limit_minutes, "Wall-clock budget in minutes (0 = none); the schedule's length is planned from two timed steps at start-up and re-planned from the run's pace at each tenth of the budget through its first half (a 're-planned' line says so). With --max-steps, the step count sets the schedule and the limit may only stop it sooner (a 'time limit ... reached' line says so)")->capture_default_str();
  cmd->add_option("--lr", o.lr, "Peak learning rate")->capture_default_str();
  cmd->add_option("--min-lr", o.min_lr, "Final learning rate of the cosine decay")->capture_default_str();
  cmd->add_option("--warmup-steps", o.warmup_steps, "Linear warmup steps (at most a tenth of the schedule; the value used is printed at start)")->capture_default_str();
  cmd->add_option("--weight-decay", o.weight_decay, "AdamW decoupled weight decay (2-D weights only)")->capture_default_str();
  cmd->add_option("--grad-clip", o.grad_clip, "Clip the global gradient norm to this (0 = off)")->capture_default_str();
  cmd->add_option("--dropout", o.dropout, "Residual dropout probability in [0, 1): on the embeddings and on each attention and feed-forward output before its residual add (Transformer, Vaswani et al. 2017, 5.4); training only, validation and generation run without it (0 = off)")->capture_default_str();
  cmd->add_option("--eval-every", o.eval_every, "Validation every N steps")->capture_default_str();
  cmd->add_option("--eval-batches", o.eval_batches, "Validation batches per evaluation (per rank under mpirun)")->capture_default_str();
  cmd->add_option("--checkpoint-every", o.checkpoint_every, "Checkpoint every N steps (and at the end)")->capture_default_str();
  cmd->add_option("--log-every", o.log_every, "Progress line every N steps")->capture_default_str();
  cmd->add_option("--stop-after", o.stop_after, "Stop after N steps of this run, keeping the schedule (continue with --resume)")->capture_default_str();
  cmd->add_option("--check-sync-every", o.check_sync_every, "Data parallel: check every N steps that all ranks hold identical parameters (0 = only at the end)")->capture_default_str();
  cmd->add_flag("--allreduce-buckets", o.allreduce_buckets, "Data parallel: all-reduce each block's gradients during the backward of the earlier blocks (MPI_Iallreduce)");
  cmd->add_option("--test-fault", o.test_fault, "Tests only: desync@STEP or die@STEP on the last rank")->group("");
  cmd->add_option("--moe-balance", o.moe_balance, "Mixture-of-experts load balancing: none, aux_loss (router_aux_loss_coef, default 0.001) or bias_update (noaux_tc routers); default: the config's moe_balance")->check(CLI::IsMember({"none", "aux_loss", "bias_update"}));
  cmd->add_option("--moe-bias-gamma", o.moe_bias_gamma, "Bias update speed γ of --moe-balance bias_update (refused with any other balancing)")->check(positive_check())->capture_default_str();
  char margin[16];
  std::snprintf(margin, sizeof margin, "%.2f", kAutoBf16Margin);
  cmd->add_option("--precision", o.precision, std::string("Matrix products: f32, bf16 (BF16 operands, float32 accumulation, weights and AdamW; needs AVX512_BF16) or auto (bf16 where this CPU has it and the run's products measure >= ") + margin + "x faster at start-up: a timing, so pass f32 or bf16 for runs you compare). A resume keeps the checkpoint's precision")->check(CLI::IsMember({"auto", "f32", "bf16"}))->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed for the weights and the batch order")->check(seed_check())->capture_default_str();
  cmd->add_option("--sample-prompt", o.sample_prompts, "At every validation, continue this prompt with the model as trained so far, printed after the validation line and written to metrics.jsonl (a samples record). Repeatable. Sampling: temperature 0.8, top-k 40, seeded by --seed, the same draw each time, so only the weights change");
  cmd->add_option("--sample-tokens", o.sample_tokens, "Tokens each --sample-prompt continuation has at most")->capture_default_str();
  cmd->add_option("--attention-text", o.attention_text, "At every validation, write the attention map of this sentence (every layer's and head's weights, as `llm0 lesson attention-map`) to metrics.jsonl (an attention record)");
  cmd->add_flag("--quiet", o.quiet, "No progress lines");
  cmd->add_flag("--overwrite", o.overwrite, "Replace the run an --out directory already holds: start over there, or (with --resume of another run) continue that run there");
  add_threads_option(cmd);
  cmd->callback([cmd] {
    default_threads_per_rank();
    stop_on_signals();  // Ctrl-C / SIGTERM: validate, checkpoint and end the session cleanly
    for (const CLI::Option* opt : cmd->get_options())  // on --resume, what was given is checked
      if (opt->count() > 0) o.given.insert(opt->get_name());
    Trainer trainer(o);
    const TrainSummary s = trainer.run();
    if (comm::rank() != 0) return;
    const std::string stopped =
        s.stopped_by.empty() ? "" : " (stopped by " + s.stopped_by + "; --resume continues the schedule)";
    std::printf("done: %d/%d steps%s, %zu parameters | train loss %.4f | validation loss %.4f "
                "(perplexity %.2f) vs baselines unigram %.4f, bigram %.4f | %.0f tok/s | MFU %.1f%% of sgemm, %.1f%% of "
                "%s peak\n", s.steps, s.total_steps, stopped.c_str(), s.parameters, s.final_train_loss, s.final_val_loss,
                std::exp(s.final_val_loss), s.unigram_entropy, s.bigram_entropy, s.tokens_per_second, 100 * s.mfu,
                100 * s.mfu_fma, s.precision == "bf16" ? "BF16" : "FMA");
  });
}

}  // namespace llm0::cli
