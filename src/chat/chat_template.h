// A model's own chat template, as Hugging Face checkpoints ship it: chat_template.jinja in the
// model directory (transformers >= 4.43 saves it there), else "chat_template" of
// tokenizer_config.json (a string, or a list of {"name", "template"} of which "default" is used),
// with the special tokens the template may print (bos_token, eos_token, ... of
// tokenizer_config.json: strings or {"content": ...} objects). Rendered as transformers'
// apply_chat_template(messages, add_generation_prompt, **kwargs) renders it (jinja_template.h):
// variables messages, tools = None, documents = None, add_generation_prompt, the special tokens,
// then the caller's kwargs (e.g. Qwen3's enable_thinking).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/jinja_template.h"

namespace llm0::chat {

struct ChatTemplate {
  std::string source;       // the template text
  std::string origin;       // "chat_template.jinja" or "tokenizer_config.json"
  std::string bos_token;    // "" when the config names none
  std::string eos_token;    // "" when the config names none; the end of an assistant turn
  std::vector<std::pair<std::string, std::string>> special_tokens;  // name -> text, as passed
  JinjaTemplate compiled;

  /// The prompt text of `messages` (a JSON array of {"role", "content", ...} objects, passed as
  /// they are). `kwargs`: a JSON object of more variables (null = none); it may not name
  /// messages, tools, documents or add_generation_prompt. Throws TemplateError (what
  /// JinjaTemplate::render throws) or llm0::Error for bad kwargs.
  std::string render(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                     const nlohmann::ordered_json& kwargs = nullptr, const Clock& clock = local_now) const;
};

/// The chat template of the model directory `dir`, or nullopt when it ships none. Throws
/// llm0::Error naming the file: an unreadable or malformed tokenizer_config.json, a chat_template
/// that is neither a string nor a list of named templates (or a list without "default"), a
/// special token that is neither a string nor {"content": string}, and TemplateError (naming
/// the file too) for a template that does not parse.
std::optional<ChatTemplate> load_chat_template(const std::string& dir);

/// A template from its parts (the text and the special tokens by name, e.g. {"bos_token",
/// "<s>"}); bos_token / eos_token are read from `special_tokens`. Throws TemplateError for a
/// template that does not parse.
ChatTemplate make_chat_template(std::string source, std::string origin,
                                std::vector<std::pair<std::string, std::string>> special_tokens);

}  // namespace llm0::chat
