// text_rules_from_json (see text_rules.h). Field meanings and defaults follow the serde
// definitions of HF tokenizers: src/normalizers/{mod,unicode}.rs, src/pre_tokenizers/
// {mod,sequence,split,byte_level,digits,metaspace}.rs, src/normalizers/{prepend,replace}.rs;
// decoders and post-processors: decoder.h.
#include "tokenizer/text_rules.h"

#include "core/check.h"
#include "tokenizer/metaspace.h"
#include "tokenizer/pretokenize.h"

namespace llm0 {

namespace {

using nlohmann::json;

// j[key] as a bool, `fallback` when absent or null.
bool get_bool(const json& j, const char* key, bool fallback, const std::string& path,
              const std::string& field) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  LLM0_CHECK(j[key].is_boolean(), "{}: {}.{} is not true or false", path, field, key);
  return j[key].get<bool>();
}

// The "type" of component `field`, checked to be a string.
std::string type_of(const json& j, const std::string& path, const std::string& field) {
  LLM0_CHECK(j.is_object() && j.contains("type") && j["type"].is_string(),
             "{}: {} has no string field 'type'", path, field);
  return j["type"].get<std::string>();
}

void add_normalizer(const json& j, const std::string& path, const std::string& field,
                    std::vector<NormalizerStep>& out) {
  if (j.is_null()) return;
  const std::string type = type_of(j, path, field);
  NormalizerStep step;
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    step.form = type == "NFC" ? UnicodeForm::NFC : type == "NFD" ? UnicodeForm::NFD
              : type == "NFKC" ? UnicodeForm::NFKC : UnicodeForm::NFKD;
  } else if (type == "Prepend") {
    step.kind = NormalizerStep::Kind::Prepend;
    LLM0_CHECK(j.contains("prepend") && j["prepend"].is_string(), "{}: {} has no string field 'prepend'", path, field);
    step.content = j["prepend"].get<std::string>();
  } else if (type == "Replace") {
    step.kind = NormalizerStep::Kind::Replace;
    const json& p = j.value("pattern", json(nullptr));
    LLM0_CHECK(p.is_object() && p.contains("String") && p["String"].is_string(),
               "{}: {}.pattern is not {\"String\": ...} (llm0 implements literal Replace only)", path, field);
    LLM0_CHECK(j.contains("content") && j["content"].is_string(), "{}: {} has no string field 'content'", path, field);
    step.pattern = p["String"].get<std::string>();
    step.content = j["content"].get<std::string>();
  } else if (type == "Sequence" && j.contains("normalizers") && j["normalizers"].is_array()) {
    for (size_t i = 0; i < j["normalizers"].size(); ++i)
      add_normalizer(j["normalizers"][i], path, field + ".normalizers[" + std::to_string(i) + "]", out);
    return;
  } else {
    LLM0_FAIL("{}: {}.type \"{}\" is not supported (llm0 implements the normalizers NFC, NFD, NFKC, "
              "NFKD, Prepend, Replace and Sequence)", path, field, type);
  }
  out.push_back(std::move(step));
}

// Metaspace (metaspace.rs): replacement, prepend_scheme (or the older add_prefix_space), split.
void add_metaspace(const json& j, const std::string& path, const std::string& field, PreTokenizer& out) {
  const MetaspaceFields m = metaspace_from_json(j, path, field);
  out.add_metaspace(m.replacement, m.scheme, get_bool(j, "split", true, path, field));
}

SplitBehavior behavior_of(const json& j, const std::string& path, const std::string& field) {
  LLM0_CHECK(j.contains("behavior") && j["behavior"].is_string(),
             "{}: {} has no string field 'behavior'", path, field);
  const std::string b = j["behavior"].get<std::string>();
  if (b == "Removed") return SplitBehavior::Removed;
  if (b == "Isolated") return SplitBehavior::Isolated;
  if (b == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (b == "MergedWithNext") return SplitBehavior::MergedWithNext;
  LLM0_CHECK(b == "Contiguous", "{}: {}.behavior \"{}\" is not one of Removed, Isolated, "
             "MergedWithPrevious, MergedWithNext, Contiguous", path, field, b);
  return SplitBehavior::Contiguous;
}

void add_split(const json& j, const std::string& path, const std::string& field, PreTokenizer& out) {
  const json* pattern = j.contains("pattern") ? &j["pattern"] : nullptr;
  const bool regex = pattern && pattern->is_object() && pattern->contains("Regex") && (*pattern)["Regex"].is_string();
  const bool text = pattern && pattern->is_object() && pattern->contains("String") && (*pattern)["String"].is_string();
  LLM0_CHECK(regex != text, "{}: {}.pattern is neither {\"Regex\": ...} nor {\"String\": ...}", path, field);
  const std::string p = (*pattern)[regex ? "Regex" : "String"].get<std::string>();
  out.add_split(p, !regex, behavior_of(j, path, field), get_bool(j, "invert", false, path, field),
                path + ": " + field + ".pattern");
}

void add_pre_tokenizer(const json& j, const std::string& path, const std::string& field,
                       PreTokenizer& out) {
  const std::string type = type_of(j, path, field);
  if (type == "Sequence") {
    LLM0_CHECK(j.contains("pretokenizers") && j["pretokenizers"].is_array(),
               "{}: {} has no array field 'pretokenizers'", path, field);
    for (size_t i = 0; i < j["pretokenizers"].size(); ++i)
      add_pre_tokenizer(j["pretokenizers"][i], path, field + ".pretokenizers[" + std::to_string(i) + "]", out);
  } else if (type == "Split") {
    add_split(j, path, field, out);
  } else if (type == "ByteLevel") {  // ByteLevel::default(): add_prefix_space and use_regex true
    out.add_byte_level(get_bool(j, "add_prefix_space", true, path, field),
                       get_bool(j, "use_regex", true, path, field));
  } else if (type == "Digits") {
    out.add_digits(get_bool(j, "individual_digits", false, path, field));
  } else if (type == "Metaspace") {
    add_metaspace(j, path, field, out);
  } else {
    LLM0_FAIL("{}: {}.type \"{}\" is not supported (llm0 implements the pre-tokenizers Sequence, "
              "Split, ByteLevel, Digits and Metaspace)", path, field, type);
  }
}

// True for the pre_tokenizer Tokenizer::save writes for llm0's own rules.
bool is_llm0_pre_tokenizer(const json& p) {
  const json split = {{"type", "Split"}, {"pattern", {{"Regex", pretokenize_regex()}}},
                      {"behavior", "Isolated"}, {"invert", false}};
  // json defaults in value(): a field of another type compares unequal instead of throwing
  if (!p.is_object() || p.value("type", json()) != json("Sequence") || !p.contains("pretokenizers"))
    return false;
  const json& seq = p["pretokenizers"];
  if (!seq.is_array() || seq.size() != 2 || seq[0] != split) return false;
  const json& bl = seq[1];
  return bl.is_object() && bl.value("type", json()) == json("ByteLevel") &&
         bl.value("add_prefix_space", json(true)) == json(false) &&
         bl.value("use_regex", json(true)) == json(false);
}

}  // namespace

TextRules text_rules_from_json(const json& j, const std::string& path) {
  TextRules rules;
  rules.normalizer_json = j.value("normalizer", json(nullptr));
  rules.pre_tokenizer_json = j.value("pre_tokenizer", json(nullptr));
  add_normalizer(rules.normalizer_json, path, "normalizer", rules.normalizers);
  rules.decoder = decoder_rules_from_json(j.value("decoder", json(nullptr)), path);
  rules.post = post_template_from_json(j.value("post_processor", json(nullptr)), path);
  rules.native = rules.normalizers.empty() && rules.decoder.byte_level && is_llm0_pre_tokenizer(rules.pre_tokenizer_json);
  if (rules.native) return rules;
  auto pre = std::make_shared<PreTokenizer>();
  if (!rules.pre_tokenizer_json.is_null())
    add_pre_tokenizer(rules.pre_tokenizer_json, path, "pre_tokenizer", *pre);
  rules.pre_tokenizer = std::move(pre);
  return rules;
}

}  // namespace llm0
