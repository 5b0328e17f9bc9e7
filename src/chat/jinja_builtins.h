// What Jinja2 and Python give a chat template besides its syntax: operators on values, attribute
// and item access with str/dict methods, the filters, the tests and the globals transformers adds
// (raise_exception, strftime_now, and jinja2's namespace, range, dict). Each refuses what it does
// not implement by name ("the filter 'xyz' is not supported") and fails where Python would (a
// type mismatch, an undefined value used), with TemplateError (line 0: the renderer adds it).
#pragma once
#include <ctime>
#include <functional>
#include <string>

#include "chat/jinja_value.h"

namespace llm0::chat {

/// `a op b` for op in + - * / // % ** ~ (Python's semantics: int // and % floor, / always a
/// float; str + str, list + list, str * int; ~ joins str() of both).
Value binary_op(const std::string& op, const Value& a, const Value& b);
/// `a op b` for op in == != < > <= >= in, "not in" (a comparison, or membership: substring,
/// list item, dict key).
bool compare_op(const std::string& op, const Value& a, const Value& b);
/// Unary - and +.
Value negate(const Value& v, bool minus);

/// The items a for loop or a filter walks: a list's items, a dict's keys, a string's characters;
/// none for Undefined. Throws for anything else ("'int' object is not iterable").
List iterate(const Value& v);
/// len(v): code points of a string, items of a list or dict; 0 for Undefined.
int64_t length(const Value& v);

/// obj.name: a str or dict method (bound, as a callable), else a dict's key, else Undefined.
/// Throws when obj is Undefined, or for a method that mutates (refused, as Jinja2's
/// ImmutableSandboxedEnvironment does) or that this subset lacks (refused by name).
Value get_attribute(const Value& obj, const std::string& name);
/// obj[key]: a dict's key, a list's or string's item (negative counts from the end); Undefined
/// when missing. Throws when obj is Undefined.
Value get_item(const Value& obj, const Value& key);
/// obj[start:stop:step] of a list or string (null parts absent).
Value get_slice(const Value& obj, const Value* start, const Value* stop, const Value* step);

/// value | name(args).
Value apply_filter(const std::string& name, const Value& value, const CallArgs& args);
/// value is name(args).
bool apply_test(const std::string& name, const Value& value, const CallArgs& args);

/// The local time strftime_now() formats (transformers: datetime.now()); tests give a fixed one.
using Clock = std::function<std::tm()>;
/// The globals a template sees: namespace, range, dict, raise_exception, strftime_now (with
/// `clock`), and the Jinja2 globals this subset refuses by name when called (cycler, joiner,
/// lipsum).
Dict template_globals(const Clock& clock);

/// Argument `pos` (0-based) or keyword `key` of a call, or nullptr.
const Value* argument(const CallArgs& a, size_t pos, const char* key);
/// The message for a use of an Undefined value (its text, or "'?' is undefined").
[[noreturn]] void fail_undefined(const Value& v);

}  // namespace llm0::chat
