// decoder_rules_from_json, post_template_from_json (see decoder.h). Field names and defaults
// follow the serde definitions of HF tokenizers src/decoders/*.rs and src/processors/template.rs.
#include "tokenizer/decoder.h"

#include "core/check.h"
#include "tokenizer/metaspace.h"

namespace llm0 {

namespace {

using nlohmann::json;

std::string type_of(const json& j, const std::string& path, const std::string& field) {
  LLM0_CHECK(j.is_object() && j.contains("type") && j["type"].is_string(),
             "{}: {} has no string field 'type'", path, field);
  return j["type"].get<std::string>();
}

std::string string_field(const json& j, const char* key, const std::string& path, const std::string& field) {
  LLM0_CHECK(j.contains(key) && j[key].is_string(), "{}: {} has no string field '{}'", path, field, key);
  return j[key].get<std::string>();
}

int count_field(const json& j, const char* key, const std::string& path, const std::string& field) {
  const json v = j.value(key, json(0));
  LLM0_CHECK(v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < (1 << 20),
             "{}: {}.{} is not a count", path, field, key);
  return static_cast<int>(v.get<int64_t>());
}

// One piece decoder of a Sequence; `fused` says whether Fuse came before.
void add_decoder(const json& j, const std::string& path, const std::string& field, bool& fused,
                 DecoderRules& out) {
  const std::string type = type_of(j, path, field);
  if (type == "Replace") {
    LLM0_CHECK(!fused, "{}: {} (Replace after Fuse) is not supported", path, field);
    const json& p = j.value("pattern", json(nullptr));
    LLM0_CHECK(p.is_object() && p.contains("String") && p["String"].is_string(),
               "{}: {}.pattern is not {\"String\": ...} (llm0 implements literal Replace only)", path, field);
    LLM0_CHECK(!out.byte_fallback, "{}: {} (Replace after ByteFallback) is not supported", path, field);
    out.replace.emplace_back(p["String"].get<std::string>(), string_field(j, "content", path, field));
  } else if (type == "Metaspace") {  // the first token's leading space: as the joined text's (a
    // token is never empty), so Strip(" ", start 1) after Fuse
    LLM0_CHECK(!fused && !out.byte_fallback, "{}: {} (Metaspace after ByteFallback or Fuse) is not supported", path, field);
    const MetaspaceFields m = metaspace_from_json(j, path, field);
    out.replace.emplace_back(m.replacement, " ");
    out.strip_content = " ";
    out.strip_start = m.scheme == PrependScheme::Never ? 0 : 1;
  } else if (type == "ByteFallback") {
    LLM0_CHECK(!fused, "{}: {} (ByteFallback after Fuse) is not supported", path, field);
    out.byte_fallback = true;
  } else if (type == "Fuse") {
    fused = true;
  } else if (type == "Strip") {
    LLM0_CHECK(fused, "{}: {} (Strip of every token, before Fuse) is not supported", path, field);
    out.strip_content = string_field(j, "content", path, field);
    LLM0_CHECK(out.strip_content.size() == 1, "{}: {}.content must be one ASCII character", path, field);
    out.strip_start = count_field(j, "start", path, field);
    out.strip_stop = count_field(j, "stop", path, field);
  } else {
    LLM0_FAIL("{}: {}.type \"{}\" is not supported (llm0 implements the decoders ByteLevel, and "
              "Replace, ByteFallback, Fuse, Strip, Metaspace in a Sequence)", path, field, type);
  }
}

void add_template(const json& j, const std::string& path, const std::string& field, PostTemplate& out) {
  const json& single = j.value("single", json(nullptr));
  LLM0_CHECK(single.is_array(), "{}: {}.single is not a list of template pieces", path, field);
  const json& specials = j.value("special_tokens", json::object());
  bool seen_text = false;
  for (size_t i = 0; i < single.size(); ++i) {
    const json& piece = single[i];
    const std::string where = field + ".single[" + std::to_string(i) + "]";
    if (piece.is_object() && piece.contains("Sequence")) {
      const json& seq = piece["Sequence"];
      LLM0_CHECK(!seen_text && seq.is_object() && seq.contains("id") && seq["id"].is_string() &&
                     seq["id"].get<std::string>() == "A",
                 "{}: {} must be the one sequence $A ({{\"Sequence\": {{\"id\": \"A\", ...}}}})",
                 path, where);
      seen_text = true;
      continue;
    }
    LLM0_CHECK(piece.is_object() && piece.contains("SpecialToken") && piece["SpecialToken"].contains("id") &&
                   piece["SpecialToken"]["id"].is_string(),
               "{}: {} is neither {\"Sequence\": ...} nor {\"SpecialToken\": ...}", path, where);
    const std::string name = piece["SpecialToken"]["id"].get<std::string>();
    LLM0_CHECK(specials.contains(name) && specials[name].contains("ids") && specials[name]["ids"].is_array(),
               "{}: {} names '{}', missing from {}.special_tokens", path, where, name, field);
    for (const json& id : specials[name]["ids"]) {
      LLM0_CHECK(id.is_number_integer() && id.get<int64_t>() >= 0 && id.get<int64_t>() < (1 << 24),
                 "{}: {}.special_tokens['{}'].ids holds a value that is not a token id", path, field, name);
      (seen_text ? out.suffix : out.prefix).push_back(static_cast<int>(id.get<int64_t>()));
    }
  }
  LLM0_CHECK(seen_text, "{}: {}.single has no $A", path, field);
}

}  // namespace

DecoderRules decoder_rules_from_json(const json& j, const std::string& path) {
  DecoderRules rules;
  if (j.is_null()) return rules;
  const std::string type = type_of(j, path, "decoder");
  if (type == "ByteLevel") return rules;
  rules.byte_level = false;
  bool fused = false;
  if (type != "Sequence") {
    add_decoder(j, path, "decoder", fused, rules);
    return rules;
  }
  LLM0_CHECK(j.contains("decoders") && j["decoders"].is_array(), "{}: decoder has no array field 'decoders'", path);
  for (size_t i = 0; i < j["decoders"].size(); ++i)
    add_decoder(j["decoders"][i], path, "decoder.decoders[" + std::to_string(i) + "]", fused, rules);
  return rules;
}

PostTemplate post_template_from_json(const json& j, const std::string& path) {
  PostTemplate out;
  if (j.is_null()) return out;
  const std::string type = type_of(j, path, "post_processor");
  if (type == "ByteLevel") return out;
  if (type == "TemplateProcessing") {
    add_template(j, path, "post_processor", out);
    return out;
  }
  LLM0_CHECK(type == "Sequence" && j.contains("processors") && j["processors"].is_array(),
             "{}: post_processor.type \"{}\" is not supported (llm0 implements ByteLevel, "
             "TemplateProcessing and a Sequence of them)", path, type);
  for (size_t i = 0; i < j["processors"].size(); ++i) {
    const PostTemplate t = post_template_from_json(j["processors"][i], path);
    out.prefix.insert(out.prefix.end(), t.prefix.begin(), t.prefix.end());
    out.suffix.insert(out.suffix.end(), t.suffix.begin(), t.suffix.end());
  }
  return out;
}

}  // namespace llm0
