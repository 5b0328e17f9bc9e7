// The course's teaching-world figures, read out of the attention lesson (lesson 5 "what is
// retrieved — V" and the attention timeline): the row of the swap test's query ("给了") with and
// without the causal mask, its most similar tokens before and after the Q/K projections, the
// split heads' picks and the sink row. Every number comes from run_attention_lesson (the
// engine's ops); this file only selects and orders them. Definitions: docs/teaching-world.md.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lesson/lesson_attention.h"

namespace llm0::lesson {

/// A token position with the value it was ranked by.
struct Ranked {
  int token = 0;
  double value = 0;
};

/// A split head's most-weighted token in the figures' row (causal mask).
struct SplitPick {
  std::string head;  ///< the split head's name ("A", "B")
  int token = 0;
  double weight = 0;
};

/// The figures the course quotes from the teaching world (head 0 unless said otherwise).
struct CourseFigures {
  int row = 0;                        ///< the row read: swap_test.query, else the last token
  std::vector<double> causal;         ///< [row + 1] the row's weights with the causal mask
  std::vector<double> unmasked;       ///< [T] the row's weights without the mask
  std::vector<Ranked> by_embedding;   ///< all tokens by cos(x_row, x_j), most similar first
  std::vector<Ranked> by_score;       ///< all tokens by q_row·k_j/√d_h (no mask), highest first
  std::vector<SplitPick> split;       ///< one pick per split head (empty without split_heads)
  std::optional<int> sink_row;        ///< the world's sink_row
  std::vector<double> sink_scores;    ///< [sink_row + 1] q·k/√d_h of the visible keys
  std::vector<double> sink_weights;   ///< [sink_row + 1] plain softmax (every row shares 100 %)
  std::vector<double> sink_weights_with_sink;  ///< [sink_row + 1] with the head's sink logit
  std::optional<double> sink_nothing;          ///< weight given to "nothing" (sink heads only)
};

/// Selects the figures from a lesson run on a world. Throws llm0::Error when the lesson has no
/// heads (a loaded world always has one).
CourseFigures course_figures(const AttentionLesson& lesson);

/// The figures as JSON (token names instead of positions); part of `lesson attention --json`.
nlohmann::json to_json(const CourseFigures& figures, const std::vector<std::string>& tokens);

}  // namespace llm0::lesson
