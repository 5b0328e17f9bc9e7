// The tests of chat templates ("x is defined", ...; jinja_builtins.h: apply_test), as
// jinja2/tests.py defines them.
#include "chat/jinja_builtins.h"
#include "chat/jinja_error.h"
#include "chat/jinja_python_text.h"

namespace llm0::chat {

namespace {
const Value& operand(const CallArgs& a, const std::string& test) {
  if (a.positional.empty()) fail(format("the test '{}' needs an argument", test));
  return a.positional[0];
}
}  // namespace

bool apply_test(const std::string& name, const Value& v, const CallArgs& a) {
  using K = Value::Kind;
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "string") return v.is_string();
  if (name == "mapping") return v.is_dict() && !v.is_namespace;
  // Undefined has __iter__, __len__ and __getitem__: Jinja2 counts it iterable and a sequence.
  if (name == "iterable") return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined();
  if (name == "sequence") return v.is_string() || v.is_list() || (v.is_dict() && !v.is_namespace) || v.is_undefined();
  if (name == "number") return v.is_number();
  if (name == "integer") return v.kind == K::integer;
  if (name == "float") return v.kind == K::floating;
  if (name == "boolean") return v.kind == K::boolean;
  if (name == "true") return v.kind == K::boolean && v.b;
  if (name == "false") return v.kind == K::boolean && !v.b;
  if (name == "callable") return v.kind == K::callable;
  if (name == "eq" || name == "equalto" || name == "==") return compare_op("==", v, operand(a, name));
  if (name == "ne" || name == "!=") return compare_op("!=", v, operand(a, name));
  if (name == "lt" || name == "lessthan" || name == "<") return compare_op("<", v, operand(a, name));
  if (name == "gt" || name == "greaterthan" || name == ">") return compare_op(">", v, operand(a, name));
  if (name == "le" || name == "<=") return compare_op("<=", v, operand(a, name));
  if (name == "ge" || name == ">=") return compare_op(">=", v, operand(a, name));
  if (name == "in") return compare_op("in", v, operand(a, name));
  if (name == "sameas") {
    const Value& o = operand(a, name);
    if (v.kind != o.kind) return false;
    if (v.is_none() || v.is_undefined()) return true;
    if (v.kind == K::boolean) return v.b == o.b;
    if (v.is_list()) return v.list == o.list;
    if (v.is_dict()) return v.dict == o.dict;
    fail("the test 'sameas' is supported for none, booleans, lists and dicts only");
  }
  if (name == "odd" || name == "even" || name == "divisibleby") {
    if (v.kind != K::integer) fail(format("the test '{}' needs an integer, not {}", name, type_name(v)));
    if (name == "odd") return v.i % 2 != 0;
    if (name == "even") return v.i % 2 == 0;
    const Value& d = operand(a, name);
    if (d.kind != K::integer || d.i == 0) fail("the test 'divisibleby' needs a non-zero integer");
    return v.i % d.i == 0;
  }
  if (name == "lower" || name == "upper") {
    const std::string s = py_str(v);
    bool cased = false;
    for (const char c : s) {
      if (std::isalpha((unsigned char)c)) cased = true;
      if (name == "lower" ? std::isupper((unsigned char)c) : std::islower((unsigned char)c)) return false;
    }
    return cased;
  }
  fail(format("the test '{}' is not supported", name));
}

}  // namespace llm0::chat
