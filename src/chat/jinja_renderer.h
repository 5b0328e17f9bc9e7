// The renderer of a parsed template (used by jinja_template.cpp): scopes as Jinja2 keeps them —
// a for loop's body is a new scope each iteration (a `set` inside it is gone after the loop,
// which is why templates use namespace()), an if is not; a macro call sees the globals and its
// arguments. Expressions (jinja_eval.cpp) and statements (jinja_render.cpp).
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "chat/jinja_ast.h"

namespace llm0::chat {

class Renderer {
 public:
  /// `root`: the globals and the variables passed to render(), in one scope.
  explicit Renderer(const Dict& root);

  /// The value of `e`. Throws TemplateError carrying the line of the innermost expression that
  /// failed.
  Value eval(const Expr& e);

  enum class Flow { normal, break_loop, continue_loop };
  /// Appends the output of `body` to `out`; break / continue end it early and say so.
  Flow exec(const Body& body, std::string& out);

 private:
  Value eval_inner(const Expr& e);
  Value call(const Expr& e);
  CallArgs arguments(const Expr& e, size_t first);
  Flow exec_node(const Node& n, std::string& out);
  Flow exec_for(const Node& n, std::string& out);
  void exec_set(const Node& n, Value v);
  Value macro(const Node& n);

  Value lookup(const std::string& name) const;
  void assign(const std::string& name, Value v);

  std::vector<std::unordered_map<std::string, Value>> frames_;  // [0] = root
};

}  // namespace llm0::chat
