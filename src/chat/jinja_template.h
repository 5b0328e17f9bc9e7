// A chat template as Hugging Face transformers renders it (chat_template_utils.py
// _compile_jinja_template: jinja2's ImmutableSandboxedEnvironment with trim_blocks and
// lstrip_blocks, the loopcontrols extension, tojson as json.dumps(ensure_ascii=False), the globals
// raise_exception and strftime_now), by a Jinja2 subset written for the published templates:
// statements if/elif/else, for (loop.index0/first/last/...), set (namespace() attributes, blocks),
// macro, break/continue; expressions with Python's operators, slices, str and dict methods; the
// filters and tests of jinja_builtins.h. What it does not implement is refused by name with the
// line ("chat template: the filter 'xyz' is not supported (line 3)"), never rendered otherwise.
#pragma once
#include <string>

#include "chat/jinja_ast.h"
#include "chat/jinja_builtins.h"

namespace llm0::chat {

/// The local time now (localtime_r of the system clock): strftime_now's default.
std::tm local_now();

class JinjaTemplate {
 public:
  /// Parses `source`. Throws TemplateError (with the line) for a syntax error or a statement
  /// that is not supported.
  explicit JinjaTemplate(const std::string& source);

  /// The text for `variables` (e.g. messages, add_generation_prompt, bos_token), with the globals
  /// of template_globals(clock). Throws TemplateError (with the line): a filter, test, method or
  /// function that is not supported, an error Jinja2 raises too (an undefined value used, a
  /// type mismatch), or the template's raise_exception("...").
  std::string render(const Dict& variables, const Clock& clock = local_now) const;

 private:
  Body body_;
};

}  // namespace llm0::chat
