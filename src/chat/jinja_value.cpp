// Values of the chat-template engine (jinja_value.h).
#include "chat/jinja_value.h"

#include <nlohmann/json.hpp>

namespace llm0::chat {

namespace {
Value of_kind(Value::Kind k) {
  Value v;
  v.kind = k;
  return v;
}
}  // namespace

Value Value::undefined(std::string name) {
  Value v;
  v.text = std::move(name);
  return v;
}
Value Value::none() { return of_kind(Kind::none); }
Value Value::boolean(bool x) {
  Value v = of_kind(Kind::boolean);
  v.b = x;
  return v;
}
Value Value::integer(int64_t x) {
  Value v = of_kind(Kind::integer);
  v.i = x;
  return v;
}
Value Value::floating(double x) {
  Value v = of_kind(Kind::floating);
  v.f = x;
  return v;
}
Value Value::string(std::string x) {
  Value v = of_kind(Kind::string);
  v.text = std::move(x);
  return v;
}
Value Value::make_list(List x) {
  Value v = of_kind(Kind::list);
  v.list = std::make_shared<List>(std::move(x));
  return v;
}
Value Value::make_dict(Dict x) {
  Value v = of_kind(Kind::dict);
  v.dict = std::make_shared<Dict>(std::move(x));
  return v;
}
Value Value::callable(Callable f) {
  Value v = of_kind(Kind::callable);
  v.fn = std::make_shared<Callable>(std::move(f));
  return v;
}

const Value* Value::find(const std::string& key) const {
  if (kind != Kind::dict) return nullptr;
  for (const auto& [k, v] : *dict)
    if (k == key) return &v;
  return nullptr;
}

void Value::set(const std::string& key, Value v) {
  for (auto& [k, old] : *dict)
    if (k == key) {
      old = std::move(v);
      return;
    }
  dict->emplace_back(key, std::move(v));
}

bool truthy(const Value& v) {
  switch (v.kind) {
    case Value::Kind::undefined:
    case Value::Kind::none: return false;
    case Value::Kind::boolean: return v.b;
    case Value::Kind::integer: return v.i != 0;
    case Value::Kind::floating: return v.f != 0;
    case Value::Kind::string: return !v.text.empty();
    case Value::Kind::list: return !v.list->empty();
    case Value::Kind::dict: return !v.dict->empty();
    case Value::Kind::callable: return true;
  }
  return false;
}

namespace {
double number(const Value& v) {
  return v.kind == Value::Kind::floating ? v.f : v.kind == Value::Kind::integer ? (double)v.i : (double)v.b;
}
}  // namespace

bool equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind != Value::Kind::floating && b.kind != Value::Kind::floating)
      return (a.kind == Value::Kind::integer ? a.i : a.b) == (b.kind == Value::Kind::integer ? b.i : b.b);
    return number(a) == number(b);
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::undefined:
    case Value::Kind::none: return true;
    case Value::Kind::string: return a.text == b.text;
    case Value::Kind::list: {
      if (a.list->size() != b.list->size()) return false;
      for (size_t k = 0; k < a.list->size(); ++k)
        if (!equal((*a.list)[k], (*b.list)[k])) return false;
      return true;
    }
    case Value::Kind::dict: {
      if (a.dict->size() != b.dict->size()) return false;
      for (const auto& [k, v] : *a.dict) {
        const Value* w = b.find(k);
        if (!w || !equal(v, *w)) return false;
      }
      return true;
    }
    case Value::Kind::callable: return a.fn == b.fn;
    default: return false;
  }
}

const char* type_name(const Value& v) {
  switch (v.kind) {
    case Value::Kind::undefined: return "Undefined";
    case Value::Kind::none: return "NoneType";
    case Value::Kind::boolean: return "bool";
    case Value::Kind::integer: return "int";
    case Value::Kind::floating: return "float";
    case Value::Kind::string: return "str";
    case Value::Kind::list: return "list";
    case Value::Kind::dict: return v.is_namespace ? "Namespace" : "dict";
    case Value::Kind::callable: return "function";
  }
  return "?";
}

Value from_json(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return Value::none();
    case nlohmann::ordered_json::value_t::boolean: return Value::boolean(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return Value::integer(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: return Value::integer((int64_t)j.get<uint64_t>());
    case nlohmann::ordered_json::value_t::number_float: return Value::floating(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return Value::string(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      List out;
      for (const auto& e : j) out.push_back(from_json(e));
      return Value::make_list(std::move(out));
    }
    case nlohmann::ordered_json::value_t::object: {
      Dict out;
      for (auto it = j.begin(); it != j.end(); ++it) out.emplace_back(it.key(), from_json(it.value()));
      return Value::make_dict(std::move(out));
    }
    default: return Value::none();
  }
}

}  // namespace llm0::chat
