// How Python writes a value, as Jinja2 prints it: str() for {{ x }} and the `string` filter,
// repr() inside lists and dicts, and json.dumps() for transformers' `tojson` filter
// (transformers chat_template_utils.py: json.dumps(x, ensure_ascii=False, indent, separators,
// sort_keys) — not Jinja2's own HTML-escaping tojson).
#pragma once
#include <string>

#include "chat/jinja_value.h"

namespace llm0::chat {

/// Python's str(v): None, True/False, 42, 0.1 (repr of a float: the shortest text that reads
/// back, e.g. 1e+20, 1e-05, 2.0), a string as is, lists and dicts with repr() of their items.
/// Undefined prints as "". A callable prints as "<function>".
std::string py_str(const Value& v);

/// Python's repr(v) (strings quoted: 'a', "it's").
std::string py_repr(const Value& v);

/// json.dumps(v, ensure_ascii=False, indent=indent (< 0: None), sort_keys): separators ", " and
/// ": " without indent, "," and ": " with it. Throws TemplateError for an Undefined or a callable
/// ("Object of type Undefined is not JSON serializable", as Python).
std::string py_json(const Value& v, int indent = -1, bool sort_keys = false);

}  // namespace llm0::chat
