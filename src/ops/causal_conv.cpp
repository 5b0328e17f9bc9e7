// Depthwise causal convolution. See causal_conv.h. The taps are transposed to [K, Cc] once per
// call so that every inner loop runs over contiguous channels.
#include "ops/causal_conv.h"

#include <algorithm>
#include <vector>

namespace llm0 {

namespace {

std::vector<float> taps_by_offset(const float* w, int Cc, int K) {  // [K, Cc]
  std::vector<float> wt((size_t)K * Cc);
  for (int c = 0; c < Cc; ++c)
    for (int j = 0; j < K; ++j) wt[(size_t)j * Cc + c] = w[(size_t)c * K + j];
  return wt;
}

}  // namespace

void causal_conv1d_forward(float* y, const float* x, const float* history, const float* w, int B,
                           int T, int Cc, int K) {
  const std::vector<float> wt = taps_by_offset(w, Cc, K);
#pragma omp parallel for schedule(static) if ((long)B * T * Cc * K > 65536)
  for (long bt = 0; bt < (long)B * T; ++bt) {
    const int b = (int)(bt / T), t = (int)(bt % T);
    float* yt = y + bt * Cc;
    std::fill(yt, yt + Cc, 0.0f);
    for (int j = 0; j < K; ++j) {
      const int src = t - (K - 1) + j;
      const float* xs = src >= 0 ? x + ((long)b * T + src) * Cc
                        : history ? history + ((long)b * (K - 1) + (K - 1) + src) * Cc
                                  : nullptr;
      if (!xs) continue;
      const float* wj = wt.data() + (size_t)j * Cc;
      for (int c = 0; c < Cc; ++c) yt[c] += wj[c] * xs[c];
    }
  }
}

void causal_conv1d_backward(float* dx, float* dw, const float* dy, const float* x, const float* w,
                            int B, int T, int Cc, int K) {
  const std::vector<float> wt = taps_by_offset(w, Cc, K);
  std::vector<float> dwt((size_t)K * Cc, 0.0f);
  std::fill(dx, dx + (long)B * T * Cc, 0.0f);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      const float* dyt = dy + ((long)b * T + t) * Cc;
      for (int j = 0; j < K; ++j) {
        const int src = t - (K - 1) + j;
        if (src < 0) continue;
        const float* xs = x + ((long)b * T + src) * Cc;
        float* dxs = dx + ((long)b * T + src) * Cc;
        const float* wj = wt.data() + (size_t)j * Cc;
        float* dwj = dwt.data() + (size_t)j * Cc;
        for (int c = 0; c < Cc; ++c) {
          dxs[c] += wj[c] * dyt[c];
          dwj[c] += dyt[c] * xs[c];
        }
      }
    }
  for (int c = 0; c < Cc; ++c)
    for (int j = 0; j < K; ++j) dw[(size_t)c * K + j] += dwt[(size_t)j * Cc + c];
}

}  // namespace llm0
