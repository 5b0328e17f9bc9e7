// Data-parallel gradients, parameter checks and the test fault hook. See data_parallel.h.
#include "train/data_parallel.h"

#include <chrono>
#include <csignal>
#include <cstring>

#include "core/check.h"
#include "core/comm.h"
#include "train/moe_load.h"

namespace llm0 {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

uint64_t hash_bits(const void* x, size_t bytes) {
  // Four independent lanes (so the multiplies pipeline), mixed as in splitmix64's finaliser.
  const unsigned char* p = static_cast<const unsigned char*>(x);
  uint64_t h[4] = {0x9E3779B97F4A7C15ull, 0xBF58476D1CE4E5B9ull, 0x94D049BB133111EBull, bytes};
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * l, 8);
      h[l] = (h[l] ^ w) * 0xFF51AFD7ED558CCDull;
      h[l] ^= h[l] >> 29;
    }
  for (; i < bytes; ++i) h[0] = (h[0] ^ p[i]) * 0x100000001B3ull;  // tail bytes (FNV-1a)
  uint64_t z = h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

DataParallel::DataParallel(int batch_size, int grad_accum, const std::string& test_fault,
                           bool buckets) {
  buckets_ = buckets;
  share_.ranks = comm::size(), share_.rank = comm::rank();
  share_.batch_size = batch_size, share_.grad_accum = grad_accum;
  if (test_fault.empty()) return;
  const size_t at = test_fault.find('@');
  const std::string kind = test_fault.substr(0, at);
  LLM0_CHECK(at != std::string::npos && (kind == "desync" || kind == "die"),
             "--test-fault {}: expected desync@STEP or die@STEP", test_fault);
  fault_ = kind == "desync" ? Fault::Desync : Fault::Die;
  fault_step_ = std::atoi(test_fault.c_str() + at + 1);
}

double DataParallel::step_gradients(Model& model, BatchLoader& loader, std::vector<Batch>& micro,
                                    double* targets, const Dropout& dropout) {
  loader.skip(share_.windows_before());
  for (Batch& b : micro) loader.next(b);
  loader.skip(share_.windows_after());
  return gradients(model, micro, targets, dropout);
}

double DataParallel::gradients(Model& model, std::vector<Batch>& micro, double* targets,
                               const Dropout& dropout) {
  ParamStore& p = model.params();
  p.zero_grad();
  double total = 0;
  for (const Batch& b : micro)
    for (size_t i = 0; i < (size_t)b.B * b.T; ++i) total += b.targets[i] >= 0;
  total = sum(total);  // every rank scales its loss by the same 1 / (global target count)
  double loss_sum = 0;
  const bool overlap = buckets_ && share_.ranks > 1;
  const Model::GradsReady start = [&](size_t at, size_t n) { comm::start_sum(p.grad() + at, n); };
  step_load_.clear();
  ThreadLanes& lanes = this->lanes(model);
  for (size_t m = 0; m < micro.size(); ++m) {
    Batch& b = micro[m];
    const Dropout draw = dropout.active() ? dropout.sub((uint64_t)rank()).sub(m) : Dropout{};
    loss_sum += lanes.forward(b.inputs.data(), b.targets.data(), b.B, b.T, nullptr, draw);
    add_expert_load(step_load_, model.expert_load());  // MoE models run in one lane
    lanes.backward(1.0f / (float)total, overlap && m + 1 == micro.size() ? start : nullptr);
  }
  allreduce_gradients(p);
  *targets = total;
  return sum(loss_sum) / total;
}

ThreadLanes& DataParallel::lanes(Model& model) {
  if (!lanes_ || &lanes_->model() != &model) lanes_ = std::make_unique<ThreadLanes>(model);
  return *lanes_;
}

void DataParallel::allreduce_gradients(ParamStore& params) {
  if (share_.ranks == 1) return;
  const double t0 = now_s();
  if (buckets_) {  // started during backward: only what is still in flight is waited for
    comm::finish_sums();
    stats_.calls += 1, stats_.bytes = 4.0 * (double)params.size(), stats_.transfer_s += now_s() - t0;
    return;
  }
  comm::barrier();
  const double t1 = now_s();
  comm::sum(params.grad(), params.size());
  const double t2 = now_s();
  stats_.calls += 1, stats_.bytes = 4.0 * (double)params.size();
  stats_.wait_s += t1 - t0, stats_.transfer_s += t2 - t1;
}

double DataParallel::sum(double x) const {
  comm::sum(&x, 1);
  return x;
}

double DataParallel::max(double x) const {
  comm::max(&x, 1);
  return x;
}

bool DataParallel::any(bool flag) const { return max(flag ? 1.0 : 0.0) > 0; }

void DataParallel::check_in_sync(const ParamStore& params, const std::string& what) const {
  if (share_.ranks == 1) return;
  const std::vector<uint64_t> h = comm::gather(hash_bits(params.data(), 4 * params.size()));
  std::string differ;
  for (size_t r = 1; r < h.size(); ++r)
    if (h[r] != h[0]) differ += (differ.empty() ? "" : ", ") + std::to_string(r);
  LLM0_CHECK(differ.empty(),
             "data-parallel ranks out of sync: the parameters of rank(s) {} differ from rank 0's {} "
             "(every rank must apply the same summed gradient; the last checkpoint is intact)",
             differ, what);
}

void DataParallel::check_same_start(const ParamStore& params, const std::vector<int32_t>& stream,
                                    uint64_t options_hash) const {
  if (share_.ranks == 1) return;
  const uint64_t mine[3] = {hash_bits(stream.data(), 4 * stream.size()), options_hash,
                            hash_bits(params.data(), 4 * params.size())};
  const char* what[3] = {"training token stream (corpus or tokenizer)",
                         "training options (--batch-size, --seq-len, --grad-accum, --seed, ...)",
                         "initial weights (config, --seed or --resume checkpoint)"};
  for (int k = 0; k < 3; ++k) {
    const std::vector<uint64_t> h = comm::gather(mine[k]);
    for (size_t r = 1; r < h.size(); ++r)
      LLM0_CHECK(h[r] == h[0],
                 "rank {} has a different {} than rank 0: every machine needs the same corpus, "
                 "tokenizer, config, checkpoint and options", r, what[k]);
  }
}

void DataParallel::apply_test_fault(int step, ParamStore& params) const {
  if (fault_ == Fault::None || step != fault_step_ || share_.rank != share_.ranks - 1) return;
  if (fault_ == Fault::Die) std::raise(SIGKILL);
  params.data()[0] += 1e-3f;  // Fault::Desync
}

}  // namespace llm0
