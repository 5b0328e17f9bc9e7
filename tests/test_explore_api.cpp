// The explorer's API (src/explore/explore_api.h): each endpoint's JSON equals its CLI twin's
// `--json` output for the same arguments (the lesson, ledger and model-panel endpoints, run
// through the real `llm0` program and parsed), and malformed input to every endpoint — unknown
// keys, bad numbers, out-of-range values, random bytes and mutated config.json pastes, a missing
// model — is an error object with a 4xx status, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/shipped_file.h"
#include "explore/explore_api.h"
#include "explore_fixtures.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {
namespace {

using explore::ApiRequest;
using explore::ApiResponse;
using explore::ExploreApi;
using nlohmann::json;
using testing_fixtures::api_get;
using testing_fixtures::quote;
using testing_fixtures::run_cli;

class ExploreApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing_fixtures::ExploreModelDir();
    api_ = new ExploreApi({dir_->model(), "en"});
    bare_ = new ExploreApi({"", "zh"});
  }
  static void TearDownTestSuite() {
    delete bare_, delete api_, delete dir_;
  }
  // The CLI's stdout parsed as JSON (the command must succeed).
  static json cli_json(const std::string& args, const std::string& env = "") {
    const auto r = run_cli(args + " --threads 1", dir_->dir() / "err.txt", env);
    EXPECT_EQ(r.rc, 0) << args << "\n" << r.err;
    return r.rc == 0 ? json::parse(r.out) : json();
  }
  // The endpoint's answer (must be 200).
  static json endpoint(ExploreApi& api, const ApiRequest& r) {
    const ApiResponse a = api.handle(r);
    EXPECT_EQ(a.status, 200) << r.path << ": " << a.body.dump();
    return a.body;
  }
  // An error answer with `status` whose message contains `part`.
  static void expect_error(ExploreApi& api, const ApiRequest& r, int status, const std::string& part) {
    const ApiResponse a = api.handle(r);
    EXPECT_EQ(a.status, status) << r.path << " " << a.body.dump();
    ASSERT_TRUE(a.body.contains("error")) << a.body.dump();
    const std::string msg = a.body["error"]["message"].get<std::string>();
    EXPECT_NE(msg.find(part), std::string::npos) << "want '" << part << "' in: " << msg;
  }
  static testing_fixtures::ExploreModelDir* dir_;
  static ExploreApi *api_, *bare_;
};
testing_fixtures::ExploreModelDir* ExploreApiTest::dir_ = nullptr;
ExploreApi* ExploreApiTest::api_ = nullptr;
ExploreApi* ExploreApiTest::bare_ = nullptr;

// The model page's default sentence: Chinese when the page opens in Chinese, unless the model's
// vocabulary spells it in bytes (stories260K's 512 English pieces give more tokens than the
// sentence has characters), then the English one; no model at all: the Chinese one.
TEST_F(ExploreApiTest, DefaultSentenceIsOneTheModelsVocabularyKnows) {
  const std::string zh = "床前明月光，疑是地上霜。", en = "Once upon a time, there was a little girl";
  ExploreApi zh_page({dir_->model(), "zh"});
  ASSERT_NE(zh_page.model(), nullptr);
  EXPECT_GT(zh_page.model()->tokenizer->encode(zh).size(), 12u);  // byte fallback: 12 characters
  EXPECT_EQ(zh_page.default_text(), en);
  EXPECT_EQ(api_->default_text(), en);
  EXPECT_EQ(bare_->default_text(), zh);
}

TEST_F(ExploreApiTest, LessonEndpointsEqualTheirCliTwins) {
  // info.version's last line is the thread count of the process: this test's (OMP_NUM_THREADS,
  // 2 in `make test-omp2`) against the CLI's --threads 1; every other field must be equal.
  const auto info = [](json j) {
    std::string& v = j["version"].get_ref<std::string&>();
    EXPECT_NE(v.rfind("threads: "), std::string::npos) << v;
    v = v.substr(0, v.rfind("threads: "));
    return j;
  };
  EXPECT_EQ(info(endpoint(*bare_, api_get("info"))), info(cli_json("explore --info")));
  EXPECT_EQ(info(endpoint(*api_, api_get("info"))),
            info(cli_json("explore --info --lang en --model " + quote(dir_->model()))));
  EXPECT_EQ(endpoint(*bare_, api_get("lesson/attention", {{"asker", "小王"}})),
            cli_json("lesson attention --asker 小王 --json"));
  EXPECT_EQ(endpoint(*bare_, api_get("lesson/kv-cache", {{"prompt-len", "3"}, {"generate", "2"},
                                                         {"up-to", "16"}, {"seed", "5"}})),
            cli_json("lesson kv-cache --prompt-len 3 --generate 2 --up-to 16 --seed 5 --json"));
  EXPECT_EQ(endpoint(*bare_, api_get("lesson/shapes", {{"config", "deepseek-v2"}, {"tokens", "4096"}})),
            cli_json("lesson shapes --config " + quote(shipped_file("configs/reference/deepseek-v2.json")) +
                     " --tokens 4096 --json"));
}

TEST_F(ExploreApiTest, LedgerEndpointsEqualTheirCliTwins) {
  const std::string ref = shipped_file("configs/reference/qwen3-next-80b-a3b.json");
  EXPECT_EQ(endpoint(*bare_, api_get("kv/reference/qwen3-next-80b-a3b", {{"context", "1000"}, {"dtype", "fp8"}})),
            cli_json("kv " + quote(ref) + " --context 1000 --dtype fp8 --json")[0]);
  // POST: the body is "config.json" in the ledger, as the twin run on that file name.
  const std::string body = testing_fixtures::read_file(shipped_file("configs/reference/deepseek-v2.json"));
  std::ofstream(dir_->dir() / "config.json") << body;
  ApiRequest post = api_get("kv", {{"as", "gqa:4"}, {"context", "4096"}, {"measure", "true"}});
  post.method = "POST", post.body = body;
  const json pasted = endpoint(*bare_, post);
  EXPECT_EQ(pasted, cli_json("kv config.json --as gqa:4 --context 4096 --measure --json",
                             "cd " + quote(dir_->dir().string()) + " &&")[0]);
  EXPECT_EQ(pasted["measured"]["rows"][1]["engine_bytes"], pasted["measured"]["rows"][1]["ledger_bytes"]);
  EXPECT_EQ(endpoint(*bare_, api_get("kv/reference/mistral-7b-v0.1", {{"measure", "true"}})),
            cli_json("kv " + quote(shipped_file("configs/reference/mistral-7b-v0.1.json")) + " --measure --json")[0]);
}

TEST_F(ExploreApiTest, ModelEndpointsEqualTheirCliTwins) {
  const std::string m = quote(dir_->model());
  EXPECT_EQ(endpoint(*api_, api_get("lesson/kv-cache", {{"model", "loaded"}, {"up-to", "8"}})),
            cli_json("lesson kv-cache --model " + m + " --up-to 8 --json"));
  const json map = endpoint(*api_, api_get("lesson/attention-map", {{"text", "Once upon a time"}}));
  EXPECT_EQ(map, cli_json("lesson attention-map --model " + m + " --text 'Once upon a time' --json"));
  // Every row of every head: weights sum to 1 (float32 softmax, T ≤ 64 terms: 1e-5) and are 0
  // above the diagonal.
  for (const json& layer : map["layers"])
    for (const json& head : layer["heads"])
      for (size_t t = 0; t < head.size(); ++t) {
        double sum = 0;
        for (size_t j = 0; j < head[t].size(); ++j) {
          sum += head[t][j].get<double>();
          if (j > t) {
            EXPECT_EQ(head[t][j].get<double>(), 0.0);
          }
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
  const json steps = endpoint(*api_, api_get("lesson/generate-steps", {{"text", "Once upon"}, {"tokens", "5"},
                                                                       {"temperature", "0.8"}, {"seed", "3"}}));
  EXPECT_EQ(steps, cli_json("lesson generate-steps --model " + m +
                            " --text 'Once upon' --tokens 5 --temperature 0.8 --seed 3 --json"));
  // Step k's cache holds the P prompt tokens and the k − 1 tokens fed back since: it grows by the
  // same bytes per token at every step.
  const auto& s = steps["steps"];
  ASSERT_GE(s.size(), 3u);
  const uint64_t per_token = s[1]["cache_bytes"].get<uint64_t>() - s[0]["cache_bytes"].get<uint64_t>();
  EXPECT_GT(per_token, 0u);
  EXPECT_EQ(s[2]["cache_bytes"].get<uint64_t>() - s[1]["cache_bytes"].get<uint64_t>(), per_token);
  EXPECT_EQ(steps["prefill"]["cache_bytes"].get<uint64_t>(), per_token * steps["prompt"].size());
}

// More tokens than the context has room for: a 200 whose steps end when the cache holds the whole
// context, stop_reason "context_full" (OpenAI's finish_reason "length"), as docs/explore-api.md says.
TEST_F(ExploreApiTest, GenerateStepsPastTheContextStopsWhenItIsFull) {
  std::string text;
  for (int i = 0; i < 80; ++i) text += "Once upon a time ";
  const json j = endpoint(*api_, api_get("lesson/generate-steps", {{"text", text}, {"tokens", "256"}}));
  const int64_t context = api_->info()["model"]["max_position_embeddings"].get<int64_t>();
  const int64_t P = (int64_t)j["prompt"].size();
  ASSERT_LT(context - P, 256) << "the sentence must leave less room than the tokens asked for";
  EXPECT_EQ(j["stop_reason"], "context_full");
  // Token k goes to position P + k − 1: the last token made takes the context's last position.
  EXPECT_EQ(P + (int64_t)j["steps"].size(), context);
}

// info.default_asker is the row `llm0 lesson attention` reads without --asker (the pages ask for
// that row by this name and quote it): asking for it by name gives the same swap test and figures.
TEST_F(ExploreApiTest, InfoStatesTheLessonsDefaultAsker) {
  const std::string asker = bare_->info()["default_asker"].get<std::string>();
  EXPECT_EQ(asker, "给了");
  const json plain = cli_json("lesson attention --json");
  const json named = endpoint(*bare_, api_get("lesson/attention", {{"asker", asker}}));
  EXPECT_EQ(plain["swap_test"]["query"], asker);
  EXPECT_EQ(named["swap_test"], plain["swap_test"]);
  EXPECT_EQ(named["figures"], plain["figures"]);
  EXPECT_EQ(api_->info()["default_asker"], asker) << "the same with a model and --lang en";
}

TEST_F(ExploreApiTest, MalformedInputIsAnErrorObjectNamingWhatIsWrong) {
  expect_error(*bare_, api_get("lesson/kv-cache", {{"prompt-len", "0"}}), 400, "prompt-len");
  expect_error(*bare_, api_get("lesson/kv-cache", {{"up-to", "4097"}}), 400, "[0, 4096]");
  expect_error(*bare_, api_get("lesson/kv-cache", {{"generate", "1e3"}}), 400, "generate");
  expect_error(*bare_, api_get("lesson/kv-cache", {{"svg", "x.svg"}}), 400, "unknown parameter \"svg\"");
  expect_error(*bare_, api_get("lesson/kv-cache", {{"model", "loaded"}}), 400, "no model is loaded");
  expect_error(*bare_, api_get("lesson/kv-cache", {{"seed", "1"}, {"seed", "2"}}), 400, "twice");
  expect_error(*bare_, api_get("lesson/attention", {{"asker", "小红"}}), 400, "小红");
  // Invalid UTF-8 named by its key and the first bad byte's offset (from 0).
  expect_error(*bare_, api_get("lesson/attention", {{"asker", "ab\xff"}}), 400, "parameter \"asker\" is not valid UTF-8 text (byte 2");
  expect_error(*bare_, api_get("lesson/attention", {{"asker", "x"}, {"a\xc3", "1"}}), 400, "the key of parameter 2 is not valid UTF-8 text (byte 1");
  // The shapes lesson's bound (kShapesMaxTokens = 2^24) is the endpoint's, and info says it.
  expect_error(*bare_, api_get("lesson/shapes", {{"config", "deepseek-v2"}, {"tokens", "16777217"}}), 400, "[1, 16777216]");
  expect_error(*bare_, api_get("lesson/shapes", {{"config", "deepseek-v2"}, {"tokens", "1099511627776"}}), 400, "[1, 16777216]");
  EXPECT_EQ(endpoint(*bare_, api_get("lesson/shapes", {{"config", "deepseek-v2"}, {"tokens", "16777216"}}))["config"]["T"], 16777216);
  EXPECT_EQ(bare_->info()["limits"]["shapes_tokens"], 16777216);
  expect_error(*bare_, api_get("lesson/shapes", {{"config", "../../etc/passwd"}}), 400, "reference config");
  expect_error(*bare_, api_get("lesson/shapes"), 400, "config");
  expect_error(*bare_, api_get("lesson/attention-map", {{"text", "hi"}}), 400, "llm0 explore --model");
  expect_error(*api_, api_get("lesson/attention-map", {{"text", std::string(400, 'a') + " b"}}), 400, "at most 64");
  expect_error(*api_, api_get("lesson/attention-map"), 400, "text");
  expect_error(*api_, api_get("lesson/generate-steps", {{"text", "a"}, {"tokens", "257"}}), 400, "tokens");
  expect_error(*api_, api_get("lesson/generate-steps", {{"text", "a"}, {"temperature", "nan"}}), 400, "temperature");
  expect_error(*bare_, api_get("kv/reference/nope"), 400, "nope");
  expect_error(*bare_, api_get("kv/reference/deepseek-v2", {{"dtype", "int3"}}), 400, "int3");
  expect_error(*bare_, api_get("kv/reference/deepseek-v2", {{"context", "-1"}}), 400, "context");
  expect_error(*bare_, api_get("kv/reference/deepseek-v2", {{"measure", "yes"}}), 400, "true or false");
  expect_error(*bare_, api_get("kv"), 405, "POST");
  expect_error(*bare_, api_get("nothing"), 404, "/explore/api/nothing");
  ApiRequest post = api_get("kv");
  post.method = "POST";
  post.body = "{\"hidden_size\": ";
  expect_error(*bare_, post, 400, "not valid JSON");
  post.body = "[1, 2]";
  expect_error(*bare_, post, 400, "JSON object");
  post.body = "{}";
  expect_error(*bare_, post, 400, "config.json");
  post.body = std::string(explore::ExploreLimits::kBodyBytes + 1, ' ');
  expect_error(*bare_, post, 413, "bytes");
}

// Random mutations of a real config.json (byte flips, cuts, insertions of JSON punctuation and
// huge or negative numbers) and random byte strings as sentences: every answer is 200 or a 400
// error object, and the API still answers a good request afterwards.
TEST_F(ExploreApiTest, FuzzedPastesAndSentencesGetAnswersOrErrorObjects) {
  const std::string good = testing_fixtures::read_file(shipped_file("configs/reference/qwen3-next-80b-a3b.json"));
  std::mt19937 rng(2024);
  const std::vector<std::string> junk = {"{", "}", "[", "\"", ",", ":", "-1", "0", "1e308", "99999999999999999999",
                                         "null", "true", "\xe7\xbb", "\\u0000"};
  ApiRequest post = api_get("kv", {{"context", "4096"}});
  post.method = "POST";
  for (int i = 0; i < 300; ++i) {
    std::string b = good;
    for (int e = 0; e < 1 + (int)(rng() % 4); ++e) {
      const size_t at = rng() % b.size();
      switch (rng() % 3) {
        case 0: b[at] = (char)(rng() % 256); break;
        case 1: b.erase(at, rng() % 40); break;
        default: b.insert(at, junk[rng() % junk.size()]);
      }
      if (b.empty()) b = "x";
    }
    post.body = b;
    const ApiResponse a = bare_->handle(post);
    ASSERT_TRUE(a.status == 200 || a.status == 400) << a.status << " " << a.body.dump();
    if (a.status == 400) {
      ASSERT_FALSE(a.body["error"]["message"].get<std::string>().empty());
    } else {
      ASSERT_TRUE(a.body.contains("kv_bytes_per_token")) << a.body.dump();
    }
  }
  // Half random bytes (mostly not UTF-8), half valid text from pieces that tokenize differently
  // (CJK, emoji, specials, whitespace), up to well past the 64-token limit of the map.
  const std::vector<std::string> pieces = {"a", "Once", " ", "给了", "😀", "\n", "<s>", "</s>", "\t\t"};
  for (int i = 0; i < 40; ++i) {
    std::string text;
    if (i % 2 == 0) {
      text.assign(1 + rng() % 30, ' ');
      for (char& c : text) c = (char)(rng() % 256);
    } else {
      for (int n = 1 + (int)(rng() % 90); n > 0; --n) text += pieces[rng() % pieces.size()];
    }
    for (const char* path : {"lesson/attention-map", "lesson/generate-steps", "lesson/attention"}) {
      const ApiResponse a = api_->handle(api_get(path, {{std::string(path) == "lesson/attention" ? "asker" : "text", text}}));
      ASSERT_TRUE(a.status == 200 || a.status == 400) << path << " " << a.body.dump(-1, ' ', false, json::error_handler_t::replace);
    }
  }
  post.body = good;
  EXPECT_EQ(bare_->handle(post).status, 200);
}

TEST(ExploreCanonicalKey, SortsKeysAndEncodesLikeEncodeURIComponent) {
  // encodeURIComponent("给 了") = "%E7%BB%99%20%E4%BA%86", encodeURIComponent("x+y!") = "x%2By!"
  EXPECT_EQ(explore::canonical_key("/explore/api/p", {{"b", "给 了"}, {"a", "x+y!"}}),
            "/explore/api/p?a=x%2By!&b=%E7%BB%99%20%E4%BA%86");
  EXPECT_EQ(explore::canonical_key("/explore/api/info", {}), "/explore/api/info");
}

}  // namespace
}  // namespace llm0
