// Weights packed for the row-independent linear kernel (ops/linear_rows.h): W [O, I] stored as
// panels Wp[O / P][I][P] — for each panel of P = kLinearPanel consecutive outputs, the P weights of
// input k side by side, k = 0 .. I−1 (the last panel zero-padded past O). The kernel then holds
// SIMD lanes across outputs and walks k in order, reading each panel front to back once.
// Float32 weights pack as float32, BF16 weights as BF16 bits (widened in registers when read).
// A model packs the matrices of every linear map its cached forward computes into one
// PackedWeights, once (Model::panels, model/model.h: the copies double the weight memory), and its
// inference contexts name that store, read-only, in the LinearKernel they pass to linear_forward;
// linear_rows finds a matrix's panels there by its Weight pointer and shape.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <tuple>

#include "ops/weight.h"

namespace llm0 {

/// Outputs per panel (P): four 16-float vectors — four independent FMA chains per k at one row.
constexpr int kLinearPanel = 64;

/// One weight matrix W [O, I] as panels [ceil(O / P)][I][P] (see the header).
struct PackedLinear {
  int I = 0, O = 0;
  std::shared_ptr<void> data;  // float32, or BF16 bits when bf16
  bool bf16 = false;
  int panels() const { return (O + kLinearPanel - 1) / kLinearPanel; }
  size_t bytes() const { return (size_t)panels() * I * kLinearPanel * (bf16 ? 2 : 4); }
};

/// Packs W [O, I] (float32 or BF16, row-major) into `dst` (zeroed, PackedLinear::bytes() of
/// the result), or a fresh 2 MiB aligned, huge-page hinted buffer when `dst` is null.
/// Throws llm0::Error for I or O < 1 or a null weight.
PackedLinear pack_linear(Weight W, int I, int O, std::shared_ptr<void> dst = nullptr);

/// One linear map y[N, O] = x[N, I] · W[O, I]ᵀ as a layer lists it for packing (Mixer::linear_maps,
/// Ffn::linear_maps): its matrix and the shape its forward passes to linear_forward.
struct LinearMap {
  Weight W;
  int I = 0, O = 0;
};

/// Packed copies of the matrices of a list of linear maps, found by (Weight pointer, I, O);
/// immutable after construction, so any number of threads may read one store at once.
/// The copies lie one after another, in the order of the list (a forward's order), in chunks of
/// 2 MiB huge pages: a decode step streams them as it streams the ParamStore's weights. (Matrices
/// under 2 MiB on 4 KiB pages — every attention projection of the ~30M preset — streamed at about
/// half the bandwidth: a TLB miss and a prefetcher restart every 4 KiB.)
class PackedWeights {
 public:
  PackedWeights() = default;
  /// Packs every map of `maps` (a matrix listed twice with the same shape, once).
  /// Throws llm0::Error for a map with I or O < 1 or no weight.
  explicit PackedWeights(std::span<const LinearMap> maps);
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;

  /// The panels of W [O, I]. Throws llm0::Error if the store was not built with that matrix and
  /// shape (a layer whose linear_maps misses a map its forward computes).
  const PackedLinear& get(Weight W, int I, int O) const;
  /// Bytes held by all packed copies.
  size_t bytes() const { return bytes_; }
  size_t size() const { return packs_.size(); }

 private:
  void add(const LinearMap& m);
  /// `bytes` zeroed bytes from the current chunk (a new one when it does not fit), 64-byte aligned.
  std::shared_ptr<void> allocate(size_t bytes);

  std::map<std::tuple<const void*, int, int>, PackedLinear> packs_;
  size_t bytes_ = 0;
  std::shared_ptr<void> chunk_;  // the chunk being filled
  size_t chunk_used_ = 0, chunk_size_ = 0;
};

}  // namespace llm0
