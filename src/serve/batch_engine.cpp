// BatchEngine: paged KV cache, prefix cache and one ragged forward per step. See batch_engine.h.
// Pages: one PagePool for all sequences (cache/page_pool.h); a sequence reserves
// ceil(reserve_tokens / page_size) pages when it opens — the shared prefix pages plus fresh ones —
// so a step never runs out of room; its full-attention layers read and write them through
// PagedKvCache views of its page table. Prefix cache (cache/prefix_cache.h): a sequence's full pages are registered as
// soon as they fill; open() shares the longest registered run of full prompt pages (never the
// page of the prompt's last token, whose logits the caller needs), evicting unreferenced cached
// pages LRU only when the free list cannot cover the fresh pages. A shared page is full and never
// written: the first page where two prompts differ is each one's own page (copy-on-write at page
// granularity, with nothing to copy since cached_tokens() is a multiple of the page size).
//
// Layers outside the pages. A sliding-window layer keeps a RingKvCache of min(W, reserve_tokens)
// positions per sequence and a Gated DeltaNet layer a RecurrentState (conv window + S), both
// allocated when the sequence opens. Why a ring rather than a second page table whose
// out-of-window pages go back (vLLM's sliding-window manager): the ring holds exactly the
// min(T, W) positions `llm0 kv` counts (a page table holds up to W + page_size − 1), needs no
// second pool of another row width, and is the tested single-sequence cache. Budget: the
// pool's page is the unit of the whole KV budget (--kv-pages / --kv-memory): a sequence's fixed
// state of S bytes takes ceil(S / page bytes) pages off the free list for its lifetime ("charged"
// pages: never written, their memory given back to the OS), so open() refuses what the budget
// cannot hold and memory stays within it. These states cannot be rebuilt from shared pages, so
// such models run without the prefix cache (every prompt is prefilled; cached_tokens 0).
#include "serve/batch_engine.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "cache/page_pool.h"
#include "cache/paged_kv_cache.h"
#include "cache/prefix_cache.h"
#include "core/check.h"
#include "model/infer_context.h"

namespace llm0 {

namespace {

/// A layer's rows in a page, from its CacheSpec: a pageable layer's K and V rows (full attention:
/// Hkv·D numbers each; MLA: the latent row [c | k_pe] as K without V, as `llm0 kv` counts it);
/// none for the layers that keep a per-sequence state (sliding window, linear attention).
std::vector<PageRows> page_rows(const Model& model) {
  std::vector<PageRows> rows;
  for (int il = 0; il < model.config().num_hidden_layers; ++il) {
    const CacheSpec spec = model.mixer(il).cache_spec();
    rows.push_back(spec.pageable() ? PageRows{spec.k_numbers, spec.v_numbers} : PageRows{});
  }
  return rows;
}

/// Numbers per token: of the paged layers' rows (K + V) and of the windowed layers' rows; and
/// whether every layer is paged (nothing kept outside the pages).
struct PageNumbers {
  size_t token = 0, window = 0;
  bool all_paged = true;
};
PageNumbers page_numbers(const Model& model) {
  PageNumbers n;
  for (int il = 0; il < model.config().num_hidden_layers; ++il) {
    const CacheSpec spec = model.mixer(il).cache_spec();
    if (spec.pageable()) n.token += (size_t)spec.token_numbers();
    else n.all_paged = false;
    if (spec.window > 0) n.window += (size_t)spec.token_numbers();
  }
  return n;
}

/// The per-sequence state of the layers outside the pages, for up to `reserve` tokens: the cache
/// each such layer's mixer makes (a RingKvCache, a RecurrentState), null for paged layers.
std::vector<std::unique_ptr<LayerCache>> make_states(const Model& model, int reserve) {
  const int L = model.config().num_hidden_layers;
  std::vector<std::unique_ptr<LayerCache>> st((size_t)L);
  for (int il = 0; il < L; ++il)
    if (!model.mixer(il).cache_spec().pageable())
      st[(size_t)il] = model.mixer(il).make_cache(reserve, CacheStorage{model.kv_dtype()});
  return st;
}

size_t allocated_bytes(const std::vector<std::unique_ptr<LayerCache>>& states) {
  size_t b = 0;
  for (const auto& c : states) b += c ? c->bytes_allocated() : 0;
  return b;
}

}  // namespace

struct BatchEngine::Impl {
  struct Seq {
    std::shared_ptr<PageTable> table;  // all reserved pages, in position order
    ModelCache cache;                  // a PagedKvCache over `table` or a state, per layer
    std::vector<const LayerCache*> states;  // the cache's layers outside the pages
    std::vector<int> charged;               // pages counting those states against the budget
    std::vector<int> tokens;           // tokens whose K/V are held (the prefix cache's keys)
    int reserve = 0, cached = 0;
    int registered = 0;     // leading full pages offered to the prefix cache
    int chain = -1;         // the cached page of the registered prefix (-1: none)
    uint64_t hash = 0;      // its chain hash
    bool chain_ended = false;  // a parent was evicted: no more registration
  };
  Model* model = nullptr;
  bool paged = false;     // some layer keeps its K/V in pages
  size_t unit_bytes = 0;  // bytes one page stands for in the budget
  std::unique_ptr<PagePool> pool;
  std::unique_ptr<PrefixCache> prefix;  // null without prefix caching
  std::map<SeqId, Seq> seqs;
  SeqId next_id = 0;
  uint64_t hit_tokens = 0;
  std::vector<Model::BatchSeq> batch;  // step scratch
  // The engine's inference context: scratch, counters, the fixed-order kernels reading the
  // model's packed panels (Model::panels).
  std::unique_ptr<InferContext> ctx;

  Seq& seq(SeqId id, const char* what) {
    auto it = seqs.find(id);
    LLM0_CHECK(it != seqs.end(), "{}: unknown sequence {}", what, id);
    return it->second;
  }
  void register_full_pages(Seq& s);
};

void BatchEngine::Impl::register_full_pages(Seq& s) {
  const int P = pool->page_size();
  while (prefix && !s.chain_ended && (size_t)(s.registered + 1) * P <= s.tokens.size()) {
    const int* t = s.tokens.data() + (long)s.registered * P;
    const uint64_t h = PrefixCache::chain_hash(s.hash, t, P);
    const int page = prefix->insert(s.table->pages[(size_t)s.registered], s.chain, h, t);
    if (page < 0) {
      s.chain_ended = true;
      break;
    }
    s.chain = page, s.hash = h, ++s.registered;
  }
}

BatchEngine::BatchEngine(Model& model, const BatchEngineOptions& o) : impl_(new Impl) {
  std::unique_ptr<Impl> guard(impl_);
  const ModelConfig& cfg = model.config();
  LLM0_CHECK(o.page_size >= 1 && o.page_size <= cfg.max_position_embeddings,
             "page size {} must be in [1, max_position_embeddings={}]", o.page_size,
             cfg.max_position_embeddings);
  const std::vector<PageRows> rows = page_rows(model);
  const PageNumbers numbers = page_numbers(model);
  const size_t unit = page_bytes(model, o.page_size);
  long pages = o.num_pages;
  if (pages == 0) {
    LLM0_CHECK(o.kv_memory_bytes > 0, "the KV pool needs a page count or a memory size (both are 0)");
    pages = (long)(o.kv_memory_bytes / unit);
    LLM0_CHECK(pages >= 1, "KV memory of {} bytes holds no page of {} bytes ({} tokens)",
               o.kv_memory_bytes, unit, o.page_size);
  }
  LLM0_CHECK(pages > 0 && pages <= (1L << 30), "page count {} must be in [1, 2^30]", pages);
  impl_->model = &model;
  impl_->ctx = std::make_unique<InferContext>(model);
  impl_->paged = numbers.token > 0;
  impl_->unit_bytes = unit;
  impl_->pool = std::make_unique<PagePool>((int)pages, o.page_size, rows, model.kv_dtype());
  if (o.prefix_cache && numbers.all_paged)
    impl_->prefix = std::make_unique<PrefixCache>(*impl_->pool);
  guard.release();
}

BatchEngine::~BatchEngine() { delete impl_; }

size_t BatchEngine::page_bytes(const Model& model, int page_size) {
  const PageNumbers n = page_numbers(model);
  const size_t number = (size_t)element_bytes(model.kv_dtype(), 1);
  // One page: page_size tokens × the paged layers' K and V rows. Without paged layers the budget
  // unit is page_size tokens of the sliding layers' rows, or else one sequence's state.
  if (n.token > 0) return (size_t)page_size * n.token * number;
  if (n.window > 0) return (size_t)page_size * n.window * number;
  return allocated_bytes(make_states(model, 1));
}

std::optional<SeqId> BatchEngine::open(const std::vector<int>& prompt, int reserve_tokens) {
  Impl& m = *impl_;
  const ModelConfig& cfg = m.model->config();
  const int P = (int)prompt.size(), ps = m.pool->page_size();
  LLM0_CHECK(P >= 1, "open: the prompt is empty");
  for (int i = 0; i < P; ++i)
    LLM0_CHECK(prompt[(size_t)i] >= 0 && prompt[(size_t)i] < cfg.vocab_size,
               "open: prompt token {} (at {}) is outside [0, vocab_size={})", prompt[(size_t)i], i,
               cfg.vocab_size);
  LLM0_CHECK(reserve_tokens >= P && reserve_tokens <= cfg.max_position_embeddings,
             "open: reserving {} tokens for a prompt of {}: must be in [prompt length, "
             "max_position_embeddings={}]", reserve_tokens, P, cfg.max_position_embeddings);
  const int total = m.paged ? (reserve_tokens + ps - 1) / ps : 0;
  std::vector<std::unique_ptr<LayerCache>> states = make_states(*m.model, reserve_tokens);
  const size_t state_bytes = allocated_bytes(states);
  const int charge = (int)((state_bytes + m.unit_bytes - 1) / m.unit_bytes);
  // Shared: full prompt pages before the page of the last prompt token (its logits are needed).
  const std::vector<int> shared = m.prefix ? m.prefix->match(prompt.data(), (P - 1) / ps)
                                           : std::vector<int>{};
  int idle_shared = 0;  // shared pages now on the LRU list: not room for fresh pages
  for (int p : shared) idle_shared += m.pool->refs(p) == 0;
  const int fresh = total - (int)shared.size() + charge;
  const int evictable = m.prefix ? m.prefix->evictable() : 0;
  if (m.pool->free_pages() + evictable - idle_shared < fresh) return std::nullopt;
  Impl::Seq s;
  s.table = std::make_shared<PageTable>();
  for (int p : shared) {
    m.prefix->referenced(p);  // off the LRU list before any eviction below
    m.pool->retain(p);
    s.table->pages.push_back(p);
  }
  while (m.pool->free_pages() < fresh) m.prefix->evict_one();
  for (int i = 0; i < fresh - charge; ++i) s.table->pages.push_back(m.pool->allocate());
  for (int i = 0; i < charge; ++i) {
    s.charged.push_back(m.pool->allocate());
    m.pool->discard_memory(s.charged.back());
  }
  s.cached = (int)shared.size() * ps;
  s.reserve = reserve_tokens;
  s.tokens.assign(prompt.begin(), prompt.begin() + s.cached);
  s.registered = (int)shared.size();
  s.chain = shared.empty() ? -1 : shared.back();
  for (int k = 0; k < s.registered; ++k)
    s.hash = PrefixCache::chain_hash(s.hash, prompt.data() + (long)k * ps, ps);
  for (int il = 0; il < cfg.num_hidden_layers; ++il) {
    std::unique_ptr<LayerCache>& state = states[(size_t)il];
    if (state) s.states.push_back(state.get());
    s.cache.add(state ? std::move(state)
                      : std::make_unique<PagedKvCache>(*m.pool, s.table, il, s.cached));
  }
  m.hit_tokens += (uint64_t)s.cached;
  const SeqId id = m.next_id++;
  m.seqs.emplace(id, std::move(s));
  return id;
}

InferContext& BatchEngine::context() { return *impl_->ctx; }

int BatchEngine::cached_tokens(SeqId id) const { return impl_->seq(id, "cached_tokens").cached; }

int BatchEngine::length(SeqId id) const { return impl_->seq(id, "length").cache.length(); }

void BatchEngine::step(const std::vector<Work>& works, float* logits) {
  Impl& m = *impl_;
  const int V = m.model->config().vocab_size;
  // Check every work before running any: nothing is appended when one is wrong.
  std::set<SeqId> seen;
  m.batch.clear();
  for (const Work& w : works) {
    Impl::Seq& s = m.seq(w.seq, "step");
    LLM0_CHECK(seen.insert(w.seq).second, "step: sequence {} appears twice in one step", w.seq);
    LLM0_CHECK(w.n >= 1 && w.tokens != nullptr, "step: sequence {} has no new tokens (n={})",
               w.seq, w.n);
    LLM0_CHECK((long)s.cache.length() + w.n <= s.reserve,
               "step: sequence {} holds {} tokens + {} new exceed its reservation of {}", w.seq,
               s.cache.length(), w.n, s.reserve);
    for (int i = 0; i < w.n; ++i)
      LLM0_CHECK(w.tokens[i] >= 0 && w.tokens[i] < V,
                 "step: sequence {} token {} is outside [0, vocab_size={})", w.seq, w.tokens[i], V);
    m.batch.push_back({w.tokens, w.n, &s.cache});
  }
  if (works.empty()) return;
  m.model->forward_cached(m.batch, *m.ctx, logits);
  for (const Work& w : works) {
    Impl::Seq& s = m.seqs.at(w.seq);
    s.tokens.insert(s.tokens.end(), w.tokens, w.tokens + w.n);
    m.register_full_pages(s);
  }
}

void BatchEngine::close(SeqId id) {
  Impl& m = *impl_;
  Impl::Seq& s = m.seq(id, "close");
  // Last page first: on the LRU list the deeper pages of a prefix are then evicted before the
  // pages they extend.
  for (auto it = s.table->pages.rbegin(); it != s.table->pages.rend(); ++it) {
    if (m.pool->release(*it) > 0) continue;
    if (m.prefix && m.prefix->holds(*it)) m.prefix->unreferenced(*it);
    else m.pool->free_page(*it);
  }
  for (int p : s.charged) {
    m.pool->release(p);
    m.pool->free_page(p);
  }
  m.seqs.erase(id);
}

int BatchEngine::page_size() const { return impl_->pool->page_size(); }
int BatchEngine::pages_total() const { return impl_->pool->num_pages(); }
int BatchEngine::pages_in_use() const {
  return pages_total() - impl_->pool->free_pages() - pages_cached();
}
int BatchEngine::pages_cached() const { return impl_->prefix ? impl_->prefix->evictable() : 0; }

size_t BatchEngine::bytes_in_use() const {
  const PagePool& pool = *impl_->pool;
  size_t positions = 0;  // positions written in referenced pages: shared pages once
  for (int p = 0; p < pool.num_pages(); ++p)
    if (pool.refs(p) > 0) positions += (size_t)pool.filled(p);
  size_t states = 0;  // sliding windows (min(T, W) positions) and recurrent states
  for (const auto& [id, s] : impl_->seqs)
    for (const LayerCache* c : s.states) states += c->bytes_in_use();
  return positions * pool.bytes_per_token() + states;
}

bool BatchEngine::prefix_caching() const { return impl_->prefix != nullptr; }

uint64_t BatchEngine::prefix_hit_tokens() const { return impl_->hit_tokens; }

const std::vector<int>& BatchEngine::pages(SeqId id) const {
  return impl_->seq(id, "pages").table->pages;
}

int BatchEngine::page_refs(int page) const {
  LLM0_CHECK(page >= 0 && page < pages_total(), "page {} does not exist (the pool has {})", page,
             pages_total());
  return impl_->pool->refs(page);
}

}  // namespace llm0
