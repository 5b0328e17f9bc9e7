// BPE merge application (see bpe_encode.h): a doubly linked list of symbols and a min-heap of
// candidate pairs (rank, left position). An entry is stale when its left symbol died or the
// pair at that position now has another rank. Every live pair with a rule has a valid entry,
// so each pop takes the lowest-rank pair, leftmost first: GPT-2's bpe() loop, in O(n log n).
#include "tokenizer/bpe_encode.h"

#include <functional>
#include <queue>

namespace llm0 {

namespace {

struct Symbol {
  int id;    // token id; -1 once merged into its left neighbour
  int prev;  // index of the previous live symbol, -1 at the start
  int next;  // index of the next live symbol, -1 at the end
};

using Candidate = std::pair<int, int>;  // (rank, left symbol index): smallest first
using CandidateHeap = std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>>;

void push_pair(const std::vector<Symbol>& syms, int left, const MergeTable& table,
               CandidateHeap& heap) {
  if (left < 0 || syms[left].next < 0) return;
  const auto it = table.find(merge_key(syms[left].id, syms[syms[left].next].id));
  if (it != table.end()) heap.push({it->second.rank, left});
}

}  // namespace

void bpe_encode_word(std::string_view word, const std::array<int, 256>& byte_ids,
                     const MergeTable& table, std::vector<int>& out) {
  std::vector<int> ids(word.size());
  for (size_t i = 0; i < word.size(); ++i) ids[i] = byte_ids[static_cast<unsigned char>(word[i])];
  bpe_merge_symbols(ids, table, out);
}

void bpe_merge_symbols(const std::vector<int>& ids, const MergeTable& table, std::vector<int>& out) {
  const int n = static_cast<int>(ids.size());
  std::vector<Symbol> syms(n);
  for (int i = 0; i < n; ++i) syms[i] = {ids[i], i - 1, i + 1 < n ? i + 1 : -1};
  CandidateHeap heap;
  for (int i = 0; i + 1 < n; ++i) push_pair(syms, i, table, heap);
  while (!heap.empty()) {
    const auto [rank, i] = heap.top();
    heap.pop();
    const int j = syms[i].next;
    if (syms[i].id < 0 || j < 0) continue;
    const auto it = table.find(merge_key(syms[i].id, syms[j].id));
    if (it == table.end() || it->second.rank != rank) continue;  // stale candidate
    syms[i].id = it->second.id;
    syms[i].next = syms[j].next;
    if (syms[j].next >= 0) syms[syms[j].next].prev = i;
    syms[j].id = -1;
    push_pair(syms, syms[i].prev, table, heap);
    push_pair(syms, i, table, heap);
  }
  for (int i = 0; i >= 0 && i < n; i = syms[i].next) out.push_back(syms[i].id);
}

}  // namespace llm0
