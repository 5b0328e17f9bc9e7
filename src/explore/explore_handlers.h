// The explorer's endpoint handlers (docs/explore-api.md): each reads its query keys (the CLI
// twin's option names), runs the same lesson:: / ledger function as the twin and returns its JSON,
// or throws ExploreError / llm0::Error (answered 400 by ExploreApi::handle).
#pragma once
#include <nlohmann/json.hpp>

#include "explore/explore_api.h"

namespace llm0::explore {

/// GET lesson/attention?asker=TOKEN ≡ `llm0 lesson attention --asker TOKEN --json`.
nlohmann::json lesson_attention(ExploreApi& api, const ApiRequest& r);
/// GET lesson/kv-cache?prompt-len&generate&up-to&seed&model=loaded ≡ `llm0 lesson kv-cache ... --json`.
nlohmann::json lesson_kv_cache(ExploreApi& api, const ApiRequest& r);
/// GET lesson/shapes?config=NAME&tokens=T ≡ `llm0 lesson shapes --config configs/reference/NAME.json ... --json`.
nlohmann::json lesson_shapes(ExploreApi& api, const ApiRequest& r);
/// GET lesson/attention-map?text=S ≡ `llm0 lesson attention-map --model RUN --text S --json`.
nlohmann::json lesson_attention_map(ExploreApi& api, const ApiRequest& r);
/// GET lesson/generate-steps?text&tokens&temperature&seed ≡ `llm0 lesson generate-steps --model RUN ... --json`.
nlohmann::json lesson_generate_steps(ExploreApi& api, const ApiRequest& r);
/// GET kv/reference/NAME?context&dtype ≡ element 0 of `llm0 kv configs/reference/NAME.json ... --json`.
nlohmann::json kv_reference(ExploreApi& api, const ApiRequest& r, const std::string& name);
/// POST kv?context&dtype&as&measure, body config.json ≡ element 0 of `llm0 kv config.json ... --json`.
nlohmann::json kv_pasted(ExploreApi& api, const ApiRequest& r);

}  // namespace llm0::explore
