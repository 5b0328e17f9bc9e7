// The filters of chat templates (jinja_builtins.h: apply_filter), as jinja2/filters.py defines
// them, and transformers' tojson (json.dumps with ensure_ascii=False).
#include <cmath>

#include "chat/jinja_builtins.h"
#include "chat/jinja_error.h"
#include "chat/jinja_python_text.h"
#include "chat/jinja_text.h"

namespace llm0::chat {

namespace {

// Jinja2's attribute lookup of map/selectattr: "a.b" walks items, a digit string indexes.
Value attribute_path(const Value& item, const std::string& path) {
  Value v = item;
  size_t at = 0;
  while (true) {
    const size_t dot = path.find('.', at);
    const std::string part = path.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    v = get_item(v, digits ? Value::integer(std::stoll(part)) : Value::string(part));
    if (dot == std::string::npos || v.is_undefined()) return v;
    at = dot + 1;
  }
}

const Value& need(const CallArgs& a, size_t pos, const char* key, const char* filter) {
  const Value* v = argument(a, pos, key);
  if (!v) fail(format("the filter '{}' needs its argument '{}'", filter, key));
  return *v;
}

// select / reject / selectattr / rejectattr: keep the items whose (attribute's) test is `keep`.
Value select(const Value& seq, const CallArgs& a, bool by_attr, bool keep) {
  size_t next = 0;
  std::string attr;
  if (by_attr) {
    const Value& at = need(a, next++, "attribute", keep ? "selectattr" : "rejectattr");
    if (!at.is_string()) fail("selectattr / rejectattr need an attribute name");
    attr = at.text;
  }
  std::string test;
  CallArgs test_args;
  if (next < a.positional.size()) {
    if (!a.positional[next].is_string()) fail("select / reject need a test name");
    test = a.positional[next].text;
    test_args.positional.assign(a.positional.begin() + (long)next + 1, a.positional.end());
  }
  List out;
  for (const Value& item : iterate(seq)) {
    const Value v = by_attr ? attribute_path(item, attr) : item;
    const bool pass = test.empty() ? truthy(v) : apply_test(test, v, test_args);
    if (pass == keep) out.push_back(item);
  }
  return Value::make_list(out);
}

Value map_filter(const Value& seq, const CallArgs& a) {
  List out;
  if (const Value* attr = argument(a, 99, "attribute")) {
    const Value* dflt = argument(a, 99, "default");
    for (const Value& item : iterate(seq)) {
      Value v = attribute_path(item, py_str(*attr));
      out.push_back(v.is_undefined() && dflt ? *dflt : v);
    }
    return Value::make_list(out);
  }
  if (a.positional.empty() || !a.positional[0].is_string()) fail("map needs a filter name or attribute=");
  CallArgs rest;
  rest.positional.assign(a.positional.begin() + 1, a.positional.end());
  rest.keyword = a.keyword;
  for (const Value& item : iterate(seq)) out.push_back(apply_filter(a.positional[0].text, item, rest));
  return Value::make_list(out);
}

Value to_number(const Value& v, const CallArgs& a, bool integer) {
  const Value* dflt = argument(a, 0, "default");
  const Value fallback = dflt ? *dflt : integer ? Value::integer(0) : Value::floating(0);
  if (v.kind == Value::Kind::integer || v.kind == Value::Kind::boolean)
    return integer ? Value::integer(v.kind == Value::Kind::integer ? v.i : v.b) : Value::floating(v.kind == Value::Kind::integer ? (double)v.i : v.b);
  if (v.kind == Value::Kind::floating) return integer ? Value::integer((int64_t)v.f) : v;
  if (!v.is_string()) return fallback;
  const std::string s = py_strip(v.text, nullptr, true, true);
  try {
    size_t used = 0;
    if (integer) {
      const int64_t x = std::stoll(s, &used, 10);
      if (used == s.size()) return Value::integer(x);
      const double d = std::stod(s, &used);
      return used == s.size() ? Value::integer((int64_t)d) : fallback;
    }
    const double d = std::stod(s, &used);
    return used == s.size() ? Value::floating(d) : fallback;
  } catch (const std::exception&) {
    return fallback;
  }
}

Value tojson(const Value& v, const CallArgs& a) {
  for (const auto& [k, x] : a.keyword)
    if (k != "indent" && k != "sort_keys" && !(k == "ensure_ascii" && !truthy(x)))
      fail(format("the argument '{}' of the filter 'tojson' is not supported", k));
  const Value* indent = argument(a, 0, "indent");
  if (indent && !indent->is_none() && indent->kind != Value::Kind::integer)
    fail("the filter 'tojson' takes an integer indent");
  const Value* sort = argument(a, 99, "sort_keys");
  return Value::string(py_json(v, indent && !indent->is_none() ? (int)indent->i : -1, sort && truthy(*sort)));
}

}  // namespace

Value apply_filter(const std::string& name, const Value& v, const CallArgs& a) {
  if (name == "trim") {
    const Value* chars = argument(a, 0, "chars");
    const std::string c = chars && !chars->is_none() ? py_str(*chars) : std::string();
    return Value::string(py_strip(py_str(v), chars && !chars->is_none() ? &c : nullptr, true, true));
  }
  if (name == "tojson") return tojson(v, a);
  if (name == "length" || name == "count") return Value::integer(length(v));
  if (name == "string") return Value::string(py_str(v));
  if (name == "upper") return Value::string(py_upper(py_str(v)));
  if (name == "lower") return Value::string(py_lower(py_str(v)));
  if (name == "capitalize" || name == "title")
    return get_attribute(Value::string(py_str(v)), name).fn->operator()(CallArgs{});
  if (name == "default" || name == "d") {
    const Value* dflt = argument(a, 0, "default_value");
    const Value* boolean = argument(a, 1, "boolean");
    const bool use = v.is_undefined() || (boolean && truthy(*boolean) && !truthy(v));
    return use ? (dflt ? *dflt : Value::string("")) : v;
  }
  if (name == "join") {
    const Value* sep = argument(a, 0, "d");
    const Value* attr = argument(a, 1, "attribute");
    std::string out;
    bool first = true;
    for (const Value& item : iterate(v)) {
      out += (first ? "" : sep ? py_str(*sep) : "") + py_str(attr ? attribute_path(item, py_str(*attr)) : item);
      first = false;
    }
    return Value::string(out);
  }
  if (name == "items") {
    if (v.is_undefined()) return Value::make_list();
    if (!v.is_dict()) fail(format("the filter 'items' needs a mapping, not {}", type_name(v)));
    return get_attribute(v, "items").fn->operator()(CallArgs{});
  }
  if (name == "first" || name == "last") {
    const List items = iterate(v);
    if (items.empty()) return Value::undefined(format("No {} item, sequence was empty.", name));
    return name == "first" ? items.front() : items.back();
  }
  if (name == "list") return Value::make_list(iterate(v));
  if (name == "reverse") {
    if (v.is_string()) return Value::string(utf8_text(std::u32string(utf8_code_points(v.text).rbegin(), utf8_code_points(v.text).rend())));
    List items = iterate(v);
    return Value::make_list(List(items.rbegin(), items.rend()));
  }
  if (name == "replace") {
    const std::string s = py_str(v), old = py_str(need(a, 0, "old", "replace")), neu = py_str(need(a, 1, "new", "replace"));
    const Value* count = argument(a, 2, "count");
    int64_t left = count && !count->is_none() ? count->i : -1;
    std::string out;
    if (old.empty()) fail("replace() with an empty 'old' is not supported");
    size_t at = 0;
    for (size_t hit = s.find(old); hit != std::string::npos && left != 0; hit = s.find(old, at), --left) {
      out += s.substr(at, hit - at) + neu;
      at = hit + old.size();
    }
    return Value::string(out + s.substr(at));
  }
  if (name == "int") return to_number(v, a, true);
  if (name == "float") return to_number(v, a, false);
  if (name == "abs") {
    if (v.kind == Value::Kind::floating) return Value::floating(std::fabs(v.f));
    return negate(v, v.kind == Value::Kind::integer && v.i < 0);
  }
  if (name == "selectattr" || name == "rejectattr") return select(v, a, true, name == "selectattr");
  if (name == "select" || name == "reject") return select(v, a, false, name == "select");
  if (name == "map") return map_filter(v, a);
  if (name == "safe") return v;  // no autoescaping: nothing to mark
  fail(format("the filter '{}' is not supported", name));
}

}  // namespace llm0::chat
