// Fuzz harness: the BPE encoder and decoder (tokenizer/tokenizer.h) on arbitrary bytes, with four
// tokenizers sharing one vocabulary trained here on the project's files: llm0's own pre-tokenizer,
// and tokenizer.json pre-tokenizers as the real files write them (GPT-2 ByteLevel; Llama-3 and
// Qwen2 Split patterns + ByteLevel, Qwen2 with its NFC normalizer). The first input byte picks
// the tokenizer and the mode. Encode: ids in [0, V); decode(encode(x)) == x for every byte string
// without a normalizer, == NFC(x) (utf8proc) for valid UTF-8 under NFC, and encoding that again
// gives the same ids. Decode of arbitrary ids: an llm0::Error exactly when some id is outside
// [0, V), else the concatenation of token_bytes.
#include <utf8proc.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/check.h"
#include "fuzz_util.h"
#include "tokenizer/tokenizer.h"

using namespace llm0;
using nlohmann::json;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json byte_level(bool use_regex) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true},
          {"use_regex", use_regex}};
}

struct Variant {
  std::unique_ptr<Tokenizer> tok;
  bool nfc = false;
};

// The trained tokenizer saved, its pre_tokenizer / normalizer replaced, and loaded again.
Variant with_rules(const std::string& saved, const json& pre, bool nfc) {
  static const fuzz::ScratchFile file("variant.json");
  json j = json::parse(saved);
  j["pre_tokenizer"] = pre;
  j["normalizer"] = nfc ? json{{"type", "NFC"}} : json(nullptr);
  file.write(j.dump());
  return {std::make_unique<Tokenizer>(Tokenizer::load(file.path())), nfc};
}

std::vector<Variant> make_variants() {
  const std::string src = LLM0_SOURCE_DIR;
  const json goldens = json::parse(read_text(src + "/tests/data/pretokenize_goldens.json"));
  std::vector<std::string> docs = {read_text(src + "/data/teaching-world.json"),
                                   read_text(src + "/configs/lesson-tiny.json")};
  for (const json& c : goldens["cases"]) docs.push_back(c["text"].get<std::string>());
  std::vector<Variant> v;
  v.push_back({std::make_unique<Tokenizer>(Tokenizer::train(docs, 600)), false});
  static const fuzz::ScratchFile file("trained.json");
  v[0].tok->save(file.path());
  const std::string saved = read_text(file.path());
  auto split = [&](const char* name) {
    return json{{"type", "Sequence"},
                {"pretokenizers",
                 {{{"type", "Split"}, {"pattern", {{"Regex", goldens["patterns"][name]}}},
                   {"behavior", "Isolated"}, {"invert", false}},
                  byte_level(false)}}};
  };
  v.push_back(with_rules(saved, byte_level(true), false));
  v.push_back(with_rules(saved, split("llama3"), false));
  v.push_back(with_rules(saved, split("qwen2"), true));
  return v;
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    utf8proc_int32_t cp;
    const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data()) + i,
                                    static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    if (n <= 0 || cp < 0) return false;
    i += static_cast<size_t>(n);
  }
  return true;
}

std::string nfc(std::string_view s) {
  const std::string z(s);
  utf8proc_uint8_t* out = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(z.data()),
                              static_cast<utf8proc_ssize_t>(z.size()), &out,
                              static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  FUZZ_ASSERT(n >= 0, "utf8proc normalizes valid UTF-8");
  std::string r(reinterpret_cast<char*>(out), static_cast<size_t>(n));
  std::free(out);
  return r;
}

void check_encode(const Variant& v, std::string_view text) {
  const Tokenizer& tok = *v.tok;
  const std::vector<int> ids = tok.encode(text);
  for (int id : ids) FUZZ_ASSERT(id >= 0 && id < tok.vocab_size(), "ids in [0, V)");
  const std::string back = tok.decode(ids);
  if (!v.nfc) {
    FUZZ_ASSERT(back == text, "decode(encode(x)) == x");
  } else if (valid_utf8(text)) {
    FUZZ_ASSERT(back == nfc(text), "decode(encode(x)) == NFC(x)");
    FUZZ_ASSERT(tok.encode(back) == ids, "encoding the normalized text again gives the same ids");
  }
}

void check_decode(const Tokenizer& tok, fuzz::Reader in) {
  std::vector<int> ids;
  bool in_range = true;
  std::string expected;
  while (in.left() >= 2) {
    const int id = static_cast<int>(in.take<uint16_t>()) - 4;  // a few ids below 0 and above V
    ids.push_back(id);
    in_range = in_range && id >= 0 && id < tok.vocab_size();
    if (in_range) expected += tok.token_bytes(id);
  }
  try {
    FUZZ_ASSERT(tok.decode(ids) == expected, "decode = concatenated token bytes");
    FUZZ_ASSERT(in_range, "out-of-range ids are refused");
  } catch (const Error&) {
    FUZZ_ASSERT(!in_range, "in-range ids decode");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Variant> variants = make_variants();
  if (size == 0) return 0;
  const Variant& v = variants[data[0] % variants.size()];
  fuzz::Reader in(data + 1, size - 1);
  if (data[0] & 0x80)
    check_decode(*v.tok, in);
  else
    check_encode(v, in.rest());
  return 0;
}
