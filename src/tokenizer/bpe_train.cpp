// Incremental BPE training (see bpe_train.h). Per merge, only the words that contain the pair
// are touched, and only the pairs next to each merged occurrence change count:
// for ... p a b n ... -> ... p X n ...: (p,a) -1, (p,X) +1, (b,n) -1, (X,n) +1.
// Heap entries are never updated in place: a popped entry whose count is stale is pushed again
// with the current count; pairs that gain count (those holding the new token) get a fresh
// entry after each merge, so the pop order is exactly "highest current count first".
#include "tokenizer/bpe_train.h"

#include <algorithm>
#include <optional>
#include <queue>
#include <unordered_map>

#include "core/check.h"

namespace llm0 {

namespace {

using PairKey = uint64_t;
PairKey key_of(int left, int right) {
  return (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right);
}

struct HeapEntry {
  int64_t count;
  int left, right;
  // Priority: higher count first, then smaller left id, then smaller right id.
  bool operator<(const HeapEntry& o) const {
    if (count != o.count) return count < o.count;
    if (left != o.left) return left > o.left;
    return right > o.right;
  }
};

struct Word {
  std::vector<int> syms;  // token ids, initially the bytes
  int64_t count;
};

struct State {
  std::vector<Word> words;
  std::unordered_map<PairKey, int64_t> pair_counts;
  std::unordered_map<PairKey, std::vector<int>> pair_words;  // may hold stale/duplicate ids
  std::priority_queue<HeapEntry> heap;
  std::vector<PairKey> touched_new;  // pairs containing the new token, this step

  void add(int l, int r, int64_t c, int word, bool is_new) {
    const PairKey k = key_of(l, r);
    pair_counts[k] += c;
    if (!is_new) return;
    auto& ws = pair_words[k];
    if (ws.empty() || ws.back() != word) ws.push_back(word);
    touched_new.push_back(k);
  }
};

void init_state(State& st, const std::vector<std::pair<std::string, int64_t>>& word_counts) {
  st.words.reserve(word_counts.size());
  for (const auto& [bytes, count] : word_counts) {
    Word w{{}, count};
    for (char c : bytes) w.syms.push_back(static_cast<unsigned char>(c));
    st.words.push_back(std::move(w));
  }
  for (int wi = 0; wi < static_cast<int>(st.words.size()); ++wi) {
    const Word& w = st.words[wi];
    for (size_t i = 0; i + 1 < w.syms.size(); ++i) {
      const PairKey k = key_of(w.syms[i], w.syms[i + 1]);
      st.pair_counts[k] += w.count;
      auto& ws = st.pair_words[k];
      if (ws.empty() || ws.back() != wi) ws.push_back(wi);
    }
  }
  for (const auto& [k, c] : st.pair_counts)
    st.heap.push({c, static_cast<int>(k >> 32), static_cast<int>(k & 0xFFFFFFFFu)});
}

// Merges every (a, b) in word `wi` into `x`, left to right, updating the neighbouring pairs.
void merge_word(State& st, int wi, int a, int b, int x) {
  Word& w = st.words[wi];
  std::vector<int>& s = w.syms;
  const int64_t c = w.count;
  size_t out = 0;
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
      if (out > 0) {
        st.add(s[out - 1], a, -c, wi, false);
        st.add(s[out - 1], x, c, wi, true);
      }
      if (i + 2 < s.size()) {
        st.add(b, s[i + 2], -c, wi, false);
        st.add(x, s[i + 2], c, wi, true);
      }
      s[out++] = x;
      i += 2;
    } else {
      s[out++] = s[i++];
    }
  }
  s.resize(out);
}

// Pops the best valid pair (highest count, then smallest ids), or nullopt when none is left.
std::optional<std::pair<int, int>> pop_best(State& st) {
  while (!st.heap.empty()) {
    const HeapEntry top = st.heap.top();
    st.heap.pop();
    const auto it = st.pair_counts.find(key_of(top.left, top.right));
    const int64_t actual = it == st.pair_counts.end() ? 0 : it->second;
    if (actual == top.count && actual > 0) return std::pair{top.left, top.right};
    if (actual > 0) st.heap.push({actual, top.left, top.right});  // stale: requeue
  }
  return std::nullopt;
}

// Replaces (a, b) by x in every word holding it and queues the pairs that now contain x.
void apply_merge(State& st, int a, int b, int x) {
  const PairKey k = key_of(a, b);
  std::vector<int> ws = std::move(st.pair_words[k]);
  st.pair_words.erase(k);
  std::sort(ws.begin(), ws.end());
  ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
  st.touched_new.clear();
  for (int wi : ws) merge_word(st, wi, a, b, x);
  st.pair_counts.erase(k);  // no (a,b) is left anywhere; (a,a) overlaps may have touched it
  auto& t = st.touched_new;
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  for (PairKey nk : t) {
    const int64_t c = st.pair_counts[nk];
    if (c > 0) st.heap.push({c, static_cast<int>(nk >> 32), static_cast<int>(nk & 0xFFFFFFFFu)});
  }
}

}  // namespace

BpeTrainResult bpe_train(const std::vector<std::pair<std::string, int64_t>>& word_counts,
                         int max_tokens) {
  LLM0_CHECK(max_tokens >= 256, "bpe_train: max_tokens={} must be >= 256", max_tokens);
  State st;
  init_state(st, word_counts);
  BpeTrainResult r;
  std::unordered_map<std::string, int> token_ids;
  for (int b = 0; b < 256; ++b) {
    r.tokens.emplace_back(1, static_cast<char>(b));
    token_ids.emplace(r.tokens.back(), b);
  }
  while (static_cast<int>(r.tokens.size()) < max_tokens) {
    const auto best = pop_best(st);
    if (!best) break;
    const auto [a, b] = *best;
    std::string bytes = r.tokens[a] + r.tokens[b];
    const auto [tit, is_new] = token_ids.emplace(bytes, static_cast<int>(r.tokens.size()));
    if (is_new) r.tokens.push_back(std::move(bytes));
    r.merges.push_back({a, b});
    apply_merge(st, a, b, tit->second);
  }
  return r;
}

}  // namespace llm0
