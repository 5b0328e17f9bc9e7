// metaspace_from_json (see metaspace.h); serde names and defaults of HF metaspace.rs.
#include "tokenizer/metaspace.h"

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/json_parse.h"

namespace llm0 {

MetaspaceFields metaspace_from_json(const nlohmann::json& j, const std::string& path, const std::string& field) {
  LLM0_CHECK(j.contains("replacement") && j["replacement"].is_string() && !j["replacement"].get<std::string>().empty(),
             "{}: {} has no string field 'replacement'", path, field);
  MetaspaceFields m;
  m.replacement = j["replacement"].get<std::string>();
  if (j.contains("add_prefix_space") && !j["add_prefix_space"].is_null()) {
    LLM0_CHECK(j["add_prefix_space"].is_boolean(), "{}: {}.add_prefix_space is not true or false", path, field);
    m.scheme = j["add_prefix_space"].get<bool>() ? PrependScheme::Always : PrependScheme::Never;
  }
  if (j.contains("prepend_scheme") && !j["prepend_scheme"].is_null()) {
    const nlohmann::json& p = j["prepend_scheme"];
    LLM0_CHECK(p == "always" || p == "first" || p == "never", "{}: {}.prepend_scheme {} is not \"always\", "
               "\"first\" or \"never\"", path, field, json_excerpt(p));
    m.scheme = p == "always" ? PrependScheme::Always : p == "first" ? PrependScheme::First : PrependScheme::Never;
  }
  return m;
}

}  // namespace llm0
