// Attribute access and the str / dict methods chat templates call (jinja_builtins.h:
// get_attribute), with Python's semantics. Methods that change a value are refused, as Jinja2's
// ImmutableSandboxedEnvironment (which transformers renders with) refuses them.
#include "chat/jinja_builtins.h"
#include "chat/jinja_error.h"
#include "chat/jinja_python_text.h"
#include "chat/jinja_text.h"

namespace llm0::chat {

namespace {

const std::string* opt_string(const CallArgs& a, size_t pos, const char* key, const char* method) {
  const Value* v = argument(a, pos, key);
  if (!v || v->is_none()) return nullptr;
  if (!v->is_string()) fail(format("{}() argument must be str or None, not {}", method, type_name(*v)));
  return &v->text;
}

int64_t opt_int(const CallArgs& a, size_t pos, const char* key, int64_t fallback) {
  const Value* v = argument(a, pos, key);
  if (!v) return fallback;
  if (v->kind != Value::Kind::integer) fail(format("'{}' object cannot be interpreted as an integer", type_name(*v)));
  return v->i;
}

bool affix(const std::string& s, const CallArgs& a, bool start, const char* method) {
  const Value* p = argument(a, 0, "prefix");
  if (!p) fail(format("{}() takes at least 1 argument (0 given)", method));
  auto one = [&](const Value& x) {
    if (!x.is_string())
      fail(format("{} first arg must be str or a tuple of str, not {}", method, type_name(x)));
    return start ? s.compare(0, x.text.size(), x.text) == 0 && s.size() >= x.text.size()
                 : s.size() >= x.text.size() && s.compare(s.size() - x.text.size(), x.text.size(), x.text) == 0;
  };
  if (p->is_list()) {
    for (const Value& x : *p->list)
      if (one(x)) return true;
    return false;
  }
  return one(*p);
}

// str.split(sep=None, maxsplit=-1) and rsplit.
Value split(const std::string& s, const CallArgs& a, bool from_right) {
  const std::string* sep = opt_string(a, 0, "sep", from_right ? "rsplit" : "split");
  int64_t maxsplit = opt_int(a, 1, "maxsplit", -1);
  List parts;
  if (sep) {
    if (sep->empty()) fail("empty separator");
    std::vector<std::string> pieces;
    if (!from_right) {
      size_t at = 0;
      while (maxsplit != 0) {
        const size_t hit = s.find(*sep, at);
        if (hit == std::string::npos) break;
        pieces.push_back(s.substr(at, hit - at));
        at = hit + sep->size();
        --maxsplit;
      }
      pieces.push_back(s.substr(at));
    } else {
      size_t end = s.size();
      while (maxsplit != 0 && end >= sep->size()) {
        const size_t hit = s.rfind(*sep, end - sep->size());
        if (hit == std::string::npos) break;
        pieces.insert(pieces.begin(), s.substr(hit + sep->size(), end - hit - sep->size()));
        end = hit;
        --maxsplit;
      }
      pieces.insert(pieces.begin(), s.substr(0, end));
    }
    for (std::string& p : pieces) parts.push_back(Value::string(std::move(p)));
    return Value::make_list(parts);
  }
  if (from_right && maxsplit >= 0) fail("rsplit() with no separator and a maxsplit is not supported");
  // Runs of whitespace; none at the ends.
  const std::u32string cps = utf8_code_points(s);
  size_t k = 0;
  while (k < cps.size()) {
    while (k < cps.size() && is_py_space((uint32_t)cps[k])) ++k;
    if (k == cps.size()) break;
    size_t e = k;
    if (maxsplit == 0) {
      e = cps.size();
      while (e > k && is_py_space((uint32_t)cps[e - 1])) --e;
    } else {
      while (e < cps.size() && !is_py_space((uint32_t)cps[e])) ++e;
      --maxsplit;
    }
    parts.push_back(Value::string(utf8_text(std::u32string_view(cps).substr(k, e - k))));
    k = e;
  }
  return Value::make_list(parts);
}

std::string title_case(const std::string& s, bool only_first) {
  std::u32string cps = utf8_code_points(s);
  bool prev_cased = false;
  for (size_t k = 0; k < cps.size(); ++k) {
    const std::string one = utf8_text(std::u32string(1, cps[k]));
    const bool upper_first = only_first ? k == 0 : !prev_cased;
    const std::string mapped = upper_first ? py_upper(one) : py_lower(one);
    const char32_t c = utf8_code_points(mapped)[0];
    prev_cased = py_upper(one) != py_lower(one);
    cps[k] = c;
  }
  return utf8_text(cps);
}

Value str_method(const std::string& s, const std::string& name, const CallArgs& a) {
  if (name == "startswith") return Value::boolean(affix(s, a, true, "startswith"));
  if (name == "endswith") return Value::boolean(affix(s, a, false, "endswith"));
  if (name == "split" || name == "rsplit") return split(s, a, name == "rsplit");
  if (name == "strip" || name == "lstrip" || name == "rstrip")
    return Value::string(py_strip(s, opt_string(a, 0, "chars", name.c_str()), name != "rstrip", name != "lstrip"));
  if (name == "upper") return Value::string(py_upper(s));
  if (name == "lower") return Value::string(py_lower(s));
  if (name == "title") return Value::string(title_case(s, false));
  if (name == "capitalize") return Value::string(title_case(py_lower(s), true));
  if (name == "replace") {
    const Value* o = argument(a, 0, "old");
    const Value* n = argument(a, 1, "new");
    if (!o || !n || !o->is_string() || !n->is_string()) fail("replace() takes two str arguments");
    return apply_filter("replace", Value::string(s), a);
  }
  if (name == "find" || name == "count") {
    const std::string* sub = opt_string(a, 0, "sub", name.c_str());
    if (!sub || argument(a, 1, "start")) fail(format("{}() with other than one str argument is not supported", name));
    if (name == "find") {
      const size_t at = s.find(*sub);
      return Value::integer(at == std::string::npos ? -1 : (int64_t)utf8_code_points(s.substr(0, at)).size());
    }
    if (sub->empty()) return Value::integer((int64_t)utf8_code_points(s).size() + 1);
    int64_t n = 0;
    for (size_t at = s.find(*sub); at != std::string::npos; at = s.find(*sub, at + sub->size())) ++n;
    return Value::integer(n);
  }
  if (name == "join") {
    const Value* items = argument(a, 0, "iterable");
    if (!items) fail("join() takes exactly one argument (0 given)");
    std::string out;
    bool first = true;
    for (const Value& v : iterate(*items)) {
      if (!v.is_string()) fail(format("sequence item: expected str instance, {} found", type_name(v)));
      out += (first ? "" : s) + v.text;
      first = false;
    }
    return Value::string(out);
  }
  fail(format("the method 'str.{}' is not supported", name));
}

Value dict_method(const Value& d, const std::string& name, const CallArgs& a) {
  if (name == "items") {
    List out;
    for (const auto& [k, v] : *d.dict) {
      out.push_back(Value::make_list({Value::string(k), v}));
      out.back().is_tuple = true;
    }
    return Value::make_list(out);
  }
  if (name == "keys") return Value::make_list(iterate(d));
  if (name == "values") {
    List out;
    for (const auto& kv : *d.dict) out.push_back(kv.second);
    return Value::make_list(out);
  }
  // get
  const Value* key = argument(a, 0, "key");
  if (!key) fail("get expected at least 1 argument, got 0");
  if (key->is_string())
    if (const Value* v = d.find(key->text)) return *v;
  const Value* fallback = argument(a, 1, "default");
  return fallback ? *fallback : Value::none();
}

bool one_of(const std::string& name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

}  // namespace


Value get_attribute(const Value& obj, const std::string& name) {
  if (obj.is_undefined()) fail_undefined(obj);
  if (obj.is_string()) {
    const std::string s = obj.text;
    if (one_of(name, {"startswith", "endswith", "split", "rsplit", "strip", "lstrip", "rstrip", "upper", "lower",
                      "title", "capitalize", "replace", "find", "count", "join"}))
      return Value::callable([s, name](const CallArgs& a) { return str_method(s, name, a); });
    if (one_of(name, {"format", "format_map", "center", "ljust", "rjust", "zfill", "partition", "rpartition",
                      "splitlines", "index", "rindex", "rfind", "isdigit", "isalpha", "isalnum", "isspace",
                      "islower", "isupper", "isnumeric", "isdecimal", "istitle", "swapcase", "casefold",
                      "encode", "expandtabs", "removeprefix", "removesuffix", "translate"}))
      fail(format("the method 'str.{}' is not supported", name));
    return Value::undefined(format("'str object' has no attribute '{}'", name));
  }
  if (obj.is_dict() && !obj.is_namespace) {
    if (one_of(name, {"items", "keys", "values", "get"}))
      return Value::callable([obj, name](const CallArgs& a) { return dict_method(obj, name, a); });
    if (one_of(name, {"pop", "popitem", "update", "clear", "setdefault", "copy", "fromkeys"}))
      fail(format("the method 'dict.{}' is not supported (a chat template may not change a value)", name));
  }
  if (obj.is_dict()) {
    if (const Value* v = obj.find(name)) return *v;
    return Value::undefined(format("'{} object' has no attribute '{}'", type_name(obj), name));
  }
  if (obj.is_list() && one_of(name, {"append", "extend", "pop", "insert", "remove", "clear", "sort", "reverse",
                                     "copy", "count", "index"}))
    fail(format("the method 'list.{}' is not supported (a chat template may not change a value)", name));
  return Value::undefined(format("'{} object' has no attribute '{}'", type_name(obj), name));
}


}  // namespace llm0::chat
