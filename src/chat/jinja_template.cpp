// JinjaTemplate (jinja_template.h).
#include "chat/jinja_template.h"

#include <chrono>

#include "chat/jinja_parser.h"
#include "chat/jinja_renderer.h"

namespace llm0::chat {

std::tm local_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm out{};
  localtime_r(&t, &out);
  return out;
}

JinjaTemplate::JinjaTemplate(const std::string& source) : body_(parse_template(source)) {}

std::string JinjaTemplate::render(const Dict& variables, const Clock& clock) const {
  Dict root = template_globals(clock);
  for (const auto& [k, v] : variables) root.emplace_back(k, v);  // later entries win (Renderer)
  Renderer r(root);
  std::string out;
  r.exec(body_, out);
  return out;
}

}  // namespace llm0::chat
