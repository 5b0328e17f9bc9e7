// Private state of the training loop (trainer.cpp: the loop; trainer_setup.cpp: loading and
// validation before anything is written).
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "tokenizer/tokenizer.h"
#include "train/adamw.h"
#include "train/batch_loader.h"
#include "train/data_parallel.h"
#include "train/lr_schedule.h"
#include "train/precision.h"
#include "train/run_lock.h"
#include "train/train_options.h"
#include "train/train_state.h"

namespace llm0 {

class TrainerImpl {
 public:
  explicit TrainerImpl(const TrainOptions& o);
  TrainSummary run();

 private:
  void load_corpus(std::vector<std::string>& train, std::vector<std::string>& val) const;
  void setup_model_and_tokenizer(const std::vector<std::string>& train_docs);
  void setup_streams(const std::vector<std::string>& train, const std::vector<std::string>& val);
  bool check_output_dir() const;
  void make_output_dir();
  void adopt_checkpoint_schedule(const TrainState& s);
  void check_resume_batch();
  void report_interrupted_commit(const std::string& dir) const;
  void check_resume_threads() const;
  uint64_t options_hash() const;
  int plan_total_steps();
  void check_schedule(LrSchedule& sched);
  double train_step(double lr);
  double evaluate();
  void report_validation(double val);
  void report_probes();
  void log(const nlohmann::json& j);
  void measure_peaks(bool startup);
  void choose_run_precision();
  // The MFU denominator's name: "FMA" (float32) or "BF16" (vdpbf16ps dot products).
  const char* peak_name() const { return precision_ == TrainPrecision::Bf16 ? "BF16" : "FMA"; }
  // A step's figures beside its loss: seconds since run() began, the ETA (the schedule's end or
  // the clock's, seconds), and the MFU against the sgemm and the FMA / BF16 peak.
  struct StepFigures {
    double elapsed_s = 0, eta_s = 0, mfu = 0, mfu_fma = 0;
  };
  StepFigures step_figures(double tok_s) const;
  void log_step(double loss, double lr, double tok_s);
  void log_start(int warmup);
  bool is_last_step();
  void log_done(const TrainSummary& s);
  void print_progress(double loss, double lr, double tok_s, const StepFigures& f);
  void save_checkpoint_now();
  bool out_of_time() const;
  void report_time_limit_cut();
  double seconds() const;
  static std::string clock_text(double s);
  TrainSummary summary(double loss, double val, double tokens) const;
  void write_loss_curve(const std::string& dir) const;

  TrainOptions o_;
  std::unique_ptr<RunLock> lock_;  // rank 0: RUN/train.lock, held from make_output_dir on
  std::unique_ptr<DataParallel> dp_;  // ranks, this rank's share of each global batch
  std::unique_ptr<Model> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<AdamW> opt_;
  std::unique_ptr<BatchLoader> loader_, val_loader_;
  std::vector<Batch> micro_;
  Batch eval_batch_;
  TrainState state_;
  double unigram_entropy_ = 0, bigram_entropy_ = 0, grad_norm_ = 0;  // baselines: train/baselines.h
  double peak_gflops_ = 1, fma_gflops_ = 1;  // all ranks' sgemm and FMA peaks (MFU denominators;
                                             // "FMA" = the BF16 dot-product peak in bf16)
  TrainPrecision precision_ = TrainPrecision::F32;
  int first_step_ = 0;
  // A schedule planned from the time budget at start-up (not --max-steps, not a resume) is checked
  // against the run's pace (train/time_budget.h): the next check's time (seconds since run()
  // started; 0: no more checks), the previous check's time (the slowest rank's) and step.
  double next_check_s_ = 0, last_check_s_ = 0;
  std::string stopped_by_;  // TrainSummary::stopped_by, set by is_last_step
  static constexpr const char* kByClock = "the time limit";  // stopped_by_ when the clock ended it
  int last_check_step_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace llm0
