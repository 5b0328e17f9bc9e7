// The parsed template: expressions (Expr) and statements (Node), as jinja2/nodes.py has them,
// reduced to what chat templates use. Each carries its source line for error messages.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja_value.h"

namespace llm0::chat {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// One expression. The meaning of `name` and `kids` depends on the kind:
///   literal  value
///   name     name (a variable)
///   list     kids = items (name "tuple" for a tuple: a list printed "(a, b)")
///   dict     kids = key0, value0, key1, value1, ...
///   attr     kids[0] . name
///   item     kids[0] [ kids[1] ]
///   slice    kids[0] [ kids[1] : kids[2] : kids[3] ]   (absent parts are null)
///   call     kids[0] ( kids[1..], keyword )
///   filter   kids[0] | name ( kids[1..], keyword )
///   test     kids[0] is [not] name ( kids[1..] )       (negated for "is not")
///   unary    name ("-", "+", "not") kids[0]
///   binary   kids[0] name kids[1]   (+ - * / // % ** ~ and or)
///   compare  kids[0] ops[0] kids[1] ops[1] kids[2] ...  (== != < > <= >= in "not in"), chained
///   cond     kids[0] if kids[1] else kids[2]            (kids[2] null: Undefined)
struct Expr {
  enum class Kind { literal, name, list, dict, attr, item, slice, call, filter, test, unary, binary, compare, cond };
  Kind kind = Kind::literal;
  int line = 0;
  Value value;
  std::string name;
  std::vector<ExprPtr> kids;
  std::vector<std::pair<std::string, ExprPtr>> keyword;
  std::vector<std::string> ops;
  bool negated = false;
};

struct Node;
using NodePtr = std::shared_ptr<const Node>;
using Body = std::vector<NodePtr>;

/// One statement:
///   text      text                                  (template data, whitespace already applied)
///   output    {{ expr }}
///   if_       branches: (condition, body)...; an else has a null condition
///   for_      {% for targets in expr [if filter] %} body {% else %} else_body {% endfor %}
///   set       {% set targets = expr %} or {% set targets[0].attr = expr %}
///   set_block {% set targets[0] %} body {% endset %}
///   macro     {% macro targets[0](params) %} body {% endmacro %}
///   break_, continue_ (jinja2.ext.loopcontrols, which transformers enables)
///   generation {% generation %} body {% endgeneration %} (transformers' AssistantTracker: the body
///             as it is)
struct Node {
  enum class Kind { text, output, if_, for_, set, set_block, macro, break_, continue_, generation };
  Kind kind = Kind::text;
  int line = 0;
  std::string text;
  ExprPtr expr, filter;
  std::vector<std::pair<ExprPtr, Body>> branches;
  std::vector<std::string> targets;
  std::string attr;
  std::vector<std::pair<std::string, ExprPtr>> params;  // macro parameters (default or null)
  Body body, else_body;
};

}  // namespace llm0::chat
