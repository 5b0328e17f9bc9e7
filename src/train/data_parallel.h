// Data-parallel training (llm.c's multi-process trainer, PyTorch DistributedDataParallel): every
// rank holds the whole model and computes the gradient of its share of each global batch; one
// all-reduce over the flat gradient buffer of the ParamStore sums them, so every rank clips and
// steps the same summed gradient and the parameters stay bit-identical (checked by a hash).
// Global batch = batch_size × grad_accum × ranks sequences. Its windows are drawn in one order from
// the one training stream; rank r reads windows [r·B·A, (r+1)·B·A) and micro-batch m of it the
// windows [r·B·A + m·B, r·B·A + (m+1)·B). So 2 ranks × B, 1 process × 2B and 1 process × B with
// accumulation 2 see the same windows, and the loss is normalised by the global count of targets.
// Collectives come from core/comm.h (one rank and no MPI calls when not launched by mpirun).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/params.h"
#include "model/model.h"
#include "train/batch_loader.h"
#include "train/thread_lanes.h"

namespace llm0 {

/// Which windows of each global batch this rank reads.
struct RankShare {
  int ranks = 1, rank = 0;  // job size and this rank, rank in [0, ranks)
  int batch_size = 1;       // B, sequences per micro-batch
  int grad_accum = 1;       // A, micro-batches per optimizer step
  /// Sequences per optimizer step over all ranks: B·A·ranks.
  int64_t global_batch() const { return (int64_t)batch_size * grad_accum * ranks; }
  /// Windows of the global batch before this rank's share: rank·B·A.
  int64_t windows_before() const { return (int64_t)rank * batch_size * grad_accum; }
  /// Windows of the global batch after this rank's share: (ranks − 1 − rank)·B·A.
  int64_t windows_after() const { return (int64_t)(ranks - 1 - rank) * batch_size * grad_accum; }
};

/// Time and bytes of the gradient all-reduces since the last reset (rank-local wall clock).
struct AllreduceStats {
  int calls = 0;
  double bytes = 0;         // per call: 4 × parameters
  double wait_s = 0;        // waiting for the slowest rank to finish its backward (a barrier)
  double transfer_s = 0;    // the MPI_Allreduce itself, every rank already there
};

/// The gradient side of one optimizer step on every rank.
class DataParallel {
 public:
  /// Binds to the job's ranks (comm::init()). `test_fault` is a test-only hook: "" (none),
  /// "desync@S" (the last rank nudges one parameter after step S, which the parameter check must
  /// catch) or "die@S" (the last rank kills itself with SIGKILL at step S, which must end the job).
  /// Throws llm0::Error for any other value.
  /// `buckets`: all-reduce each block's gradients as soon as its backward is done
  /// (MPI_Iallreduce), overlapping the backward of earlier blocks, instead of one MPI_Allreduce
  /// after the backward.
  DataParallel(int batch_size, int grad_accum, const std::string& test_fault = "",
               bool buckets = false);

  const RankShare& share() const { return share_; }
  int rank() const { return share_.rank; }
  int ranks() const { return share_.ranks; }

  /// Draws this rank's micro-batches of the next global batch from `loader` (skipping the other
  /// ranks' windows, so every rank's loader state stays the same), runs forward and backward on
  /// each with loss scale 1 / (global target count), and sums the gradients over ranks. Afterwards
  /// params().grad() holds d(global mean loss)/dθ on every rank. Returns the global mean loss
  /// (nats/target) and sets *targets to the global count of targets (ignored ones, < 0, excluded).
  /// `dropout`: the step's residual-dropout draw (Model::forward); micro-batch m of rank r trains
  /// under dropout.sub(r).sub(m), so ranks and micro-batches draw independent masks. Each
  /// micro-batch runs in thread lanes (train/thread_lanes.h) when the process has several threads.
  double step_gradients(Model& model, BatchLoader& loader, std::vector<Batch>& micro,
                        double* targets, const Dropout& dropout = {});
  /// The same for micro-batches already filled (tests): micro[m] is micro-batch m of this rank.
  double gradients(Model& model, std::vector<Batch>& micro, double* targets,
                   const Dropout& dropout = {});
  /// The thread lanes (train/thread_lanes.h) this object runs `model`'s micro-batches in (made on
  /// the first call; a call with another model makes new ones): evaluation forwards through them
  /// too, so the model keeps one activation plan.
  ThreadLanes& lanes(Model& model);
  /// Per MoE layer, the tokens routed to each expert over this rank's micro-batches of the last
  /// step_gradients / gradients call (summed, so --grad-accum A of batch B counts as batch A·B);
  /// empty for dense models.
  const std::vector<Model::ExpertLoad>& expert_load() const { return step_load_; }

  /// Sum over ranks (a no-op with one rank).
  double sum(double x) const;
  /// Maximum over ranks (x itself with one rank).
  double max(double x) const;
  /// Whether `flag` is true on any rank (ranks must agree on when to stop).
  bool any(bool flag) const;

  /// Throws llm0::Error naming `step` and the ranks that differ from rank 0 unless every rank's
  /// parameters are bit-identical (a 64-bit hash of the buffer, gathered). `what` completes
  /// "... differ {what}", e.g. "after step 200". Free with one rank.
  void check_in_sync(const ParamStore& params, const std::string& what) const;
  /// Throws llm0::Error unless every rank has the same token stream, options and initial weights:
  /// the check that every machine was given the same corpus, tokenizer, config and seed.
  void check_same_start(const ParamStore& params, const std::vector<int32_t>& stream,
                        uint64_t options_hash) const;
  /// Applies the test fault when `step` (optimizer steps done) is the one it names.
  void apply_test_fault(int step, ParamStore& params) const;

  const AllreduceStats& stats() const { return stats_; }
  void reset_stats() { stats_ = AllreduceStats{}; }

 private:
  void allreduce_gradients(ParamStore& params);

  RankShare share_;
  AllreduceStats stats_;
  std::vector<Model::ExpertLoad> step_load_;
  std::unique_ptr<ThreadLanes> lanes_;  // of the model of the last call
  bool buckets_ = false;
  enum class Fault { None, Desync, Die } fault_ = Fault::None;
  int fault_step_ = 0;
};

/// 64-bit hash of the bits of x[0, n) (word-wise multiply-xorshift; equal bits <=> equal hash up
/// to collisions of probability 2^-64).
uint64_t hash_bits(const void* x, size_t bytes);

}  // namespace llm0
