// Dispatch, info and model of the explorer's API (explore_api.h).
#include "explore/explore_api.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <new>

#include "core/cancel.h"
#include "core/json_file.h"
#include "core/shipped_file.h"
#include "core/threads.h"
#include "core/version.h"
#include "tokenizer/tokenizer.h"
#include "explore/explore_assets.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_json.h"
#include "lesson/lesson_shapes.h"

namespace llm0::explore {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json model_summary(const GenerationModel& m, const std::string& name, const std::string& text) {
  const ModelConfig& c = m.model->config();
  return {{"name", name}, {"model_type", c.model_type},
          {"num_hidden_layers", c.num_hidden_layers}, {"hidden_size", c.hidden_size},
          {"num_attention_heads", c.num_attention_heads},
          {"num_key_value_heads", c.num_key_value_heads}, {"head_dim", c.head_dim},
          {"vocab_size", c.vocab_size}, {"max_position_embeddings", c.max_position_embeddings},
          {"default_text", text}};
}

}  // namespace

ExploreApi::ExploreApi(const ExploreOptions& opt)
    : opt_(opt), default_asker_(lesson::default_asker()), threads_(num_threads()) {
  LLM0_CHECK(opt_.lang == "zh" || opt_.lang == "en", "--lang must be zh or en, got \"{}\"", opt_.lang);
  LLM0_CHECK(!opt_.runs_dir.empty(), "--runs must name a directory");
  if (!opt_.model_dir.empty()) model_ = load_generation_model(opt_.model_dir);
  model_name_ = opt_.model_dir;
  describe_model();
  std::error_code ec;
  program_ = !opt_.program.empty() ? opt_.program : fs::read_symlink("/proc/self/exe", ec).string();
}

ExploreApi::HeavyTurn::HeavyTurn(ExploreApi& api) : api_(api) {
  if (api.heavy_requests_.fetch_add(1) >= ExploreLimits::kHeavyRequests) {
    --api.heavy_requests_;
    throw ExploreError(503, "busy", format("the explorer already holds {} heavy requests (growth tables "
                       "not computed yet, measured models), the most it queues; try again when one "
                       "has finished", ExploreLimits::kHeavyRequests));
  }
  try {  // waits in slices, so a request abandoned while it waits leaves the queue (cancel_point)
    while (!api.heavy_mu_.try_lock_for(std::chrono::milliseconds(20))) cancel_point();
  } catch (...) {
    --api.heavy_requests_;
    throw;
  }
}

ExploreApi::HeavyTurn::~HeavyTurn() {
  api_.heavy_mu_.unlock();
  --api_.heavy_requests_;
}

ExploreApi::ModelLease ExploreApi::require_model() {
  std::unique_lock<std::mutex> lock(model_mu_);
  if (!model_.model)
    throw ExploreError(400, "no_model", "no model is loaded: start the explorer with one, e.g. "
                       "`llm0 explore --model runs/small` (make run trains it), or train one on the "
                       "training page");
  std::lock_guard<std::mutex> info(info_mu_);
  return {std::move(lock), model_, model_name_, generation_};
}

void ExploreApi::load_model(const std::string& dir) {
  GenerationModel loaded = load_generation_model(dir);  // seconds for a large one: no lock held
  std::lock_guard<std::mutex> lock(model_mu_);
  std::swap(model_, loaded);
  {
    std::lock_guard<std::mutex> info(info_mu_);
    model_name_ = dir;
    ++generation_;
  }
  describe_model();
}  // the old model is freed here

void ExploreApi::describe_model() {
  std::string text = "床前明月光，疑是地上霜。";
  const std::string en = "Once upon a time, there was a little girl";
  // The Chinese sentence, unless the page opens in English or the model's vocabulary does not know
  // Chinese: a tokenizer that spells it with more tokens than it has characters is falling back to
  // bytes (stories260K's 512 pieces are English), and its heat maps would show <0xE5> rows.
  const auto characters = std::count_if(text.begin(), text.end(), [](char b) { return (b & 0xC0) != 0x80; });
  if (opt_.lang == "en" || (model_.tokenizer && std::ssize(model_.tokenizer->encode(text)) > characters)) text = en;
  std::lock_guard<std::mutex> info(info_mu_);
  default_text_ = text;
  model_info_ = model_.model ? model_summary(model_, model_name_, text) : json();
}

std::string ExploreApi::default_text() const {
  std::lock_guard<std::mutex> info(info_mu_);
  return default_text_;
}

json ExploreApi::info(bool static_copy) const {
  return {{"version", version_text()}, {"lang", opt_.lang}, {"languages", {"zh", "en"}},
          {"static", static_copy}, {"katex", katex_embedded()},
          {"reference_configs", reference_config_names()},
          {"limits", {{"kv_cache_up_to", ExploreLimits::kKvCacheUpTo},
                      {"lesson_prompt_len", ExploreLimits::kLessonPromptLen},
                      {"lesson_generate", ExploreLimits::kLessonGenerate},
                      {"attention_map_tokens", ExploreLimits::kAttentionMapTokens},
                      {"generate_steps_tokens", ExploreLimits::kGenerateStepsTokens},
                      {"shapes_tokens", lesson::kShapesMaxTokens},
                      {"body_bytes", ExploreLimits::kBodyBytes},
                      {"heavy_requests", ExploreLimits::kHeavyRequests},
                      {"config_layers", kKvMaxLayers},
                      {"uri_bytes", ExploreLimits::kUriBytes}}},
          {"model", [this] { std::lock_guard<std::mutex> info(info_mu_); return model_info_; }()},
          {"model_hint", "llm0 explore --model runs/small"}, {"default_asker", default_asker_}};
}

std::vector<std::string> reference_config_names() {
  const fs::path dir = fs::path(shipped_file("configs/reference/deepseek-v2.json")).parent_path();
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string reference_config_path(const std::string& name) {
  const std::vector<std::string> names = reference_config_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    throw ExploreError(400, "bad_request",
                       format("\"{}\" is not a shipped reference config ({})", name, list));
  }
  return shipped_file("configs/reference/" + name + ".json");
}

}  // namespace llm0::explore
