// The model's own chat template (chat_template.h).
#include "chat/chat_template.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "chat/jinja_error.h"
#include "core/json_file.h"

namespace llm0::chat {

namespace {

// The special tokens transformers passes to every template (its special_tokens_map's names).
constexpr const char* kSpecialTokenNames[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                              "pad_token", "cls_token", "mask_token"};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "cannot read {}", path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string template_of(const nlohmann::json& t, const std::string& where) {
  if (t.is_string()) return t.get<std::string>();
  LLM0_CHECK(t.is_array(), "{}: chat_template must be a string or a list of {\"name\", \"template\"} objects", where);
  for (const auto& e : t)
    if (e.is_object() && e.value("name", "") == "default" && e.contains("template") && e["template"].is_string())
      return e["template"].get<std::string>();
  LLM0_FAIL("{}: chat_template is a list of named templates without one named \"default\"", where);
}

}  // namespace

ChatTemplate make_chat_template(std::string source, std::string origin,
                                std::vector<std::pair<std::string, std::string>> special_tokens) {
  JinjaTemplate compiled(source);
  ChatTemplate t{std::move(source), std::move(origin), "", "", std::move(special_tokens), std::move(compiled)};
  for (const auto& [name, text] : t.special_tokens) {
    if (name == "bos_token") t.bos_token = text;
    if (name == "eos_token") t.eos_token = text;
  }
  return t;
}

std::optional<ChatTemplate> load_chat_template(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string config_path = (fs::path(dir) / "tokenizer_config.json").string();
  const std::string jinja_path = (fs::path(dir) / "chat_template.jinja").string();
  nlohmann::json config = nlohmann::json::object();
  if (fs::exists(config_path)) config = read_json_file(config_path, "tokenizer config file");
  LLM0_CHECK(config.is_object(), "{}: not a JSON object", config_path);
  std::string source, origin;
  if (fs::exists(jinja_path)) {
    source = read_text(jinja_path), origin = "chat_template.jinja";
  } else if (config.contains("chat_template") && !config["chat_template"].is_null()) {
    source = template_of(config["chat_template"], config_path), origin = "tokenizer_config.json";
  } else {
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> specials;
  for (const char* name : kSpecialTokenNames) {
    if (!config.contains(name) || config[name].is_null()) continue;
    const nlohmann::json& v = config[name];
    if (v.is_string()) specials.emplace_back(name, v.get<std::string>());
    else if (v.is_object() && v.contains("content") && v["content"].is_string())
      specials.emplace_back(name, v["content"].get<std::string>());
    else
      LLM0_FAIL("{}: {} must be a string or an object with a string \"content\"", config_path, name);
  }
  try {
    return make_chat_template(std::move(source), origin, std::move(specials));
  } catch (const TemplateError& e) {
    LLM0_FAIL("{}: {}", origin == "chat_template.jinja" ? jinja_path : config_path, e.what());
  }
}

std::string ChatTemplate::render(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                                 const nlohmann::ordered_json& kwargs, const Clock& clock) const {
  LLM0_CHECK(messages.is_array(), "chat template: messages must be a list");
  Dict vars{{"messages", from_json(messages)},
            {"tools", Value::none()},
            {"documents", Value::none()},
            {"add_generation_prompt", Value::boolean(add_generation_prompt)}};
  for (const auto& [name, text] : special_tokens) vars.emplace_back(name, Value::string(text));
  if (!kwargs.is_null()) {
    LLM0_CHECK(kwargs.is_object(), "chat_template_kwargs must be an object");
    for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
      for (const char* fixed : {"messages", "tools", "documents", "add_generation_prompt"})
        LLM0_CHECK(it.key() != fixed, "chat_template_kwargs may not set '{}'", fixed);
      vars.emplace_back(it.key(), from_json(it.value()));
    }
  }
  return compiled.render(vars, clock);
}

}  // namespace llm0::chat
