// Operators, iteration, items and slices of template values (jinja_builtins.h), with Python's
// semantics.
#include <cmath>

#include "chat/jinja_builtins.h"
#include "chat/jinja_error.h"
#include "chat/jinja_python_text.h"
#include "chat/jinja_text.h"

namespace llm0::chat {

void fail_undefined(const Value& v) { fail(v.text.empty() ? "'?' is undefined" : v.text); }

const Value* argument(const CallArgs& a, size_t pos, const char* key) {
  if (pos < a.positional.size()) return &a.positional[pos];
  for (const auto& [k, v] : a.keyword)
    if (k == key) return &v;
  return nullptr;
}

namespace {

bool is_int(const Value& v) { return v.kind == Value::Kind::integer || v.kind == Value::Kind::boolean; }
int64_t as_int(const Value& v) { return v.kind == Value::Kind::integer ? v.i : (int64_t)v.b; }
double as_double(const Value& v) { return v.kind == Value::Kind::floating ? v.f : (double)as_int(v); }

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b) {
  if (a.is_undefined()) fail_undefined(a);
  if (b.is_undefined()) fail_undefined(b);
  fail(format("unsupported operand type(s) for {}: '{}' and '{}'", op, type_name(a), type_name(b)));
}

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Value repeat(const Value& seq, int64_t n) {
  if (seq.is_string()) {
    std::string out;
    for (int64_t k = 0; k < n; ++k) out += seq.text;
    return Value::string(out);
  }
  List out;
  for (int64_t k = 0; k < n; ++k) out.insert(out.end(), seq.list->begin(), seq.list->end());
  return Value::make_list(out);
}

// -1, 0, 1 as Python's <, ==, > for numbers, strings and lists.
int order(const Value& a, const Value& b, const std::string& op) {
  if (a.is_number() && b.is_number()) {
    if (is_int(a) && is_int(b)) return as_int(a) < as_int(b) ? -1 : as_int(a) > as_int(b);
    return as_double(a) < as_double(b) ? -1 : as_double(a) > as_double(b);
  }
  if (a.is_string() && b.is_string()) return a.text < b.text ? -1 : a.text > b.text;  // UTF-8 = code point order
  if (a.is_list() && b.is_list()) {
    for (size_t k = 0; k < a.list->size() && k < b.list->size(); ++k)
      if (!equal((*a.list)[k], (*b.list)[k])) return order((*a.list)[k], (*b.list)[k], op);
    return a.list->size() < b.list->size() ? -1 : a.list->size() > b.list->size();
  }
  if (a.is_undefined()) fail_undefined(a);
  if (b.is_undefined()) fail_undefined(b);
  fail(format("'{}' not supported between instances of '{}' and '{}'", op, type_name(a), type_name(b)));
}

bool contains(const Value& container, const Value& item) {
  switch (container.kind) {
    case Value::Kind::string:
      if (!item.is_string())
        fail(format("'in <string>' requires string as left operand, not {}", type_name(item)));
      return container.text.find(item.text) != std::string::npos;
    case Value::Kind::list:
      for (const Value& v : *container.list)
        if (equal(v, item)) return true;
      return false;
    case Value::Kind::dict: return item.is_string() && container.find(item.text) != nullptr;
    case Value::Kind::undefined: return false;  // iterates as empty
    default: fail(format("argument of type '{}' is not iterable", type_name(container)));
  }
}

// Python's slice.indices for a sequence of n items.
std::vector<int64_t> slice_indices(int64_t n, const Value* start, const Value* stop, const Value* step) {
  auto get = [](const Value* v, const char* what) -> const Value* {
    if (!v || v->is_none()) return nullptr;
    if (!is_int(*v)) fail(format("slice {} must be an integer or None, not '{}'", what, type_name(*v)));
    return v;
  };
  const Value* a = get(start, "start");
  const Value* b = get(stop, "stop");
  const Value* s = get(step, "step");
  const int64_t st = s ? as_int(*s) : 1;
  if (st == 0) fail("slice step cannot be zero");
  auto clamp = [&](const Value* v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = as_int(*v);
    if (x < 0) x += n;
    if (st > 0) return std::min(std::max<int64_t>(x, 0), n);
    return std::min(std::max<int64_t>(x, -1), n - 1);
  };
  const int64_t lo = clamp(a, st > 0 ? 0 : n - 1), hi = clamp(b, st > 0 ? n : -1);
  std::vector<int64_t> idx;
  for (int64_t k = lo; st > 0 ? k < hi : k > hi; k += st) idx.push_back(k);
  return idx;
}

}  // namespace

Value binary_op(const std::string& op, const Value& a, const Value& b) {
  if (op == "~") return Value::string(py_str(a) + py_str(b));
  if (a.is_number() && b.is_number()) {
    const bool ints = is_int(a) && is_int(b);
    const int64_t x = ints ? as_int(a) : 0, y = ints ? as_int(b) : 0;
    const double p = as_double(a), q = as_double(b);
    if (op == "+") return ints ? Value::integer(x + y) : Value::floating(p + q);
    if (op == "-") return ints ? Value::integer(x - y) : Value::floating(p - q);
    if (op == "*") return ints ? Value::integer(x * y) : Value::floating(p * q);
    if (op == "/") {
      if (q == 0) fail("division by zero");
      return Value::floating(p / q);
    }
    if (op == "//" || op == "%") {
      if (q == 0) fail(op == "//" ? "integer division or modulo by zero" : "modulo by zero");
      if (ints) return op == "//" ? Value::integer(floor_div(x, y)) : Value::integer(x - floor_div(x, y) * y);
      const double fl = std::floor(p / q);
      return op == "//" ? Value::floating(fl) : Value::floating(p - fl * q);
    }
    if (op == "**") {
      if (ints && y >= 0) {
        int64_t r = 1;
        for (int64_t k = 0; k < y; ++k) r *= x;
        return Value::integer(r);
      }
      return Value::floating(std::pow(p, q));
    }
  }
  if (op == "+" && a.is_string() && b.is_string()) return Value::string(a.text + b.text);
  if (op == "+" && a.is_list() && b.is_list()) {
    List out = *a.list;
    out.insert(out.end(), b.list->begin(), b.list->end());
    return Value::make_list(out);
  }
  if (op == "*" && (a.is_string() || a.is_list()) && is_int(b)) return repeat(a, as_int(b));
  if (op == "*" && (b.is_string() || b.is_list()) && is_int(a)) return repeat(b, as_int(a));
  if (op == "%" && a.is_string() && !b.is_undefined()) fail("string formatting with '%' is not supported");
  unsupported(op, a, b);
}

bool compare_op(const std::string& op, const Value& a, const Value& b) {
  if (op == "==") return equal(a, b);
  if (op == "!=") return !equal(a, b);
  if (op == "in") return contains(b, a);
  if (op == "not in") return !contains(b, a);
  const int c = order(a, b, op);
  if (op == "<") return c < 0;
  if (op == ">") return c > 0;
  if (op == "<=") return c <= 0;
  return c >= 0;  // >=
}

Value negate(const Value& v, bool minus) {
  if (is_int(v)) return Value::integer(minus ? -as_int(v) : as_int(v));
  if (v.kind == Value::Kind::floating) return Value::floating(minus ? -v.f : v.f);
  if (v.is_undefined()) fail_undefined(v);
  fail(format("bad operand type for unary {}: '{}'", minus ? "-" : "+", type_name(v)));
}

List iterate(const Value& v) {
  switch (v.kind) {
    case Value::Kind::undefined: return {};
    case Value::Kind::list: return *v.list;
    case Value::Kind::dict: {
      List keys;
      for (const auto& kv : *v.dict) keys.push_back(Value::string(kv.first));
      return keys;
    }
    case Value::Kind::string: {
      List chars;
      for (const char32_t c : utf8_code_points(v.text)) chars.push_back(Value::string(utf8_text(std::u32string(1, c))));
      return chars;
    }
    default: fail(format("'{}' object is not iterable", type_name(v)));
  }
}

int64_t length(const Value& v) {
  switch (v.kind) {
    case Value::Kind::undefined: return 0;
    case Value::Kind::string: return (int64_t)utf8_code_points(v.text).size();
    case Value::Kind::list: return (int64_t)v.list->size();
    case Value::Kind::dict: return (int64_t)v.dict->size();
    default: fail(format("object of type '{}' has no len()", type_name(v)));
  }
}

Value get_item(const Value& obj, const Value& key) {
  if (obj.is_undefined()) fail_undefined(obj);
  if (obj.is_dict()) {
    if (key.is_string())
      if (const Value* v = obj.find(key.text)) return *v;
    return Value::undefined(format("'dict object' has no attribute {}", py_repr(key)));
  }
  if ((obj.is_list() || obj.is_string()) && is_int(key)) {
    const int64_t n = length(obj);
    int64_t k = as_int(key);
    if (k < 0) k += n;
    if (k < 0 || k >= n)
      return Value::undefined(format("'{} object' has no attribute {}", type_name(obj), py_repr(key)));
    if (obj.is_list()) return (*obj.list)[(size_t)k];
    return Value::string(utf8_text(std::u32string(1, utf8_code_points(obj.text)[(size_t)k])));
  }
  if (key.is_string()) return get_attribute(obj, key.text);
  return Value::undefined(format("'{} object' has no attribute {}", type_name(obj), py_repr(key)));
}

Value get_slice(const Value& obj, const Value* start, const Value* stop, const Value* step) {
  if (obj.is_undefined()) fail_undefined(obj);
  if (obj.is_list()) {
    List out;
    for (const int64_t k : slice_indices((int64_t)obj.list->size(), start, stop, step)) out.push_back((*obj.list)[(size_t)k]);
    return Value::make_list(out);
  }
  if (obj.is_string()) {
    const std::u32string cps = utf8_code_points(obj.text);
    std::u32string out;
    for (const int64_t k : slice_indices((int64_t)cps.size(), start, stop, step)) out += cps[(size_t)k];
    return Value::string(utf8_text(out));
  }
  fail(format("'{}' object is not subscriptable", type_name(obj)));
}

}  // namespace llm0::chat
