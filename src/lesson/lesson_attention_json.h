// The attention lesson (lesson_attention.h) as the JSON that `llm0 lesson attention --json` prints
// and the explorer serves: every head's rows, the swap test, the cache check, and the course's
// figures picked out of it (lesson_figures.h) — a unit of its own so that the figures, which read
// an AttentionLesson, and the lesson, which does not read them, include downwards only.
#pragma once
#include <nlohmann/json.hpp>

#include "lesson/lesson_attention.h"

namespace llm0::lesson {

/// The lesson as JSON (field names as in the structs; matrices as lists of rows; "figures" from
/// course_figures when the lesson has heads).
nlohmann::json to_json(const AttentionLesson& lesson);

}  // namespace llm0::lesson
