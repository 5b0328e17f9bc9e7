// BatchEngine. See batch_engine.h.
// Slice 1 (simple, correct): one contiguous ModelCache per sequence and one Model::forward_cached
// per work; the page pool is accounting only (pages reserved at open, returned at close), no
// prefix sharing yet (cached_tokens() is 0).
#include "serve/batch_engine.h"

#include <map>
#include <memory>
#include <set>

#include "core/check.h"

namespace llm0 {

namespace {

/// Throws llm0::Error naming a model kind the pager cannot hold yet.
void check_pageable(const ModelConfig& cfg) {
  for (int il = 0; il < cfg.num_hidden_layers; ++il) {
    const LayerKind k = cfg.layer(il).kind;
    LLM0_CHECK(k != LayerKind::LatentAttention,
               "the serving engine cannot page multi-head latent attention (MLA, {}) caches yet",
               cfg.model_type);
    LLM0_CHECK(k != LayerKind::SlidingAttention,
               "the serving engine cannot page sliding-window attention layers (layer {}, window "
               "{}) yet", il, cfg.layer(il).sliding_window);
    LLM0_CHECK(k != LayerKind::LinearAttention,
               "the serving engine cannot page linear-attention (Gated DeltaNet) layers (layer {}) "
               "yet", il);
  }
}

}  // namespace

struct BatchEngine::Impl {
  struct Seq {
    ModelCache cache;   // capacity = the reservation
    int reserve = 0;    // tokens reserved
    int pages = 0;      // pages reserved
  };
  Model* model = nullptr;
  int page_size = 0, num_pages = 0, pages_used = 0;
  SeqId next_id = 0;
  std::map<SeqId, Seq> seqs;

  Seq& seq(SeqId id, const char* what) {
    auto it = seqs.find(id);
    LLM0_CHECK(it != seqs.end(), "{}: unknown sequence {}", what, id);
    return it->second;
  }
};

BatchEngine::BatchEngine(Model& model, const BatchEngineOptions& o) : impl_(new Impl) {
  std::unique_ptr<Impl> guard(impl_);
  const ModelConfig& cfg = model.config();
  check_pageable(cfg);
  LLM0_CHECK(o.page_size >= 1, "page size {} must be >= 1", o.page_size);
  // One page: page_size tokens × all layers' K and V rows, in the model's cache element type.
  const size_t page_bytes = (size_t)o.page_size * (size_t)cfg.num_hidden_layers *
                            (size_t)cfg.num_key_value_heads * 2 * (size_t)cfg.head_dim *
                            (size_t)cache_dtype_bytes(model.kv_dtype());
  long pages = o.num_pages;
  if (pages == 0) {
    LLM0_CHECK(o.kv_memory_bytes > 0, "the KV pool needs a page count or a memory size (both are 0)");
    pages = (long)(o.kv_memory_bytes / page_bytes);
    LLM0_CHECK(pages >= 1, "KV memory of {} bytes holds no page of {} bytes ({} tokens)",
               o.kv_memory_bytes, page_bytes, o.page_size);
  }
  LLM0_CHECK(pages > 0 && pages <= (1L << 30), "page count {} must be in [1, 2^30]", pages);
  impl_->model = &model;
  impl_->page_size = o.page_size;
  impl_->num_pages = (int)pages;
  guard.release();
}

BatchEngine::~BatchEngine() { delete impl_; }

std::optional<SeqId> BatchEngine::open(const std::vector<int>& prompt, int reserve_tokens) {
  const ModelConfig& cfg = impl_->model->config();
  const int P = (int)prompt.size();
  LLM0_CHECK(P >= 1, "open: the prompt is empty");
  for (int i = 0; i < P; ++i)
    LLM0_CHECK(prompt[(size_t)i] >= 0 && prompt[(size_t)i] < cfg.vocab_size,
               "open: prompt token {} (at {}) is outside [0, vocab_size={})", prompt[(size_t)i], i,
               cfg.vocab_size);
  LLM0_CHECK(reserve_tokens >= P && reserve_tokens <= cfg.max_position_embeddings,
             "open: reserving {} tokens for a prompt of {}: must be in [prompt length, "
             "max_position_embeddings={}]", reserve_tokens, P, cfg.max_position_embeddings);
  const int pages = (reserve_tokens + impl_->page_size - 1) / impl_->page_size;
  if (impl_->pages_used + pages > impl_->num_pages) return std::nullopt;
  Impl::Seq s;
  s.cache = impl_->model->new_cache(reserve_tokens);
  s.reserve = reserve_tokens, s.pages = pages;
  const SeqId id = impl_->next_id++;
  impl_->seqs.emplace(id, std::move(s));
  impl_->pages_used += pages;
  return id;
}

int BatchEngine::cached_tokens(SeqId id) const {
  impl_->seq(id, "cached_tokens");
  return 0;
}

int BatchEngine::length(SeqId id) const { return impl_->seq(id, "length").cache.length(); }

void BatchEngine::step(const std::vector<Work>& works, float* logits) {
  const ModelConfig& cfg = impl_->model->config();
  // Check every work before running any: nothing is appended when one is wrong.
  std::set<SeqId> seen;
  for (const Work& w : works) {
    Impl::Seq& s = impl_->seq(w.seq, "step");
    LLM0_CHECK(seen.insert(w.seq).second, "step: sequence {} appears twice in one step", w.seq);
    LLM0_CHECK(w.n >= 1 && w.tokens != nullptr, "step: sequence {} has no new tokens (n={})",
               w.seq, w.n);
    LLM0_CHECK((long)s.cache.length() + w.n <= s.reserve,
               "step: sequence {} holds {} tokens + {} new exceed its reservation of {}", w.seq,
               s.cache.length(), w.n, s.reserve);
    for (int i = 0; i < w.n; ++i)
      LLM0_CHECK(w.tokens[i] >= 0 && w.tokens[i] < cfg.vocab_size,
                 "step: sequence {} token {} is outside [0, vocab_size={})", w.seq, w.tokens[i],
                 cfg.vocab_size);
  }
  const long V = cfg.vocab_size;
  for (size_t i = 0; i < works.size(); ++i) {
    const Work& w = works[i];
    impl_->model->forward_cached(w.tokens, w.n, impl_->seqs.at(w.seq).cache, logits + (long)i * V,
                                 /*last_only=*/true);
  }
}

void BatchEngine::close(SeqId id) {
  Impl::Seq& s = impl_->seq(id, "close");
  impl_->pages_used -= s.pages;
  impl_->seqs.erase(id);
}

int BatchEngine::page_size() const { return impl_->page_size; }
int BatchEngine::pages_total() const { return impl_->num_pages; }
int BatchEngine::pages_in_use() const { return impl_->pages_used; }
int BatchEngine::pages_cached() const { return 0; }

size_t BatchEngine::bytes_in_use() const {
  size_t b = 0;
  for (const auto& [id, s] : impl_->seqs) b += s.cache.bytes_in_use();
  return b;
}

uint64_t BatchEngine::prefix_hit_tokens() const { return 0; }

}  // namespace llm0
