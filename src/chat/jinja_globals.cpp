// The globals of a chat template (jinja_builtins.h: template_globals): Jinja2's namespace, range
// and dict, and what transformers adds (raise_exception, strftime_now).
#include "chat/jinja_builtins.h"
#include "chat/jinja_error.h"
#include "chat/jinja_python_text.h"

namespace llm0::chat {

namespace {

Value keyword_dict(const CallArgs& a, const char* fn) {
  Dict d;
  for (const Value& p : a.positional) {  // namespace({...}) / dict({...}): a mapping first
    if (!p.is_dict()) fail(format("{}() takes a mapping or keyword arguments, not {}", fn, type_name(p)));
    d.insert(d.end(), p.dict->begin(), p.dict->end());
  }
  Value v = Value::make_dict(std::move(d));
  for (const auto& [k, x] : a.keyword) v.set(k, x);
  return v;
}

Value range(const CallArgs& a) {
  if (!a.keyword.empty() || a.positional.empty() || a.positional.size() > 3)
    fail("range() takes 1 to 3 integer arguments");
  for (const Value& p : a.positional)
    if (p.kind != Value::Kind::integer) fail(format("'{}' object cannot be interpreted as an integer", type_name(p)));
  const int64_t start = a.positional.size() > 1 ? a.positional[0].i : 0;
  const int64_t stop = a.positional.size() > 1 ? a.positional[1].i : a.positional[0].i;
  const int64_t step = a.positional.size() > 2 ? a.positional[2].i : 1;
  if (step == 0) fail("range() arg 3 must not be zero");
  // Jinja2's sandbox caps a range at MAX_RANGE = 100000 items.
  if ((step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step) > 100000)
    fail("range too big, maximum size for range is 100000");
  List out;
  for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) out.push_back(Value::integer(k));
  return Value::make_list(out);
}

}  // namespace

Dict template_globals(const Clock& clock) {
  Dict g;
  g.emplace_back("namespace", Value::callable([](const CallArgs& a) {
                   Value ns = keyword_dict(a, "namespace");
                   ns.is_namespace = true;
                   return ns;
                 }));
  g.emplace_back("dict", Value::callable([](const CallArgs& a) { return keyword_dict(a, "dict"); }));
  g.emplace_back("range", Value::callable(range));
  g.emplace_back("raise_exception", Value::callable([](const CallArgs& a) -> Value {
                   const Value* m = argument(a, 0, "message");
                   fail("the template refused the conversation: " + (m ? py_str(*m) : std::string()));
                 }));
  g.emplace_back("strftime_now", Value::callable([clock](const CallArgs& a) {
                   const Value* f = argument(a, 0, "format");
                   if (!f || !f->is_string()) fail("strftime_now() takes a format string");
                   const std::tm now = clock();
                   char buf[256];
                   const size_t n = std::strftime(buf, sizeof buf, f->text.c_str(), &now);
                   return Value::string(std::string(buf, n));
                 }));
  for (const char* name : {"cycler", "joiner", "lipsum"}) {
    const std::string n = name;
    g.emplace_back(n, Value::callable([n](const CallArgs&) -> Value {
                     fail(format("the function '{}' is not supported", n));
                   }));
  }
  return g;
}

}  // namespace llm0::chat
