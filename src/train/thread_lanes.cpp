// Data parallelism across threads. See thread_lanes.h.
#include "train/thread_lanes.h"

#include <omp.h>

#include <algorithm>
#include <exception>

#include "core/check.h"
#include "core/threads.h"

namespace llm0 {

namespace {
// Runs body(r) for r in [0, R) on R threads; rethrows the first lane's exception after all ended.
template <class F>
void each_lane(int R, F&& body) {
  std::vector<std::exception_ptr> error((size_t)R);
#pragma omp parallel num_threads(R)
  {
    const int r = omp_get_thread_num();
    try {
      body(r);
    } catch (...) {
      error[(size_t)r] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : error)
    if (e) std::rethrow_exception(e);
}
}  // namespace

int ThreadLanes::lanes_for(int B) const {
  if (model_.config().moe.num_experts > 0 || omp_in_parallel() || omp_get_max_active_levels() > 1)
    return 1;
  return std::max(1, std::min(num_threads(), B));
}

double ThreadLanes::forward(const int* tokens, const int* targets, int B, int T, long* count,
                            const Dropout& dropout) {
  const int R = lanes_for(B);
  used_ = R;
  if (R == 1) return model_.forward(tokens, targets, B, T, count, dropout);
  while ((int)lanes_.size() < R - 1)
    lanes_.push_back(std::make_unique<Model>(Model::LaneOf{model_}));
  for (int r = 1; r < R; ++r) {  // settings the model may have changed since the lane was made
    Model& lane = *lanes_[(size_t)r - 1];
    if (lane.bf16_products() != model_.bf16_products())
      lane.set_bf16_products(model_.bf16_products());
    if (lane.config().linear.chunk_size != model_.config().linear.chunk_size)
      lane.set_linear_chunk_size(model_.config().linear.chunk_size);
  }
  std::vector<double> loss((size_t)R, 0.0);
  std::vector<long> counted((size_t)R, 0);
  each_lane(R, [&](int r) {
    const int b0 = (int)((long)r * B / R), b1 = (int)((long)(r + 1) * B / R);
    Model& m = r == 0 ? model_ : *lanes_[(size_t)r - 1];
    const long at = (long)b0 * T;
    Dropout draw = dropout;  // the masks of the whole batch's rows [b0·T, b1·T)
    draw.first += (size_t)at * (size_t)model_.config().hidden_size;
    loss[(size_t)r] = m.forward(tokens + at, targets + at, b1 - b0, T, &counted[(size_t)r], draw);
  });
  double sum = 0;
  long n = 0;
  for (int r = 0; r < R; ++r) sum += loss[(size_t)r], n += counted[(size_t)r];
  if (count) *count = n;
  return sum;
}

void ThreadLanes::backward(float loss_scale, const Model::GradsReady& ready) {
  LLM0_CHECK(used_ > 0, "backward() before forward()");
  const int R = used_;
  if (R == 1) return model_.backward(loss_scale, ready);
  float* grad = model_.params().grad();
  const long n = (long)model_.params().size();
  try {
    each_lane(R, [&](int r) { (r == 0 ? model_ : *lanes_[(size_t)r - 1]).backward(loss_scale); });
  } catch (...) {  // no lane keeps a partial gradient into the next step
    for (int r = 1; r < R; ++r) lanes_[(size_t)r - 1]->params().zero_grad();
    throw;
  }
  // grad += Σ lanes' gradients, each lane's left at zero for its next backward (which adds).
#pragma omp parallel for num_threads(R) schedule(static)
  for (long i0 = 0; i0 < n; i0 += 4096) {
    const long i1 = std::min(n, i0 + 4096);
    for (int r = 1; r < R; ++r) {
      float* g = lanes_[(size_t)r - 1]->params().grad();
      for (long i = i0; i < i1; ++i) grad[i] += g[i], g[i] = 0.0f;
    }
  }
  if (ready) ready(0, (size_t)n);
}

}  // namespace llm0
