// Untrusted JSON has one nesting limit everywhere (core/json_parse.h, kMaxJsonDepth; issue 43,
// F1-F5): for every entry point that reads JSON from outside — config.json, tokenizer.json,
// trainer_state.json, metrics.jsonl, a corpus .jsonl, a safetensors header, the tokenizer JSON
// inside a GGUF, explore's POST /explore/api/kv and serve's request bodies — nesting at the limit
// is parsed and one level past it is refused with a message naming the source, the limit and the
// byte where it was crossed; messages quoting a value stay short however deep it is; and the CLI
// exits 1 with that message on a file nested 100,000 deep (it crashed with SIGSEGV before).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "config/config.h"
#include "core/json_parse.h"
#include "core/shipped_file.h"
#include "error_message.h"
#include "explore/explore_api.h"
#include "explore_fixtures.h"
#include "io/gguf/import_hf_json.h"
#include "io/gguf/metadata.h"
#include "io/safetensors.h"
#include "ledger/kv_ledger.h"
#include "serve/openai_protocol.h"
#include "test_util.h"
#include "tokenizer/tokenizer.h"
#include "train/corpus.h"
#include "train/metrics_log.h"
#include "train/train_state.h"

namespace llm0 {
namespace {

using nlohmann::json;
using serve::ApiError;
using serve::Endpoint;
using serve::parse_request;
using testing_fixtures::error_of;
constexpr int L = kMaxJsonDepth;

// `depth` nested arrays around 1 ("[[1]]" for 2).
std::string arrays(int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

// `depth` nested objects {"a": ...} around 1.
std::string objects(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += "{\"a\": ";
  return s + "1" + std::string(depth, '}');
}

// The JSON object text `object` with `"field": value` added last.
std::string with_field(const std::string& object, const std::string& field, const std::string& value) {
  const size_t close = object.rfind('}');
  return object.substr(0, close) + ", \"" + field + "\": " + value + "}";
}

// The byte where `text` opens its (L+1)-th level, when its deepest value is the `value` text
// appended by with_field inside `outer` levels: the value's (L + 1 - outer)-th '[' or '{'.
size_t byte_past_limit(const std::string& text, const std::string& value, int outer) {
  size_t at = text.rfind(value);
  for (int opened = 0;; ++at)
    if ((text[at] == '[' || text[at] == '{') && ++opened == L + 1 - outer) return at;
}

std::string small_config() { return json::parse(std::ifstream(shipped_file("configs/llm0-small.json"))).dump(); }

std::string write(const std::string& name, const std::string& text) {
  const std::string path = test::fresh_temp_path("json_depth", name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Says the limit was crossed at `byte` of `source`.
void expect_too_deep(const std::string& message, const std::string& source, size_t byte) {
  EXPECT_NE(message.find(source + ": JSON nested deeper than 128 levels at byte " + std::to_string(byte)),
            std::string::npos) << message;
}

TEST(JsonDepth, TheParserTakesTheLimitAndRefusesOneLevelMoreWhereItOpens) {
  EXPECT_EQ(parse_json(arrays(L), "request body").dump(), arrays(L));
  EXPECT_EQ(parse_json<nlohmann::ordered_json>(objects(L), "x").dump().size(), objects(L).size() - L);
  try {
    parse_json("{\"ok\": [1], \"deep\": " + arrays(L) + "}", "request body");
    ADD_FAILURE() << "accepted";
  } catch (const JsonTooDeep& e) {
    const size_t at = 20 + L - 1;  // the value starts at byte 20, inside the outer object
    EXPECT_EQ(e.byte, at);
    EXPECT_EQ(e.field, "deep");
    EXPECT_EQ(std::string(e.what()), "request body: JSON nested deeper than 128 levels at byte " +
                                         std::to_string(at) + " (in field \"deep\")");
  }
  // Brackets inside strings (escaped quotes too) are text, not nesting.
  const std::string in_string = "[\"\\\"" + std::string(1000, '[') + "\"]";
  EXPECT_EQ(parse_json(in_string, "x")[0].get<std::string>(), "\"" + std::string(1000, '['));
  // Not JSON: the syntax error as before, named.
  EXPECT_EQ(error_of([] { parse_json("{\"a\": ", "request body"); }),
            "request body: not valid JSON (syntax error at byte 7)");
  // A long key is named cut to 64 bytes.
  const std::string key(1000, 'k');
  const JsonDepthScan s = scan_json_depth("{\"" + key + "\": " + arrays(L) + "}");
  EXPECT_EQ(s.field, key.substr(0, 64));
}

TEST(JsonDepth, ConfigFilesThroughEveryReader) {
  const std::string at = with_field(small_config(), "deep", arrays(L - 1));
  const std::string past = with_field(small_config(), "deep", arrays(L));
  const std::string ok = write("config_at.json", at), bad = write("config_past.json", past);
  EXPECT_EQ(ModelConfig::from_file(ok).hidden_size, json::parse(small_config())["hidden_size"].get<int>());
  EXPECT_GT(kv_ledger_from_file(ok, {}).kv_bytes_per_token, 0);
  const size_t byte = byte_past_limit(past, arrays(L), 1);
  expect_too_deep(error_of([&] { ModelConfig::from_file(bad); }), "config file " + bad, byte);
  expect_too_deep(error_of([&] { kv_ledger_from_file(bad, {}); }), "config file " + bad, byte);
  // A deep value a reader refuses is quoted short: rope_scaling at the limit (F2).
  const std::string rope = with_field(small_config(), "rope_scaling", objects(L - 1));
  const std::string m = error_of([&] { ModelConfig::from_file(write("rope.json", rope)); });
  EXPECT_NE(m.find("rope_scaling={\"a\":{\"a\":"), std::string::npos) << m;  // compact dump, cut
  EXPECT_NE(m.find("{\"a\":... is not supported"), std::string::npos) << m;
  EXPECT_LT(m.size(), 400u) << m;
}

TEST(JsonDepth, TokenizerJson) {
  const std::string path = test::fresh_temp_path("json_depth", "tokenizer.json");
  Tokenizer::train({"the cat sat on the mat", "hello world"}, 270).save(path);
  const std::string text = testing_fixtures::read_file(path);
  EXPECT_EQ(Tokenizer::load(write("tok_at.json", with_field(text, "deep", arrays(L - 1)))).vocab_size(),
            Tokenizer::load(path).vocab_size());
  const std::string past = with_field(text, "deep", arrays(L));
  const std::string bad = write("tok_past.json", past);
  expect_too_deep(error_of([&] { Tokenizer::load(bad); }), "tokenizer file " + bad,
                  byte_past_limit(past, arrays(L), 1));
  // F5: model.type nested; at the limit it is refused as a type, quoted short.
  json j = json::parse(text);
  j["model"]["type"] = json::parse(arrays(L - 2));
  const std::string m = error_of([&] { Tokenizer::load(write("tok_type.json", j.dump())); });
  EXPECT_NE(m.find("model.type is [[[["), std::string::npos) << m;
  EXPECT_LT(m.size(), 400u) << m;
}

TEST(JsonDepth, TrainerStateMetricsAndCorpus) {
  const std::string state = R"({"step": 1, "total_steps": 2, "loader_rng": "5", "seed": "7", "batch_size": 1,
    "seq_len": 8, "grad_accum": 1, "tokens_seen": 8})";
  const std::string dir = test::fresh_temp_path("json_depth", "ckpt");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/trainer_state.json") << with_field(state, "deep", arrays(L - 1));
  EXPECT_EQ(read_train_state(dir).total_steps, 2);
  const std::string past = with_field(state, "deep", arrays(L));
  std::ofstream(dir + "/trainer_state.json") << past;
  const std::string m = error_of([&] { read_train_state(dir); });
  EXPECT_NE(m.find("cannot resume: " + dir + "/trainer_state.json is corrupt"), std::string::npos) << m;
  expect_too_deep(m, "trainer_state.json", byte_past_limit(past, arrays(L), 1));

  // metrics.jsonl: a line past the limit is not a record (dropped like a line cut short).
  const std::string at_line = R"({"step": 1, "deep": )" + arrays(L - 1) + "}";
  const std::string past_line = R"({"step": 2, "deep": )" + arrays(L) + "}";
  EXPECT_EQ(parse_metrics_line(at_line)["step"], 1);
  EXPECT_TRUE(parse_metrics_line(past_line).is_discarded());
  const std::string metrics = write("metrics.jsonl", at_line + "\n" + past_line + "\n{\"step\": 3}\n");
  drop_metrics_after(metrics, 5);
  EXPECT_EQ(testing_fixtures::read_file(metrics), at_line + "\n{\"step\": 3}\n");

  // A corpus .jsonl: refused naming the file and line.
  EXPECT_EQ(read_documents(write("at.jsonl", with_field(R"({"text": "hi"})", "deep", arrays(L - 1)))),
            std::vector<std::string>{"hi"});
  const std::string corpus_past = with_field(R"({"text": "hi"})", "deep", arrays(L));
  const std::string corpus = write("past.jsonl", "{\"text\": \"a\"}\n" + corpus_past + "\n");
  expect_too_deep(error_of([&] { read_documents(corpus); }), corpus + ":2",
                  byte_past_limit(corpus_past, arrays(L), 1));
}

// A safetensors file whose header is `header` (no tensor data).
std::string safetensors_with_header(const std::string& name, const std::string& header) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = char((header.size() >> (8 * i)) & 0xFF);
  return write(name, bytes + header);
}

TEST(JsonDepth, SafetensorsHeaderAndGgufTokenizerJson) {
  const std::string at = "{\"__metadata__\": {\"deep\": \"x\"}, \"deep\": " + arrays(L - 1) + "}";
  const std::string past = "{\"__metadata__\": {\"deep\": \"x\"}, \"deep\": " + arrays(L) + "}";
  // at the limit the header parses; the entry "deep" is then refused as a tensor, not for depth
  const std::string m = error_of([&] { read_safetensors(safetensors_with_header("at.safetensors", at)); });
  EXPECT_EQ(m.find("nested deeper"), std::string::npos) << m;
  EXPECT_NE(m.find("deep"), std::string::npos) << m;
  const std::string bad = safetensors_with_header("past.safetensors", past);
  expect_too_deep(error_of([&] { read_safetensors(bad); }), "safetensors '" + bad + "': header",
                  byte_past_limit(past, arrays(L), 1));

  // The tokenizer JSON stored in a GGUF (tokenizer.huggingface.json), as `convert --from gguf` reads it.
  const std::string tok = R"({"model": {"vocab": {"a": 0, "b": 1}}})";
  const auto hf_json = [](const std::string& text) {
    GgufFile f;
    f.metadata.emplace_back("tokenizer.huggingface.json", GgufValue::of_string(text));
    return gguf_hf_tokenizer_json(GgufMeta{f, "m.gguf"}, {"a", "b"});
  };
  EXPECT_EQ(hf_json(with_field(tok, "deep", arrays(L - 1)))->at("model").at("vocab").size(), 2u);
  const std::string gguf_past = with_field(tok, "deep", arrays(L));
  expect_too_deep(error_of([&] { hf_json(gguf_past); }), "m.gguf: GGUF key tokenizer.huggingface.json",
                  byte_past_limit(gguf_past, arrays(L), 1));
}

TEST(JsonDepth, RequestBodiesOfExploreAndServe) {
  explore::ExploreApi api({"", "en"});
  explore::ApiRequest post = testing_fixtures::api_get("kv", {{"measure", "true"}});
  post.method = "POST", post.body = with_field(small_config(), "deep", arrays(L - 1));
  EXPECT_EQ(api.handle(post).status, 200) << api.handle(post).body.dump().substr(0, 300);
  post.body = with_field(small_config(), "deep", arrays(L));
  const explore::ApiResponse a = api.handle(post);
  EXPECT_EQ(a.status, 400);
  EXPECT_EQ(a.body["error"]["code"], "bad_json");
  EXPECT_EQ(a.body["error"]["field"], "deep");
  expect_too_deep(a.body["error"]["message"].get<std::string>(), "the pasted config.json",
                  byte_past_limit(post.body, arrays(L), 1));

  // serve: at the limit the body parses (then "prompt" is refused as a type); past it, invalid_json.
  const auto refusal = [](const std::string& body) {
    try {
      parse_request(body, Endpoint::completions);
    } catch (const ApiError& e) {
      return e;
    }
    return ApiError(0, "accepted");
  };
  EXPECT_EQ(refusal("{\"prompt\": " + arrays(L - 1) + "}").code, "invalid_type");
  const std::string body = "{\"prompt\": " + arrays(L) + "}";
  const ApiError e = refusal(body);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "invalid_json");
  EXPECT_EQ(e.param, "prompt");
  expect_too_deep(e.what(), "the request body", byte_past_limit(body, arrays(L), 1));
}

// Long strings from outside are quoted cut too (the hostile rerun: a 500 KB model_type came back
// whole in the error, a 3 MB unknown key twice in serve's reply): 80 bytes at a whole UTF-8
// character, then "...".
TEST(JsonDepth, LongStringsAreQuotedCut) {
  EXPECT_EQ(text_excerpt("short"), "short");
  EXPECT_EQ(text_excerpt(std::string(100, 'a')), std::string(80, 'a') + "...");
  // "é" is 2 bytes: 79 'a' then é straddles byte 80, so the cut falls before it.
  EXPECT_EQ(text_excerpt(std::string(79, 'a') + "\u00e9" + "zz"), std::string(79, 'a') + "...");
  json c = json::parse(small_config());
  c["model_type"] = std::string(500000, 'q');
  const std::string m = error_of([&] { ModelConfig::from_file(write("model_type.json", c.dump())); });
  EXPECT_NE(m.find("model_type \"" + std::string(80, 'q') + "...\" is not supported"), std::string::npos)
      << m.substr(0, 300);
  EXPECT_LT(m.size(), 400u);
  const std::string key(100000, 'k');
  try {
    parse_request("{\"prompt\": \"x\", \"" + key + "\": 1}", Endpoint::completions);
    ADD_FAILURE() << "accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, "unknown_field");
    EXPECT_EQ(e.param, key.substr(0, 80) + "...");
    EXPECT_LT(std::string(e.what()).size(), 200u);
  }
}

// F4: the CLI on a config.json whose rope_scaling nests 100,000 deep: exit 1 with the message (it
// was SIGSEGV: the refusal's message printed the value recursively).
TEST(JsonDepth, CliRefusesAFileNested100000Deep) {
  const std::string deep = with_field(small_config(), "rope_scaling", objects(100000));
  const std::string path = write("deep.json", deep);
  for (const std::string cmd : {"kv", "params"}) {
    const auto r = testing_fixtures::run_cli(cmd + " " + testing_fixtures::quote(path),
                                             test::fresh_temp_path("json_depth", "err.txt"));
    EXPECT_EQ(r.rc, 1) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find("JSON nested deeper than 128 levels at byte " +
                         std::to_string(byte_past_limit(deep, objects(100000), 1))),
              std::string::npos) << cmd << "\n" << r.err;
  }
}

}  // namespace
}  // namespace llm0
