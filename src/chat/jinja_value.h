// The values a chat template computes with: Python's objects as Jinja2 sees them (None, bool, int,
// float, str, list, dict, and Jinja's Undefined and namespace()), plus the callables a template
// may call (its macros and globals such as raise_exception). Strings are UTF-8; lists and dicts
// are shared (a namespace() changed in a loop is changed for everyone holding it, as in Python);
// dicts keep insertion order, as Python's do (tojson and items() follow it).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace llm0::chat {

struct Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>;  // insertion order, unique keys

/// Positional and keyword arguments of a call.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
};
/// A template-callable function (a macro or a global). Throws chat::TemplateError.
using Callable = std::function<Value(const CallArgs&)>;

/// One Jinja2 value. Kind `undefined` is jinja2.Undefined: printed as "", false, iterates as
/// empty; attribute access, arithmetic and calls on it fail naming `text` (the missing name).
struct Value {
  enum class Kind { undefined, none, boolean, integer, floating, string, list, dict, callable };
  Kind kind = Kind::undefined;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string text;                  // the string, or the name of an undefined value
  std::shared_ptr<List> list;
  std::shared_ptr<Dict> dict;
  bool is_namespace = false;         // a dict made by namespace(): `set ns.x = ...` may change it
  bool is_tuple = false;             // a list Python holds as a tuple (printed "(a, b)"): a tuple
                                     // literal, an item of dict.items()
  std::shared_ptr<Callable> fn;

  static Value undefined(std::string name = {});
  static Value none();
  static Value boolean(bool v);
  static Value integer(int64_t v);
  static Value floating(double v);
  static Value string(std::string v);
  static Value make_list(List v = {});
  static Value make_dict(Dict v = {});
  static Value callable(Callable f);

  bool is_undefined() const { return kind == Kind::undefined; }
  bool is_none() const { return kind == Kind::none; }
  bool is_string() const { return kind == Kind::string; }
  bool is_number() const { return kind == Kind::integer || kind == Kind::floating || kind == Kind::boolean; }
  bool is_list() const { return kind == Kind::list; }
  bool is_dict() const { return kind == Kind::dict; }

  /// The value under `key` of a dict, or nullptr.
  const Value* find(const std::string& key) const;
  /// Sets `key` of a dict (appended when new).
  void set(const std::string& key, Value v);
};

/// Python's bool(v).
bool truthy(const Value& v);
/// Python's ==: numbers across int/float/bool, strings, lists and dicts elementwise; Undefined
/// equals only Undefined.
bool equal(const Value& a, const Value& b);
/// Python's type name of v ("str", "int", "list", "dict", "NoneType", "Undefined", ...), for
/// messages.
const char* type_name(const Value& v);

/// A JSON value as a template value (objects keep their key order).
Value from_json(const nlohmann::ordered_json& j);

}  // namespace llm0::chat
