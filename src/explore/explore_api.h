// ExploreApi: the explorer's JSON endpoints (docs/explore-api.md) as one pure function,
// request -> JSON or error object, with no socket (explore_http.h serves it over HTTP,
// explore_export.h bakes it into a static copy). Each endpoint answers what its CLI twin
// (`llm0 lesson ... --json`, `llm0 kv ... --json`) prints, built by the same lesson:: / ledger
// functions. Requests run concurrently (one per HTTP thread), and these locks order them:
//   - the loaded model's lock (require_model's ModelLease): its endpoints (attention-map,
//     generate-steps, the kv-cache lesson with model=loaded) and load_model (POST model) wait for
//     each other (Model keeps per-call scratch and counters: not re-entrant);
//   - info_mu_, under which the model's description (info.model, the default sentence, its name)
//     is read and replaced, so info never waits for a computation on the model;
//   - the heavy turn (heavy_turn: a growth table not yet memoised, a measure=true model): one
//     computes at a time, at most kHeavyRequests hold or wait for it, one more gets 503 busy;
//   - start_mutex, held while a training is checked and started; the growth memo's own lock.
// The teaching-world lesson, shapes and the ledgers without measure take none of them.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/explore_memo.h"
#include "explore/explore_request.h"
#include "explore/train_process.h"
#include "infer/generator_io.h"
#include "lesson/lesson_attention_map.h"
#include "lesson/lesson_kv_cache.h"

namespace llm0::explore {

/// Bounds of the heavy requests (also reported by /explore/api/info under "limits").
struct ExploreLimits {
  static constexpr int kLessonPromptLen = 64;    ///< kv-cache prompt-len P
  static constexpr int kLessonGenerate = 64;     ///< kv-cache generate G
  static constexpr int kKvCacheUpTo = 4096;      ///< kv-cache up-to L (counting model: seconds)
  static constexpr int kAttentionMapTokens = lesson::kAttentionMapMaxTokens;  ///< attention-map sentence tokens
  static constexpr int kGenerateStepsTokens = 256; ///< generate-steps tokens
  static constexpr size_t kBodyBytes = 1u << 20;   ///< POST body (a config.json)
  /// Heavy requests (a growth table not in the memo, a measure=true model) held at once: one
  /// computing, the others waiting their turn; one more is refused at once with 503 `busy`
  /// instead of queueing without bound (each growth table at L = 4,096 takes seconds).
  static constexpr int kHeavyRequests = 4;
  /// Request line's URI (cpp-httplib's CPPHTTPLIB_REQUEST_URI_MAX_LENGTH: longer gets 414
  /// uri_too_long); the pages check a sentence's encoded length against it before sending.
  static constexpr size_t kUriBytes = 8192;
  /// Training event streams (GET train/NAME/events) open at once: each holds a connection for as
  /// long as its run trains, so one more is refused with 503 `too_many_streams`, leaving the other
  /// connections (ConnectionLimits::max_connections, 96 by default) to every other request — a
  /// Stop among them.
  static constexpr int kEventStreams = 32;
};

/// How the explorer was started.
struct ExploreOptions {
  ExploreOptions(std::string model = "", std::string language = "zh")
      : model_dir(std::move(model)), lang(std::move(language)) {}
  std::string model_dir;  ///< `--model` as given ("" = no model); names the model in the JSON
  std::string lang = "zh";  ///< the language the pages open in: "zh" or "en"
  std::string runs_dir = "runs";  ///< `--runs`: where the training pages may write (train_runs.h)
  std::string program;  ///< the llm0 program a training runs ("" = this program, /proc/self/exe)
};

class ExploreApi {
 public:
  /// Loads the model of `opt.model_dir` (load_generation_model) when given. Throws llm0::Error
  /// naming the file when it cannot be loaded, or an unknown language.
  explicit ExploreApi(const ExploreOptions& opt);

  /// Answers one request (200 + JSON, or an error status + error_json). Never throws. Safe to
  /// call from many threads at once (the locks: this file's header).
  /// Each calling thread adopts, once, the OpenMP thread count the constructing thread had
  /// (`--threads`; adopt_num_threads: OpenMP's setting is per thread, and the HTTP threads would
  /// otherwise start with all cores).
  /// Defined with the endpoint table, in explore_routes.cpp.
  ApiResponse handle(const ApiRequest& request);

  /// Requests inside handle() now, on all threads (tests observe concurrency with it).
  int in_flight() const { return in_flight_.load(); }
  /// Training event streams open now (explore_http.cpp counts them against kEventStreams).
  std::atomic<int>& event_streams() { return event_streams_; }

  /// GET /explore/api/info (docs/explore-api.md "info"); `static_copy` for an export.
  nlohmann::json info(bool static_copy = false) const;

  const ExploreOptions& options() const { return opt_; }
  /// The loaded model and tokenizer, or null (not to be used while requests run: see require_model).
  GenerationModel* model() { return model_.model ? &model_ : nullptr; }
  /// The loaded model, held by the calling request until the lease is destroyed (other requests
  /// for it and load_model wait), or ExploreError 400 "no_model" saying how to load one.
  /// `name`: the model's directory as given (--model, or the run POST /explore/api/model loaded);
  /// `generation`: how many models this server has loaded (keys of results memoised per model).
  struct ModelLease {
    std::unique_lock<std::mutex> lock;
    GenerationModel& model;
    std::string name;
    int generation;
  };
  ModelLease require_model();
  /// Loads the checkpoint of `dir` (load_generation_model) and makes it the loaded model once no
  /// request holds the old one (POST /explore/api/model). Throws llm0::Error naming the file when
  /// it cannot be loaded; the old model then stays.
  void load_model(const std::string& dir);
  /// The training runs' child process (one at a time per server: train_process.h).
  ChildSupervisor& children() { return children_; }
  /// Held while a training or preparation is checked and started, so two requests cannot both
  /// pass the checks (POST train, resume, corpus).
  std::mutex& start_mutex() { return start_mu_; }
  /// The program a training runs (options().program, else this program's path).
  const std::string& program() const { return program_; }
  /// The kv-cache lesson's growth tables by (model, P, L): deterministic, and seconds to compute
  /// at L = 4,096 (greedy generation on fixed weights), so computed once per server.
  Memo<lesson::KvCacheLesson>& growth_memo() { return growth_memo_; }
  /// A turn for a heavy computation (a growth table, a --measure model), held until destroyed: one
  /// at a time per server, since each runs an OpenMP team of --threads (three at once on --threads
  /// cores made each ~20× slower); light requests (info, the ledgers, the teaching world) never
  /// wait for it.
  class HeavyTurn {
   public:
    explicit HeavyTurn(ExploreApi& api);
    ~HeavyTurn();
    HeavyTurn(const HeavyTurn&) = delete;
    HeavyTurn& operator=(const HeavyTurn&) = delete;

   private:
    ExploreApi& api_;
  };
  /// Waits for a heavy turn. Throws ExploreError 503 `busy` at once when kHeavyRequests requests
  /// already hold or wait for one; Cancelled (core/cancel.h) when the waiting request is abandoned.
  HeavyTurn heavy_turn() { return HeavyTurn(*this); }
  /// Requests holding or waiting for a heavy turn now (tests observe the queue with it).
  int heavy_requests() const { return heavy_requests_.load(); }
  /// The sentence the model panels start from: Chinese, or English for --lang en or a model whose
  /// vocabulary spells the Chinese one in bytes (more tokens than characters).
  std::string default_text() const;

 private:
  void describe_model();  // model_info_ and default_text_ of model_ (under model_mu_)

  ExploreOptions opt_;
  std::string default_asker_;   // info's "default_asker" (lesson::default_asker)
  GenerationModel model_;
  mutable std::mutex info_mu_;  // model_info_, default_text_, model_name_, generation_
  nlohmann::json model_info_;   // info's "model" (null when none)
  std::string default_text_;
  std::string model_name_;
  int generation_ = 0;
  std::string program_;
  std::mutex start_mu_;
  int threads_ = 0;
  std::mutex model_mu_;
  std::timed_mutex heavy_mu_;
  std::atomic<int> heavy_requests_{0};
  std::atomic<int> in_flight_{0};
  std::atomic<int> event_streams_{0};
  Memo<lesson::KvCacheLesson> growth_memo_{64};
  ChildSupervisor children_;  // last: destroyed first (a running training checkpoints and ends)
};


/// Names of the shipped reference configs (configs/reference/NAME.json), sorted.
std::vector<std::string> reference_config_names();

/// The shipped path of reference config NAME. Throws ExploreError (400) for a name not in
/// reference_config_names(), listing them.
std::string reference_config_path(const std::string& name);

}  // namespace llm0::explore
