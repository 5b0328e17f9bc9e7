// TemplateError (jinja_error.h).
#include "chat/jinja_error.h"

namespace llm0::chat {

TemplateError::TemplateError(const std::string& what, int line)
    : Error(line > 0 ? format("chat template: {} (line {})", what, line) : "chat template: " + what),
      bare(what), line(line) {}

void fail(const std::string& what, int line) { throw TemplateError(what, line); }

}  // namespace llm0::chat
