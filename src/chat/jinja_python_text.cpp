// Python's str(), repr() and json.dumps() of template values (jinja_python_text.h).
#include "chat/jinja_python_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "chat/jinja_error.h"

namespace llm0::chat {

namespace {

// repr(float): Python's 'r' format — the shortest digits that read back; positional notation when
// the decimal exponent is in [-4, 16), else d.ddde+XX; a positional value always has a '.'.
std::string float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string s(buf, r.ptr);  // [-]d[.ddd]e[+-]XX
  std::string sign;
  if (s[0] == '-') sign = "-", s.erase(0, 1);
  const size_t e = s.find('e');
  const int exp10 = std::stoi(s.substr(e + 1));
  std::string digits = s.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exp10 < -4 || exp10 >= 16) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ex[16];
    std::snprintf(ex, sizeof ex, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    return out + ex;
  }
  if (exp10 < 0) return sign + "0." + std::string((size_t)(-exp10 - 1), '0') + digits;
  const size_t point = (size_t)exp10 + 1;
  if (digits.size() <= point) return sign + digits + std::string(point - digits.size(), '0') + ".0";
  return sign + digits.substr(0, point) + "." + digits.substr(point);
}

std::string string_repr(const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos, has_double = s.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (const char ch : s) {
    const auto c = (unsigned char)ch;
    if (ch == quote || ch == '\\') out += '\\', out += ch;
    else if (ch == '\n') out += "\\n";
    else if (ch == '\r') out += "\\r";
    else if (ch == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += ch;
    }
  }
  return out + quote;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = (unsigned char)ch;
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\u%04x", c);
          out += hex;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

void json_to(std::string& out, const Value& v, int indent, bool sort_keys, int depth) {
  const std::string item_sep = indent < 0 ? ", " : ",";
  auto newline = [&](int d) {
    if (indent >= 0) out += "\n" + std::string((size_t)(indent * d), ' ');
  };
  switch (v.kind) {
    case Value::Kind::none: out += "null"; return;
    case Value::Kind::boolean: out += v.b ? "true" : "false"; return;
    case Value::Kind::integer: out += std::to_string(v.i); return;
    case Value::Kind::floating:
      out += std::isnan(v.f) ? "NaN" : std::isinf(v.f) ? (v.f > 0 ? "Infinity" : "-Infinity") : float_repr(v.f);
      return;
    case Value::Kind::string: out += json_string(v.text); return;
    case Value::Kind::list: {
      if (v.list->empty()) { out += "[]"; return; }
      out += "[";
      for (size_t k = 0; k < v.list->size(); ++k) {
        if (k) out += item_sep;
        newline(depth + 1);
        json_to(out, (*v.list)[k], indent, sort_keys, depth + 1);
      }
      newline(depth);
      out += "]";
      return;
    }
    case Value::Kind::dict: {
      if (v.dict->empty()) { out += "{}"; return; }
      std::vector<const std::pair<std::string, Value>*> items;
      for (const auto& kv : *v.dict) items.push_back(&kv);
      if (sort_keys)
        std::stable_sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->first < b->first; });
      out += "{";
      for (size_t k = 0; k < items.size(); ++k) {
        if (k) out += item_sep;
        newline(depth + 1);
        out += json_string(items[k]->first) + ": ";
        json_to(out, items[k]->second, indent, sort_keys, depth + 1);
      }
      newline(depth);
      out += "}";
      return;
    }
    default: fail(format("Object of type {} is not JSON serializable", type_name(v)));
  }
}

}  // namespace

std::string py_repr(const Value& v) {
  if (v.is_string()) return string_repr(v.text);
  return py_str(v);
}

std::string py_str(const Value& v) {
  switch (v.kind) {
    case Value::Kind::undefined: return "";
    case Value::Kind::none: return "None";
    case Value::Kind::boolean: return v.b ? "True" : "False";
    case Value::Kind::integer: return std::to_string(v.i);
    case Value::Kind::floating: return float_repr(v.f);
    case Value::Kind::string: return v.text;
    case Value::Kind::list: {
      std::string out = v.is_tuple ? "(" : "[";
      for (size_t k = 0; k < v.list->size(); ++k) out += (k ? ", " : "") + py_repr((*v.list)[k]);
      if (v.is_tuple) return out + (v.list->size() == 1 ? ",)" : ")");
      return out + "]";
    }
    case Value::Kind::dict: {
      if (v.is_namespace) return "<Namespace>";
      std::string out = "{";
      for (size_t k = 0; k < v.dict->size(); ++k)
        out += (k ? ", " : "") + string_repr((*v.dict)[k].first) + ": " + py_repr((*v.dict)[k].second);
      return out + "}";
    }
    case Value::Kind::callable: return "<function>";
  }
  return "";
}

std::string py_json(const Value& v, int indent, bool sort_keys) {
  std::string out;
  json_to(out, v, indent, sort_keys, 0);
  return out;
}

}  // namespace llm0::chat
