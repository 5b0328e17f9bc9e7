// Runs sequences through a BatchEngine (serve/batch_engine.h) on a fixed schedule of chunks, for
// the tests of its determinism contract (test_batch_engine, test_kinds_batch).
#pragma once
#include <algorithm>
#include <vector>

#include "model/model.h"
#include "serve/batch_engine.h"

namespace llm0::testing_fixtures {

/// Runs `seqs` through one engine in steps: step k gives sequence i the next chunks[i][k]
/// tokens (0: not in that step); returns every sequence's logits after each of its works, in
/// order (the last token's [V] each time). Opens each sequence with a reservation of its length
/// and closes it at the end.
inline std::vector<std::vector<float>> run_schedule(Model& m, const std::vector<std::vector<int>>& seqs,
                                                    const std::vector<std::vector<int>>& chunks,
                                                    BatchEngine& e) {
  const int V = m.config().vocab_size;
  std::vector<SeqId> ids;
  for (const auto& s : seqs) ids.push_back(*e.open(s, (int)s.size()));
  std::vector<int> done(seqs.size(), 0);
  for (size_t i = 0; i < seqs.size(); ++i) done[i] = e.cached_tokens(ids[i]);
  std::vector<std::vector<float>> out(seqs.size());
  const size_t steps = chunks[0].size();
  for (size_t k = 0; k < steps; ++k) {
    std::vector<BatchEngine::Work> w;
    std::vector<size_t> who;
    for (size_t i = 0; i < seqs.size(); ++i) {
      const int n = std::min(chunks[i][k], (int)seqs[i].size() - done[i]);
      if (n <= 0) continue;
      w.push_back({ids[i], seqs[i].data() + done[i], n});
      who.push_back(i);
      done[i] += n;
    }
    std::vector<float> logits(w.size() * (size_t)V);
    e.step(w, logits.data());
    for (size_t j = 0; j < who.size(); ++j)
      out[who[j]].insert(out[who[j]].end(), logits.begin() + (long)j * V,
                         logits.begin() + (long)(j + 1) * V);
  }
  for (SeqId id : ids) e.close(id);
  return out;
}

}  // namespace llm0::testing_fixtures
