// The teaching world of `llm0 lesson attention`: a sentence (小明 把 苹果 给了 小王),
// d_model-dimensional embeddings and per-head projection matrices W_Q, W_K, W_V, optionally W_O,
// several heads and per-head attention-sink logits. File format: docs/teaching-world.md.
// Matrices use the course's row-vector convention: q = x W_Q with W_Q [d_model, d_head]
// (row-major, outermost first); W_O [H·d_head, d_model] maps the concatenated heads back.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::lesson {

/// One attention head of the teaching world.
struct WorldHead {
  std::string name;                 ///< e.g. "who"
  std::vector<float> W_Q, W_K, W_V;  ///< each [d_model, d_head], row-major
  std::optional<double> sink_logit;  ///< gpt-oss style learned sink logit (natural-log units)
};

/// The swap experiment: exchange two tokens, watch one query row.
struct WorldSwap {
  int a = 0, b = 0;  ///< positions of the two swapped tokens (a < b)
  int query = 0;     ///< position of the row whose retrieved vector is compared
  int head = 0;      ///< which head the experiment reads
};

/// The multi-head variant: head 0's W_Q, W_K, W_V cut by columns into `count` heads of
/// d_head / count each (the same parameters and multiplications, one softmax per head).
struct WorldSplit {
  int count = 2;                   ///< number of heads; divides d_head
  std::vector<std::string> names;  ///< one label per head (default "head i")
};

/// A loaded, validated teaching world.
struct TeachingWorld {
  std::string source;                ///< file path (for messages)
  std::string description;
  int d_model = 0, d_head = 0;       ///< embedding width d and per-head width d_h
  std::vector<std::string> tokens;   ///< T tokens (the sentence)
  std::vector<float> embeddings;     ///< [T, d_model], row t = token t
  std::vector<WorldHead> heads;      ///< H ≥ 1 heads, all of width d_head
  std::vector<float> W_O;            ///< [H·d_head, d_model], empty when absent
  std::optional<WorldSwap> swap;     ///< absent when the file has no "swap_test"
  std::optional<WorldSplit> split;   ///< absent when the file has no "split_heads"
  std::optional<int> sink_row;       ///< position of "sink_row" (the row the sink figure reads)

  /// Number of tokens T.
  int T() const { return (int)tokens.size(); }
  /// Number of heads H.
  int H() const { return (int)heads.size(); }
  /// Position of the first token equal to `name`. Throws llm0::Error naming the token.
  int position_of(const std::string& name) const;
};

/// Parses and validates a world (format in docs/teaching-world.md). `source` names the file in
/// errors. Throws llm0::Error naming the field: missing field, wrong type, d_model/d_head ≤ 0,
/// embeddings count ≠ tokens count, a row or matrix of the wrong size, non-finite numbers,
/// no heads, swap tokens not in the sentence or a query row before the swapped tokens.
TeachingWorld world_from_json(const nlohmann::json& j, const std::string& source);

/// Reads a world file. Throws llm0::Error naming the file when it is missing or not JSON, and
/// whatever world_from_json throws.
TeachingWorld load_world(const std::string& path);

/// The same world with tokens (and embedding rows) at positions a and b exchanged.
TeachingWorld swapped(const TeachingWorld& w, int a, int b);

/// The same world with the swap test's query row (the "asker") at the first position of `token`;
/// any row is allowed (a row before both swapped tokens sees no change: Δ = 0). Throws
/// llm0::Error when the world has no "swap_test" or `token` is not in its sentence (naming both).
TeachingWorld with_asker(const TeachingWorld& w, const std::string& token);

/// The multi-head variant of a world with a "split_heads" field: H = split.count heads of
/// d_head / count, head i taking columns [i·d_h, (i+1)·d_h) of head 0's W_Q, W_K and W_V
/// (no sink logits, no swap test, no split). W_O is kept: its shape [H·d_head, d_model] is the same.
TeachingWorld split_world(const TeachingWorld& w);

}  // namespace llm0::lesson
