// ExploreApi: the explorer's JSON endpoints (docs/explore-api.md) as one pure function,
// request -> JSON or error object, with no socket (explore_http.h serves it over HTTP,
// explore_export.h bakes it into a static copy). Each endpoint answers what its CLI twin
// (`llm0 lesson ... --json`, `llm0 kv ... --json`) prints, built by the same lesson:: / ledger
// functions. Requests are served one at a time (the loaded model keeps per-call scratch).
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/explore_request.h"
#include "infer/generator_io.h"
#include "lesson/lesson_attention_map.h"

namespace llm0::explore {

/// Bounds of the heavy requests (also reported by /explore/api/info under "limits").
struct ExploreLimits {
  static constexpr int kLessonPromptLen = 64;    ///< kv-cache prompt-len P
  static constexpr int kLessonGenerate = 64;     ///< kv-cache generate G
  static constexpr int kKvCacheUpTo = 4096;      ///< kv-cache up-to L (counting model: seconds)
  static constexpr int kAttentionMapTokens = lesson::kAttentionMapMaxTokens;  ///< attention-map sentence tokens
  static constexpr int kGenerateStepsTokens = 256; ///< generate-steps tokens
  static constexpr size_t kBodyBytes = 1u << 20;   ///< POST body (a config.json)
};

/// How the explorer was started.
struct ExploreOptions {
  std::string model_dir;  ///< `--model` as given ("" = no model); names the model in the JSON
  std::string lang = "zh";  ///< the language the pages open in: "zh" or "en"
};

class ExploreApi {
 public:
  /// Loads the model of `opt.model_dir` (load_generation_model) when given. Throws llm0::Error
  /// naming the file when it cannot be loaded, or an unknown language.
  explicit ExploreApi(const ExploreOptions& opt);

  /// Answers one request (200 + JSON, or an error status + error_json). Never throws; requests
  /// are serialised, and each runs with the thread count the constructing thread had (`--threads`:
  /// OpenMP's setting is per thread, and the HTTP threads would otherwise start with all cores).
  ApiResponse handle(const ApiRequest& request);

  /// GET /explore/api/info (docs/explore-api.md "info"); `static_copy` for an export.
  nlohmann::json info(bool static_copy = false) const;

  const ExploreOptions& options() const { return opt_; }
  /// The loaded model and tokenizer, or null.
  GenerationModel* model() { return model_.model ? &model_ : nullptr; }
  /// The loaded model, or ExploreError 400 "no_model" saying how to load one.
  GenerationModel& require_model();
  /// The sentence the model panels start from: Chinese, or English for --lang en or a model whose
  /// vocabulary spells the Chinese one in bytes (more tokens than characters).
  std::string default_text() const;

 private:
  ExploreOptions opt_;
  GenerationModel model_;
  int threads_ = 0;
  std::mutex mu_;
};

/// Names of the shipped reference configs (configs/reference/NAME.json), sorted.
std::vector<std::string> reference_config_names();

/// The shipped path of reference config NAME. Throws ExploreError (400) for a name not in
/// reference_config_names(), listing them.
std::string reference_config_path(const std::string& name);

}  // namespace llm0::explore
