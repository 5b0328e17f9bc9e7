// Options of one training run (`llm0 train`); defaults follow nanoGPT / llm.c small-model practice.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace llm0 {

struct TrainOptions {
  std::string config;      // model config.json (ignored on --resume: the checkpoint's is used)
  std::string data;        // corpus: a directory from `llm0 data` (train.jsonl + validation.jsonl),
                           // or any file/directory read_documents() accepts (split 95/5 here)
  std::string out;         // run directory: checkpoint/, metrics.jsonl, loss_curve.svg
  std::string resume;      // run or checkpoint directory to continue from ("" = fresh start)
  std::string tokenizer;   // tokenizer.json to use ("" = train one on the corpus, vocab_size of config)
  int batch_size = 8;      // B, sequences per micro-batch
  int seq_len = 256;       // T, tokens per sequence (<= max_position_embeddings)
  int grad_accum = 1;      // micro-batches per optimizer step
  int max_steps = 0;       // optimizer steps (0 = as many as fit in time_limit_minutes)
  double time_limit_minutes = 0;  // wall-clock budget (0 = none); training stops and saves at it
  double lr = 1e-3, min_lr = 1e-4;  // peak and final learning rate (cosine)
  int warmup_steps = 50;
  double weight_decay = 0.1;
  double grad_clip = 1.0;  // max global L2 norm (0 = off)
  double dropout = 0;      // residual dropout probability in [0, 1) (0 = off; Model::forward)
  int eval_every = 100, eval_batches = 8;  // validation loss every N steps over K batches (per
                                           // data-parallel rank)
  int checkpoint_every = 200;              // plus one at the end
  int log_every = 10;
  int stop_after = 0;      // stop (and checkpoint) after this many steps of this process, keeping
                           // the schedule: train in sessions with --resume (0 = off)
  int check_sync_every = 100;  // data parallel: compare the ranks' parameters every N steps (and
                               // at the end); 0 = only at the end
  bool allreduce_buckets = false;  // data parallel: all-reduce per block during backward
  std::string test_fault;  // tests only (data_parallel.h): "desync@STEP" or "die@STEP"
  double test_startup_step_s = 0;  // tests only: > 0 replaces the start-up timing of a step
                                   // (seconds) that plans a time-budgeted run, forcing a re-plan
  uint64_t seed = 1337;    // init weights and batch sampling
  std::string precision = "auto";  // matrix products: auto | f32 | bf16 (train/precision.h); on
                                   // --resume the checkpoint's (another explicit value is refused)
  std::string moe_balance;  // MoE load balancing: none | aux_loss | bias_update ("" = the config's)
  double moe_bias_gamma = 1e-3;  // γ of the bias update (DeepSeek-V3's auxiliary-loss-free balancing)
  // At every validation (rank 0; train/validation_probes.h): a continuation of each prompt of
  // at most sample_tokens tokens (a samples record), the attention map of attention_text ("" =
  // none; an attention record).
  std::vector<std::string> sample_prompts;
  int sample_tokens = 32;
  std::string attention_text;
  bool quiet = false;      // no progress lines (tests)
  bool overwrite = false;  // allow a fresh run in a directory that already holds one
  // The options the user gave explicitly, by flag ("--max-steps", "--batch-size", ...). On
  // --resume, the schedule and batch shape (max_steps, seq_len, seed, lr, min_lr, warmup_steps,
  // weight_decay, grad_clip, dropout, batch_size, grad_accum) come from the checkpoint's
  // trainer_state.json; a flag given here with another value is refused, naming both values.
  std::set<std::string> given;
};

/// What a finished run reports.
struct TrainSummary {
  int steps = 0;                  // optimizer steps taken in total (including before a resume)
  int total_steps = 0;            // the schedule's length
  double final_train_loss = 0;    // nats/token, last step
  double final_val_loss = 0;      // nats/token
  double unigram_entropy = 0;     // nats/token: cross-entropy of validation tokens under the
                                  // training unigram distribution (the no-context baseline)
  double bigram_entropy = 0;      // nats/token: the same under the training bigram model (the
                                  // previous-token baseline; train/baselines.h)
  double tokens_per_second = 0;   // training throughput of this process
  double mfu = 0;                 // achieved / sgemm-peak FLOP/s
  double mfu_fma = 0;             // achieved / peak FLOP/s of the precision in use: the float32
                                  // FMA peak, or the BF16 dot-product peak (ledger/fma_peak.h)
  std::string precision = "f32";  // the products' precision used (train/precision.h)
  std::string stopped_by;         // what ended the session before the schedule's last step:
                                  // "the time limit", "a stop request" (SIGINT / SIGTERM:
                                  // train/stop_request.h), "--stop-after", or empty
  size_t parameters = 0;
};

}  // namespace llm0
