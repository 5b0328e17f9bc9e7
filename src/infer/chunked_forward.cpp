// The cached path as one call. See chunked_forward.h.
#include "infer/chunked_forward.h"

#include <cstdint>
#include <string>

#include "core/check.h"

namespace llm0 {

std::vector<float> chunked_forward(const Model& model, InferContext& ctx,
                                   const std::vector<int>& tokens, const std::vector<int>& chunks,
                                   int max_context) {
  const int T = (int)tokens.size(), V = model.config().vocab_size;
  LLM0_CHECK(T > 0, "chunked forward: the token sequence is empty");
  int64_t covered = 0;  // tokens the chunks ask for (int64: each size may be up to INT_MAX)
  std::string list;
  for (int c : chunks) {
    LLM0_CHECK(c >= 1, "--chunks: chunk size {} must be >= 1", c);
    covered += c, list += (list.empty() ? "" : ",") + std::to_string(c);
  }
  LLM0_CHECK(covered <= T, "--chunks {}: the chunk sizes add up to {} tokens, but the sequence has "
             "only {} (a chunk past its end cannot apply)", list, covered, T);
  ModelCache cache = model.new_cache(max_context);
  std::vector<float> logits((size_t)T * V);
  int pos = 0;
  for (size_t i = 0; pos < T; ++i) {
    const int n = i < chunks.size() ? chunks[i] : 1;  // the check above: n <= T - pos
    model.forward_cached(tokens.data() + pos, n, cache, ctx, logits.data() + (size_t)pos * V);
    pos += n;
  }
  return logits;
}

}  // namespace llm0
