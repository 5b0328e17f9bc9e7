// The one error of the chat-template engine: a template it cannot parse, a feature of Jinja2 it
// does not implement (named: "the filter 'xyz' is not supported"), an error Jinja2 would raise
// too (an undefined value used, a type mismatch), or the template's own raise_exception().
#pragma once
#include <string>

#include "core/check.h"

namespace llm0::chat {

/// what() = "chat template: WHAT (line N)"; line 0 = not yet known (the renderer adds the line of
/// the expression or statement being evaluated when it passes the error on).
struct TemplateError : Error {
  TemplateError(const std::string& what, int line);
  std::string bare;  // WHAT
  int line = 0;      // 1-based line of the template source, 0 = unknown
};

/// Throws TemplateError(what, line).
[[noreturn]] void fail(const std::string& what, int line = 0);

}  // namespace llm0::chat
