// Plain-text reports of the lessons (what `llm0 lesson ...` prints without --json). Columns are
// padded by display width, so CJK tokens (two columns each) line up in a terminal.
#pragma once
#include <string>

#include "lesson/lesson_attention.h"
#include "lesson/lesson_kv_cache.h"
#include "lesson/lesson_shapes.h"

namespace llm0::lesson {

/// Terminal columns of UTF-8 text: East Asian wide characters count 2, others 1.
int display_width(const std::string& s);

/// `s` padded with spaces on the right (left = false) or left (left = true) to `width` columns.
std::string pad(const std::string& s, int width, bool left = false);

/// Weights, outputs, range check, sinks, per-head rows, W_O output, swap test, split heads and
/// the course's figures (lesson_figures.h).
std::string attention_text(const AttentionLesson& lesson);

/// Per-step counters of both runs, totals, logit difference, greedy tokens, growth and slopes.
std::string kv_cache_text(const KvCacheLesson& lesson);

/// The six steps of one head with shapes, contracted dimension and multiply-adds.
std::string shapes_text(const ShapesLesson& lesson);

}  // namespace llm0::lesson
