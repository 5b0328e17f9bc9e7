// The serving engine's parts below BatchEngine: the page pool, the paged KV cache (bytes = the
// ledger), the prefix cache's chain and eviction, paged attention against the double-precision
// reference (page sizes 1, 3, 16, a one-page contiguous table, BF16 rows) with rows bitwise
// independent of the other query rows, and SwiGLU's elements independent of their offset. Every
// dimension differs. (The row-independent linear map: test_linear_rows.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cache/page_pool.h"
#include "cache/paged_kv_cache.h"
#include "cache/prefix_cache.h"
#include "core/check.h"
#include "core/half.h"
#include "ops/activation.h"
#include "ops/bf16_kernels.h"
#include "ops/attention_rows.h"
#include "ops/ref/ref_attention.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

TEST(PagePool, AllocatesCountsAndFrees) {
  PagePool pool(3, 4, 2, 5, ElementType::F32);
  EXPECT_EQ(pool.free_pages(), 3);
  EXPECT_EQ(pool.bytes_per_token(), 2u * 2 * 5 * 4);
  const int a = pool.allocate(), b = pool.allocate();
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.refs(a), 1);
  pool.retain(a);
  EXPECT_EQ(pool.release(a), 1);
  EXPECT_THROW(pool.free_page(a), Error);  // still referenced
  EXPECT_EQ(pool.release(a), 0);
  EXPECT_THROW(pool.release(a), Error);
  pool.free_page(a);
  EXPECT_EQ(pool.free_pages(), 2);
  pool.allocate(), pool.allocate();
  EXPECT_THROW(pool.allocate(), Error);
  (void)b;
}

// Per-layer row widths: a layer kept outside the pages (width 0) takes no room; K and V widths
// may differ; each layer's rows land apart from the others' (every value read back as written);
// a discarded page leaves the other pages' rows intact; a pool with every width 0 only counts.
TEST(PagePool, LayersOfDifferentWidths) {
  const std::vector<PageRows> rows = {{5, 5}, {0, 0}, {7, 3}};
  PagePool pool(4, 3, rows, ElementType::F32);
  EXPECT_EQ(pool.bytes_per_token(), (5u + 5 + 7 + 3) * 4);
  EXPECT_EQ(pool.page_bytes(), 3u * (5 + 5 + 7 + 3) * 4);
  EXPECT_EQ(pool.k_width(2), 7);
  EXPECT_EQ(pool.v_width(2), 3);
  const int a = pool.allocate(), b = pool.allocate();
  std::mt19937 rng(11);
  const std::vector<float> k0 = rand_vec(2 * 5, rng), v0 = rand_vec(2 * 5, rng);
  const std::vector<float> k2 = rand_vec(2 * 7, rng), v2 = rand_vec(2 * 3, rng);
  for (int p : {a, b}) {
    pool.write(p, 0, 1, 2, k0.data(), v0.data());
    pool.write(p, 2, 1, 2, k2.data(), v2.data());
  }
  pool.discard_memory(a);
  auto row = [&](int page, int il, int kv, int slot, int width) {
    const float* r = static_cast<const float*>(pool.rows(page, il, kv)) + (long)slot * width;
    return std::vector<float>(r, r + 2 * width);
  };
  EXPECT_EQ(row(b, 0, 0, 1, 5), k0);
  EXPECT_EQ(row(b, 0, 1, 1, 5), v0);
  EXPECT_EQ(row(b, 2, 0, 1, 7), k2);
  EXPECT_EQ(row(b, 2, 1, 1, 3), v2);
  EXPECT_EQ(pool.filled(b), 3);
  auto table = std::make_shared<PageTable>();
  table->pages = {b};
  EXPECT_THROW(PagedKvCache(pool, table, 1), Error);  // layer 1 has no rows in the pages
  PagePool counting(2, 4, std::vector<PageRows>(3), ElementType::BF16);
  EXPECT_EQ(counting.bytes_per_token(), 0u);
  EXPECT_EQ(counting.rows(counting.allocate(), 0, 0), nullptr);
  EXPECT_THROW(PagePool(2, 4, std::vector<PageRows>{}, ElementType::F32), Error);
  EXPECT_THROW(PagePool(2, 4, std::vector<PageRows>{{-1, 2}}, ElementType::F32), Error);
}

// Rows written through the cache land at table[j / P], row j % P, of the right layer, K and V
// apart; BF16 pools round to nearest even.
TEST(PagedKvCache, WritesRowsThroughThePageTableAndCountsLedgerBytes) {
  for (ElementType dt : {ElementType::F32, ElementType::BF16}) {
    const int P = 3, L = 2, W = 7, T = 8;  // 8 positions over 3 pages of 3
    PagePool pool(5, P, L, W, dt);
    auto table = std::make_shared<PageTable>();
    for (int i = 0; i < 3; ++i) table->pages.push_back(pool.allocate());
    std::swap(table->pages[0], table->pages[2]);  // pages out of order
    PagedKvCache layer1(pool, table, 1);
    EXPECT_EQ(layer1.capacity(), 9);
    std::mt19937 rng(3);
    const std::vector<float> k = rand_vec((size_t)T * W, rng), v = rand_vec((size_t)T * W, rng);
    layer1.append(0, 5, k.data(), v.data());
    layer1.append(5, 3, k.data() + 5 * W, v.data() + 5 * W);
    EXPECT_THROW(layer1.append(8, 2, k.data(), v.data()), Error);  // capacity 9
    EXPECT_THROW(layer1.append(3, 1, k.data(), v.data()), Error);  // not at the end
    EXPECT_EQ(layer1.length(), T);
    EXPECT_EQ(layer1.bytes_in_use(), (size_t)T * 2 * W * element_bytes(dt, 1));
    const KvPages view = layer1.view();
    for (int j = 0; j < T; ++j)
      for (int c = 0; c < W; ++c) {
        const long at = (long)(j % P) * W + c;
        const float kf = dt == ElementType::F32 ? static_cast<const float*>(view.k[j / P])[at]
                                               : bf16_to_float(static_cast<const uint16_t*>(view.k[j / P])[at]);
        const float vf = dt == ElementType::F32 ? static_cast<const float*>(view.v[j / P])[at]
                                               : bf16_to_float(static_cast<const uint16_t*>(view.v[j / P])[at]);
        const float kw = k[(size_t)j * W + c], vw = v[(size_t)j * W + c];
        EXPECT_EQ(kf, dt == ElementType::F32 ? kw : bf16_to_float(float_to_bf16(kw)));
        EXPECT_EQ(vf, dt == ElementType::F32 ? vw : bf16_to_float(float_to_bf16(vw)));
      }
    EXPECT_EQ(pool.filled(table->pages[2]), 2);
    pool.retain(table->pages[2]);  // shared: never written
    PagedKvCache again(pool, table, 0, 6);
    EXPECT_THROW(again.append(6, 1, k.data(), v.data()), Error);
  }
}

TEST(PrefixCache, ChainsVerifiesAndEvictsDescendants) {
  PagePool pool(6, 2, 1, 3, ElementType::F32);
  PrefixCache pc(pool);
  const std::vector<float> rows(6, 0.5f);
  const std::vector<int> t = {5, 6, 7, 8, 9, 10};
  auto full_page = [&] {
    const int p = pool.allocate();
    pool.write(p, 0, 0, 2, rows.data(), rows.data());
    return p;
  };
  const int p0 = full_page(), p1 = full_page();
  const uint64_t h0 = PrefixCache::chain_hash(0, t.data(), 2);
  const uint64_t h1 = PrefixCache::chain_hash(h0, t.data() + 2, 2);
  EXPECT_NE(h1, PrefixCache::chain_hash(0, t.data() + 2, 2));  // the prefix is in the key
  EXPECT_EQ(pc.insert(p0, -1, h0, t.data()), p0);
  EXPECT_EQ(pc.insert(p1, p0, h1, t.data() + 2), p1);
  EXPECT_EQ(pc.match(t.data(), 3), (std::vector<int>{p0, p1}));
  EXPECT_EQ(pc.match(t.data(), 1), (std::vector<int>{p0}));
  const std::vector<int> other = {5, 6, 7, 1};
  EXPECT_EQ(pc.match(other.data(), 2), (std::vector<int>{p0}));
  const int dup = full_page();  // the same prefix again: the first page stays the cached one
  EXPECT_EQ(pc.insert(dup, -1, h0, t.data()), p0);
  EXPECT_FALSE(pc.holds(dup));
  EXPECT_THROW(pc.evict_one(), Error);  // nothing unreferenced
  EXPECT_EQ(pool.release(p1), 0);
  pc.unreferenced(p1);
  EXPECT_EQ(pool.release(p0), 0);
  pc.unreferenced(p0);
  EXPECT_EQ(pc.evictable(), 2);
  const int free_before = pool.free_pages();
  pc.evict_one();  // p1 first (least recent), then p0 with nothing after it
  EXPECT_EQ(pool.free_pages(), free_before + 1);
  EXPECT_EQ(pc.match(t.data(), 3), (std::vector<int>{p0}));
  pc.referenced(p0), pool.retain(p0);  // in use again: not evictable
  EXPECT_EQ(pc.evictable(), 0);
  // Evicting a parent drops what was cached after it.
  const int p1b = full_page();
  EXPECT_EQ(pc.insert(p1b, p0, h1, t.data() + 2), p1b);
  EXPECT_EQ(pool.release(p1b), 0);
  pc.unreferenced(p1b);
  EXPECT_EQ(pool.release(p0), 0);
  pc.unreferenced(p0);
  pc.evict_one();  // p1b (older), then p0
  pc.evict_one();
  EXPECT_EQ(pc.evictable(), 0);
  EXPECT_TRUE(pc.match(t.data(), 3).empty());
}

struct PagedCase {
  int Tq, Tk, H, Hkv, D, Dv, page_size;
};

// Paged attention = the double reference for pages of 1, 3 and 16 positions and the one-page
// (contiguous) table, F32 rows (1e-5) and BF16 rows (the reference on the rounded K/V).
TEST(PagedAttention, MatchesTheReferenceThroughEveryPageSize) {
  // {13, 70, ...} and {7, 41, ...}: Dv past one 64-column tile (+ a tail of 8), rows that fill and
  // split the 4-row tiles (13 queries x 3 heads), keys past a pair of 16-key vectors. The last
  // three, D a multiple of 16 and at most 4 heads per KV head: a query alone (and, with a window,
  // every task) reads whole 16-key vectors straight from the rows, the rest through panels — the
  // row-independence checks below compare the two.
  const PagedCase cases[] = {{1, 37, 6, 2, 8, 5, 1}, {5, 37, 6, 2, 8, 5, 3},
                             {11, 29, 4, 4, 7, 9, 16}, {3, 20, 5, 1, 16, 18, 16},
                             {9, 9, 3, 3, 20, 6, 1000}, {13, 70, 6, 2, 24, 72, 16},
                             {7, 41, 4, 1, 64, 64, 5}, {6, 53, 4, 2, 32, 16, 7},
                             {5, 40, 2, 1, 16, 8, 16}};
  for (const PagedCase& c : cases)
    for (bool bf16 : {false, true})
      for (int window : {0, 6})
        for (bool with_sinks : {false, true}) {
      SCOPED_TRACE(format("Tq={} Tk={} H={} Hkv={} D={} Dv={} P={} bf16={} window={} sinks={}",
                          c.Tq, c.Tk, c.H, c.Hkv, c.D, c.Dv, c.page_size, bf16, window, with_sinks));
      std::mt19937 rng(7);
      std::vector<float> q = rand_vec((size_t)c.Tq * c.H * c.D, rng, -2, 2);
      std::vector<float> k = rand_vec((size_t)c.Tk * c.Hkv * c.D, rng, -2, 2);
      std::vector<float> v = rand_vec((size_t)c.Tk * c.Hkv * c.Dv, rng);
      if (bf16)
        for (auto* x : {&k, &v})
          for (float& f : *x) f = bf16_to_float(float_to_bf16(f));
      // Pages in reverse order in memory, the table pointing at them.
      const int P = std::min(c.page_size, c.Tk), pages = (c.Tk + P - 1) / P;
      const long kw = (long)c.Hkv * c.D, vw = (long)c.Hkv * c.Dv;
      std::vector<float> kf((size_t)pages * P * kw), vf((size_t)pages * P * vw);
      std::vector<uint16_t> kb(kf.size()), vb(vf.size());
      std::vector<const void*> kp(pages), vp(pages);
      for (int j = 0; j < c.Tk; ++j) {
        const long slot = (long)(pages - 1 - j / P) * P + j % P;
        std::copy_n(k.data() + j * kw, kw, kf.data() + slot * kw);
        std::copy_n(v.data() + j * vw, vw, vf.data() + slot * vw);
      }
      bf16_round(kb.data(), kf.data(), (long)kf.size()), bf16_round(vb.data(), vf.data(), (long)vf.size());
      for (int p = 0; p < pages; ++p) {
        const long at = (long)(pages - 1 - p) * P;
        kp[p] = bf16 ? (const void*)(kb.data() + at * kw) : (const void*)(kf.data() + at * kw);
        vp[p] = bf16 ? (const void*)(vb.data() + at * vw) : (const void*)(vf.data() + at * vw);
      }
      AttentionDims d;
      d.Tq = c.Tq, d.Tk = c.Tk, d.H = c.H, d.Hkv = c.Hkv, d.D = c.D, d.Dv = c.Dv;
      d.q_offset = c.Tk - c.Tq, d.scale = 1.0f / std::sqrt((float)c.D), d.window = window;
      const std::vector<float> sinks = rand_vec((size_t)c.H, rng, -1, 1);
      if (with_sinks) d.sinks = sinks.data();
      const KvPages view{kp.data(), vp.data(), P, bf16};
      std::vector<float> out((size_t)c.Tq * c.H * c.Dv);
      const uint64_t pairs = attention_paged_forward(out.data(), q.data(), view, d);
      std::vector<double> want(out.size());
      const uint64_t ref_pairs = ref::attention_forward(want.data(), nullptr, to_double(q).data(),
                                                        to_double(k).data(), to_double(v).data(), d,
                                                        with_sinks ? to_double(sinks).data() : nullptr);
      EXPECT_EQ(pairs, ref_pairs);
      EXPECT_TRUE(all_close(out, want, 1e-5, 1e-5, "paged attention", {c.Tq, c.H, c.Dv}));
      // Row independence: every query row alone (Tq = 1) and a run of rows [1, Tq − 1) are
      // bitwise the rows of the whole call.
      const long row = (long)c.H * c.Dv;
      for (int t = 0; t < c.Tq; ++t) {
        AttentionDims one = d;
        one.Tq = 1, one.q_offset = d.q_offset + t;
        std::vector<float> alone((size_t)row);
        attention_paged_forward(alone.data(), q.data() + (long)t * c.H * c.D, view, one);
        EXPECT_EQ(std::memcmp(alone.data(), out.data() + t * row, sizeof(float) * row), 0)
            << "query " << t;
      }
      if (c.Tq > 2) {
        AttentionDims mid = d;
        mid.Tq = c.Tq - 2, mid.q_offset = d.q_offset + 1;
        std::vector<float> part((size_t)mid.Tq * row);
        attention_paged_forward(part.data(), q.data() + (long)c.H * c.D, view, mid);
        EXPECT_EQ(std::memcmp(part.data(), out.data() + row, sizeof(float) * part.size()), 0);
      }
    }
}

// SwiGLU's value of an element does not depend on its place in the array (the tail of fewer than
// 16 takes the same SIMD exp as the blocks).
TEST(Swiglu, ElementsDoNotDependOnTheirOffset) {
  std::mt19937 rng(13);
  const std::vector<float> g = rand_vec(53, rng, -6, 6), u = rand_vec(53, rng);
  std::vector<float> all(53), part(53);
  swiglu_forward(all.data(), g.data(), u.data(), 53);
  for (size_t off : {1u, 7u, 40u}) {
    swiglu_forward(part.data(), g.data() + off, u.data() + off, 53 - off);
    EXPECT_EQ(std::memcmp(part.data(), all.data() + off, sizeof(float) * (53 - off)), 0) << off;
  }
}

}  // namespace
}  // namespace llm0
