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

// The training endpoints (explore_train.cpp; docs/explore-api.md "Training"): a run is the
// `llm0 train` command run as the server's child (train_process.h) in RUNS/NAME (train_runs.h).
/// GET train: the runs directory, presets, corpora, defaults, runs and what is running.
nlohmann::json train_overview(ExploreApi& api, const ApiRequest& r);
/// POST train, JSON {config, minutes | max_steps, seed, dropout, threads, out, corpus, prompt,
/// attention_text, precision} ≡ the returned `llm0 train ...` command.
nlohmann::json train_start(ExploreApi& api, const ApiRequest& r);
/// GET train/NAME ≡ `cat RUNS/NAME/metrics.jsonl`: the run's records, command, log tail, status.
nlohmann::json train_run(ExploreApi& api, const ApiRequest& r, const std::string& name);
/// GET train/NAME/events?from=K, checked: {"run", "dir", "from"} (the HTTP layer then streams the
/// records as server-sent events: explore_http.cpp).
nlohmann::json train_events(ExploreApi& api, const ApiRequest& r, const std::string& name);
/// POST train/NAME/stop ≡ `kill -TERM PID` of its trainer.
nlohmann::json train_stop(ExploreApi& api, const ApiRequest& r, const std::string& name);
/// POST train/NAME/resume, JSON {threads} optional ≡ the returned `llm0 train --resume ...` command.
nlohmann::json train_resume(ExploreApi& api, const ApiRequest& r, const std::string& name);
/// POST train/corpus, JSON {source} ≡ `scripts/prepare_corpus.sh SOURCE DIR`.
nlohmann::json corpus_prepare(ExploreApi& api, const ApiRequest& r);
/// POST model, JSON {run} ≡ `llm0 explore --model RUNS/NAME`: the lessons' model becomes the run's.
nlohmann::json model_load(ExploreApi& api, const ApiRequest& r);
/// The run NAME is being trained: by this server's child, or by any process holding its lock.
bool run_running(ExploreApi& api, const std::string& name);

}  // namespace llm0::explore
