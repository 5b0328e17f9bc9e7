// The OpenAI request parser and validator (src/serve/openai_protocol.h), the plain chat template,
// prepare_request's model / context / pool checks, the logprobs of a row of logits against a
// softmax computed here, the response objects' fields, and the Prometheus text of the metrics.
// Every malformed request must give the right status, OpenAI error code and param.
#include <gtest/gtest.h>

#include <cmath>

#include "generator_fixtures.h"
#include "serve/chat_template.h"
#include "infer/logprobs.h"
#include "serve/metrics.h"
#include "serve/openai_protocol.h"
#include "serve/openai_response.h"
#include "serve/prepare_request.h"

using namespace llm0;
using namespace llm0::serve;
using nlohmann::json;

namespace {

struct Refusal {
  Endpoint endpoint;
  std::string body;
  int status;
  std::string code, param;
};

ApiError refusal_of(const std::string& body, Endpoint e) {
  try {
    parse_request(body, e);
  } catch (const ApiError& err) {
    return err;
  }
  ADD_FAILURE() << "accepted: " << body;
  return ApiError(0, "");
}

TEST(ServeProtocol, EveryMalformedRequestGetsItsStatusCodeAndParam) {
  const Endpoint C = Endpoint::completions, H = Endpoint::chat_completions;
  const std::vector<Refusal> cases = {
      {C, R"({"prompt": "a", "max_tokens": 5)", 400, "invalid_json", ""},       // truncated
      {C, "", 400, "invalid_json", ""},
      {C, "[1, 2]", 400, "invalid_json", ""},                                   // not an object
      {C, R"({"max_tokens": 5})", 400, "invalid_value", "prompt"},              // missing prompt
      {C, R"({"prompt": 7})", 400, "invalid_type", "prompt"},
      {C, R"({"prompt": []})", 400, "invalid_value", "prompt"},
      {C, R"({"prompt": [1, -2]})", 400, "invalid_value", "prompt"},
      {C, R"({"prompt": [1, 2.5]})", 400, "invalid_type", "prompt"},
      {C, R"({"prompt": ["a", "b"]})", 400, "invalid_value", "prompt"},        // two prompts
      {C, R"({"prompt": "a", "max_tokens": 0})", 400, "invalid_value", "max_tokens"},
      {C, R"({"prompt": "a", "max_tokens": -3})", 400, "invalid_value", "max_tokens"},
      {C, R"({"prompt": "a", "max_tokens": 99999999999999})", 400, "invalid_value", "max_tokens"},
      {C, R"({"prompt": "a", "max_tokens": "5"})", 400, "invalid_type", "max_tokens"},
      {C, R"({"prompt": "a", "max_tokens": 1.5})", 400, "invalid_type", "max_tokens"},
      {C, R"({"prompt": "a", "max_tokens": 1e30})", 400, "invalid_value", "max_tokens"},   // an integer, too large
      {C, R"({"prompt": "a", "max_tokens": -1e30})", 400, "invalid_value", "max_tokens"},
      {C, R"({"prompt": "a", "seed": 1e300})", 400, "invalid_value", "seed"},
      {C, R"({"prompt": [1, 1e30]})", 400, "invalid_value", "prompt"},
      {C, R"({"prompt": "a", "metadata": "x"})", 400, "invalid_type", "metadata"},
      {C, R"({"prompt": "a", "metadata": {"k": "v", "n": 1}})", 400, "invalid_type", "metadata.n"},
      {C, R"({"prompt": "a", "store": "yes"})", 400, "invalid_type", "store"},
      {C, R"({"prompt": "a", "user": 5})", 400, "invalid_type", "user"},
      {C, R"({"prompt": "a", "temperature": "hot"})", 400, "invalid_type", "temperature"},
      {C, R"({"prompt": "a", "temperature": -0.1})", 400, "invalid_value", "temperature"},
      {C, R"({"prompt": "a", "temperature": 2.5})", 400, "invalid_value", "temperature"},
      {C, R"({"prompt": "a", "top_p": 0})", 400, "invalid_value", "top_p"},
      {C, R"({"prompt": "a", "top_p": 1.01})", 400, "invalid_value", "top_p"},
      {C, R"({"prompt": "a", "top_k": -2})", 400, "invalid_value", "top_k"},
      {C, R"({"prompt": "a", "min_p": 1.5})", 400, "invalid_value", "min_p"},
      {C, R"({"prompt": "a", "repetition_penalty": 0})", 400, "invalid_value", "repetition_penalty"},
      {C, R"({"prompt": "a", "seed": -1})", 400, "invalid_value", "seed"},
      {C, R"({"prompt": "a", "stop": ""})", 400, "invalid_value", "stop"},
      {C, R"({"prompt": "a", "stop": ["x", 3]})", 400, "invalid_type", "stop"},
      {C, R"({"prompt": "a", "stop": {"x": 1}})", 400, "invalid_type", "stop"},
      {C, R"({"prompt": "a", "stream": "yes"})", 400, "invalid_type", "stream"},
      {C, R"({"prompt": "a", "stream_options": {"include_usage": true}})", 400, "invalid_value", "stream_options"},
      {C, R"({"prompt": "a", "logprobs": 21})", 400, "invalid_value", "logprobs"},
      {C, R"({"prompt": "a", "logprobs": true})", 400, "invalid_type", "logprobs"},
      {C, R"({"prompt": "a", "n": 2})", 400, "invalid_value", "n"},
      {C, R"({"prompt": "a", "echo": true})", 400, "invalid_value", "echo"},
      {C, R"({"prompt": "a", "presence_penalty": 0.5})", 400, "invalid_value", "presence_penalty"},
      {C, R"({"prompt": "a", "logit_bias": {"5": 1}})", 400, "invalid_value", "logit_bias"},
      {C, R"({"prompt": "a", "frobnicate": 1})", 400, "unknown_field", "frobnicate"},
      {C, R"({"prompt": "a", "ignore_eos": 1})", 400, "invalid_type", "ignore_eos"},
      {C, R"({"prompt": "a", "messages": []})", 400, "unknown_field", "messages"},  // a chat field
      {H, R"({"prompt": "a"})", 400, "unknown_field", "prompt"},
      {H, R"({})", 400, "invalid_value", "messages"},
      {H, R"({"messages": []})", 400, "invalid_value", "messages"},
      {H, R"({"messages": "hi"})", 400, "invalid_type", "messages"},
      {H, R"({"messages": [{"role": "wizard", "content": "x"}]})", 400, "invalid_value", "messages[0].role"},
      {H, R"({"messages": [{"role": "user"}]})", 400, "invalid_value", "messages[0].content"},
      {H, R"({"messages": [{"role": "user", "content": 5}]})", 400, "invalid_type", "messages[0].content"},
      {H, R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})", 400, "invalid_value",
       "messages[0].content"},
      {H, R"({"messages": [{"role": "user", "content": "x", "mood": 1}]})", 400, "invalid_value", "messages[0].mood"},
      {H, R"({"messages": [{"role": "user", "content": "x"}], "top_logprobs": 2})", 400, "invalid_value",
       "top_logprobs"},
      {H, R"({"messages": [{"role": "user", "content": "x"}], "logprobs": true, "top_logprobs": 30})", 400,
       "invalid_value", "top_logprobs"},
      {H, R"({"messages": [{"role": "user", "content": "x"}], "logprobs": 3})", 400, "invalid_type", "logprobs"},
      // max_tokens is checked even when max_completion_tokens (the newer name) is given too.
      {H, R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": -1, "max_completion_tokens": 5})", 400,
       "invalid_value", "max_tokens"},
      {H, R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": "a", "max_completion_tokens": 5})", 400,
       "invalid_type", "max_tokens"},
      {H, R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 5, "max_completion_tokens": 0})", 400,
       "invalid_value", "max_completion_tokens"},
  };
  for (const Refusal& c : cases) {
    const ApiError e = refusal_of(c.body, c.endpoint);
    EXPECT_EQ(e.status, c.status) << c.body;
    EXPECT_EQ(e.code, c.code) << c.body << ": " << e.what();
    EXPECT_EQ(e.param, c.param) << c.body << ": " << e.what();
    EXPECT_EQ(std::string(e.what()).find("{{"), std::string::npos) << e.what();  // formatted
    const json j = e.to_json();  // OpenAI's error object, as the clients parse it
    EXPECT_EQ(j["error"]["message"], e.what());
    EXPECT_EQ(j["error"]["type"], "invalid_request_error");
    EXPECT_EQ(j["error"]["code"], c.code);
  }
}

TEST(ServeProtocol, AHugeIntegerIsOutOfRangeNotAFraction) {
  const ApiError e = refusal_of(R"({"prompt": "a", "max_tokens": 1e30})", Endpoint::completions);
  EXPECT_NE(std::string(e.what()).find("must be in [1, 2147483647], got 1e+30"), std::string::npos) << e.what();
  const ApiError f = refusal_of(R"({"prompt": "a", "max_tokens": 2.5})", Endpoint::completions);
  EXPECT_NE(std::string(f.what()).find("must be an integer"), std::string::npos) << f.what();
}

// Found by review: "seed" -1 or 2^64 said "must be in [0, 9223372036854775807], got 1.84467e+19"
// while the whole [0, 2^64) is accepted; the message gives the real range and the number in full.
TEST(ServeProtocol, SeedTakesTheWholeUnsigned64RangeAndItsRefusalSaysSo) {
  const auto message = [](const std::string& seed) {
    return std::string(refusal_of(R"({"prompt": "a", "seed": )" + seed + "}", Endpoint::completions).what());
  };
  EXPECT_EQ(message("-1"), "'seed' must be in [0, 18446744073709551615], got -1");
  EXPECT_EQ(message("18446744073709551616"), "'seed' must be in [0, 18446744073709551615], got 18446744073709551616");
  EXPECT_EQ(message("-9223372036854775809"), "'seed' must be in [0, 18446744073709551615], got -9223372036854775808");
  EXPECT_EQ(message("1e300"), "'seed' must be in [0, 18446744073709551615], got 1e+300");
  EXPECT_EQ(message("0.5"), "'seed' must be an integer, got number");
  // Accepted: both ends, and an integer written as a double (1.8e19 = 18000000000000000000).
  for (const auto& [text, seed] : std::vector<std::pair<std::string, uint64_t>>{
           {"0", 0}, {"18446744073709551615", UINT64_MAX}, {"1.8e19", 18000000000000000000ull}, {"7.0", 7}}) {
    const CompletionRequest r = parse_request(R"({"prompt": "a", "seed": )" + text + "}", Endpoint::completions);
    EXPECT_EQ(r.sampler.seed, seed) << text;
  }
  // Other integer fields print a large integer in full, not in 6 digits.
  EXPECT_NE(std::string(refusal_of(R"({"prompt": "a", "max_tokens": 123456789012.0})", Endpoint::completions).what())
                .find("got 123456789012"), std::string::npos);
}

TEST(ServeProtocol, DeeplyNestedJsonIsRefusedWithoutRecursion) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_EQ(refusal_of(deep, Endpoint::completions).code, "invalid_json");
  const ApiError e = refusal_of(R"({"prompt": )" + deep + "}", Endpoint::completions);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "prompt");
  EXPECT_EQ(refusal_of(R"({"prompt": )" + std::string(1000000, '['), Endpoint::completions).code, "invalid_json");
}

TEST(ServeProtocol, ParsesEveryFieldOfACompletion) {
  const CompletionRequest r = parse_request(
      R"({"model": "m", "prompt": "Hello", "max_tokens": 7, "temperature": 0.5, "top_p": 0.9,
          "top_k": 40, "min_p": 0.05, "repetition_penalty": 1.1, "seed": 18446744073709551615,
          "stop": ["\n", "END"], "stream": true, "stream_options": {"include_usage": true},
          "logprobs": 3, "n": 1, "user": "u", "echo": false, "frequency_penalty": 0,
          "logit_bias": {}, "suffix": null, "ignore_eos": true})",
      Endpoint::completions);
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.prompt, "Hello");
  EXPECT_FALSE(r.prompt_is_ids);
  EXPECT_EQ(r.max_tokens, 7);
  EXPECT_DOUBLE_EQ(r.sampler.temperature, 0.5);
  EXPECT_DOUBLE_EQ(r.sampler.top_p, 0.9);
  EXPECT_EQ(r.sampler.top_k, 40);
  EXPECT_DOUBLE_EQ(r.sampler.min_p, 0.05);
  EXPECT_DOUBLE_EQ(r.sampler.repetition_penalty, 1.1);
  EXPECT_EQ(r.sampler.seed, 18446744073709551615ull);
  EXPECT_TRUE(r.seed_given);
  EXPECT_EQ(r.stop, (std::vector<std::string>{"\n", "END"}));
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(r.logprobs, 3);
  EXPECT_TRUE(r.ignore_eos);
}

TEST(ServeProtocol, PromptIdsNullsAndDefaults) {
  CompletionRequest r = parse_request(R"({"prompt": [[5, 0, 9]], "max_tokens": null, "top_k": -1})",
                                      Endpoint::completions);
  EXPECT_TRUE(r.prompt_is_ids);
  EXPECT_EQ(r.prompt_ids, (std::vector<int>{5, 0, 9}));
  EXPECT_EQ(r.max_tokens, 0);  // null = not given
  EXPECT_EQ(r.sampler.top_k, 0);  // -1 = off (vLLM)
  EXPECT_DOUBLE_EQ(r.sampler.temperature, 1.0);
  EXPECT_FALSE(r.seed_given);
  EXPECT_EQ(r.logprobs, -1);
  r = parse_request(R"({"prompt": "x", "stop": "###", "max_tokens": 16.0})", Endpoint::completions);
  EXPECT_EQ(r.stop, (std::vector<std::string>{"###"}));
  EXPECT_EQ(r.max_tokens, 16);
}

TEST(ServeProtocol, ChatMessagesLogprobsAndTextParts) {
  const CompletionRequest r = parse_request(
      R"({"model": "m", "messages": [{"role": "system", "content": "Be brief."},
          {"role": "user", "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]}],
          "logprobs": true, "top_logprobs": 2, "max_completion_tokens": 9})",
      Endpoint::chat_completions);
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[1].content, "Hi there");
  EXPECT_EQ(r.logprobs, 2);
  EXPECT_EQ(r.max_tokens, 9);
  EXPECT_EQ(render_plain_chat(r.messages), "System: Be brief.\n\nUser: Hi there\n\nAssistant:");
  // Both limits valid: max_completion_tokens wins; metadata of strings and store are accepted.
  EXPECT_EQ(parse_request(R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 3,
                              "max_completion_tokens": 8, "metadata": {"k": "v"}, "store": false})",
                          Endpoint::chat_completions).max_tokens, 8);
  EXPECT_EQ(parse_request(R"({"messages": [{"role": "user", "content": "x"}], "logprobs": true})",
                          Endpoint::chat_completions).logprobs, 0);
  EXPECT_EQ(parse_request(R"({"messages": [{"role": "user", "content": "x"}], "logprobs": false})",
                          Endpoint::chat_completions).logprobs, -1);
}

TEST(ServeProtocol, PlainTemplateLabelsEveryRole) {
  EXPECT_EQ(render_plain_chat({{"developer", "d"}, {"user", "u"}, {"assistant", "a"}, {"tool", "t"}}),
            "System: d\n\nUser: u\n\nAssistant: a\n\nTool: t\n\nAssistant:");
}

class ServePrepare : public ::testing::Test {
 protected:
  Tokenizer tok = testing_fixtures::corpus_tokenizer(true);
  ModelConfig cfg = testing_fixtures::tiny_config_vocab(testing_fixtures::Heads::GQA, tok.vocab_size());
  ServedModel served() const { return {"tiny", &cfg, &tok, 4, 100}; }
  ApiError refusal(const std::string& body, Endpoint e, const ServedModel& m) {
    try {
      prepare_request(parse_request(body, e), m);
    } catch (const ApiError& err) {
      return err;
    }
    ADD_FAILURE() << "accepted: " << body;
    return ApiError(0, "");
  }
};

TEST_F(ServePrepare, ChecksModelContextPoolAndIds) {
  const int N = cfg.max_position_embeddings;
  ApiError e = refusal(R"({"model": "other", "prompt": "a"})", Endpoint::completions, served());
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(e.code, "model_not_found");
  e = refusal(R"({"prompt": [1, 2, 3], "max_tokens": )" + std::to_string(N - 2) + "}", Endpoint::completions,
              served());
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.param, "max_tokens");
  e = refusal(R"({"prompt": [1, )" + std::to_string(cfg.vocab_size) + "]}", Endpoint::completions, served());
  EXPECT_EQ(e.param, "prompt");
  std::string long_prompt = "[";
  for (int i = 0; i < N; ++i) long_prompt += (i ? ",1" : "1");
  e = refusal(R"({"prompt": )" + long_prompt + "]}", Endpoint::completions, served());
  EXPECT_EQ(e.code, "context_length_exceeded");
  ServedModel small = served();
  small.pages_total = 2;  // 8 tokens of 4 per page
  e = refusal(R"({"prompt": [1, 2, 3], "max_tokens": 6})", Endpoint::completions, small);
  EXPECT_EQ(e.code, "kv_pool_too_small");
  // 3 + 5 = 8 tokens fit exactly.
  EXPECT_EQ(prepare_request(parse_request(R"({"prompt": [1, 2, 3], "max_tokens": 5})", Endpoint::completions),
                            small).max_tokens, 5);
}

TEST_F(ServePrepare, DefaultsTemplateAndEmptyPrompt) {
  const int N = cfg.max_position_embeddings;
  ServeRequest s = prepare_request(parse_request(R"({"prompt": [1, 2, 3]})", Endpoint::completions), served());
  EXPECT_EQ(s.max_tokens, std::min(16, N - 3));
  EXPECT_TRUE(s.stop.empty());
  s = prepare_request(parse_request(R"({"prompt": ""})", Endpoint::completions), served());
  EXPECT_EQ(s.prompt, std::vector<int>{tok.eos_id()});
  s = prepare_request(parse_request(R"({"model": "tiny", "messages": [{"role": "user", "content": "ab"}],
                                        "seed": 5, "temperature": 0})", Endpoint::chat_completions), served());
  EXPECT_EQ(s.prompt, tok.encode("User: ab\n\nAssistant:"));
  EXPECT_EQ(s.max_tokens, N - (int)s.prompt.size());  // chat: the rest of the context
  EXPECT_EQ(s.stop, std::vector<std::string>{kPlainTemplateStop});
  EXPECT_EQ(s.sampler.seed, 5u);
  ServedModel small = served();
  small.pages_total = 10;  // 40 tokens: chat's default stops where the pool ends
  s = prepare_request(parse_request(R"({"messages": [{"role": "user", "content": "ab"}]})",
                                    Endpoint::chat_completions), small);
  EXPECT_EQ(s.max_tokens, 40 - (int)s.prompt.size());
}

TEST_F(ServePrepare, OwnChatTemplateRendersWithKwargsAndStopsAtItsEos) {
  const chat::ChatTemplate t = chat::make_chat_template(
      "{% for m in messages %}<|endoftext|>{{ m.role }}: {{ m.content }}\n{% endfor %}"
      "{% if add_generation_prompt %}assistant{{ greeting|default('') }}:{% endif %}"
      "{% if messages|length > 2 %}{{ raise_exception('at most two messages') }}{% endif %}",
      "tokenizer_config.json", {{"eos_token", "<|endoftext|>"}});
  ServedModel m = served();
  m.chat_template = &t;
  m.chat_stop_ids = chat_stop_token_ids(t, tok, cfg);
  EXPECT_NE(std::find(m.chat_stop_ids.begin(), m.chat_stop_ids.end(), tok.eos_id()), m.chat_stop_ids.end());
  ServeRequest s = prepare_request(parse_request(R"({"messages": [{"role": "system", "content": "be brief"},
      {"role": "user", "content": "你好"}]})", Endpoint::chat_completions), m);
  EXPECT_EQ(s.prompt, tok.encode("<|endoftext|>system: be brief\n<|endoftext|>user: 你好\nassistant:"));
  EXPECT_TRUE(s.stop.empty());  // no plain-template stop string: the turn ends at the eos token
  EXPECT_EQ(s.stop_token_ids, m.chat_stop_ids);
  s = prepare_request(parse_request(R"({"messages": [{"role": "user", "content": "x"}],
      "chat_template_kwargs": {"greeting": " hi"}})", Endpoint::chat_completions), m);
  EXPECT_EQ(s.prompt, tok.encode("<|endoftext|>user: x\nassistant hi:"));
  const ApiError e = refusal(R"({"messages": [{"role": "user", "content": "1"}, {"role": "user", "content": "2"},
      {"role": "user", "content": "3"}]})", Endpoint::chat_completions, m);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "messages");
  EXPECT_NE(std::string(e.what()).find("at most two messages"), std::string::npos) << e.what();
  EXPECT_EQ(refusal(R"({"messages": [{"role": "user", "content": "x"}], "chat_template_kwargs": 3})",
                    Endpoint::chat_completions, m).param, "chat_template_kwargs");
}

TEST(ServeLogprobs, MatchTheSoftmaxAndSortTopTokens) {
  const std::vector<float> l = {1.0f, 3.0f, -2.0f, 3.0f, 0.5f};
  double z = 0;
  for (float x : l) z += std::exp((double)x);
  const TokenLogprob t = token_logprob(l.data(), 5, 4, 3);
  EXPECT_NEAR(t.logprob, 0.5 - std::log(z), 1e-12);
  ASSERT_EQ(t.top.size(), 3u);
  EXPECT_EQ(t.top[0].first, 1);  // tie at 3.0: the lower id first
  EXPECT_EQ(t.top[1].first, 3);
  EXPECT_EQ(t.top[2].first, 0);
  EXPECT_NEAR(t.top[2].second, 1.0 - std::log(z), 1e-12);
  double mass = 0;
  for (int i = 0; i < 5; ++i) mass += std::exp(token_logprob(l.data(), 5, i, 0).logprob);
  EXPECT_NEAR(mass, 1.0, 1e-12);
  const std::vector<float> inf = {-INFINITY, 2.0f, NAN};
  EXPECT_EQ(token_logprob(inf.data(), 3, 1, 0).logprob, 0.0);
  EXPECT_TRUE(std::isinf(token_logprob(inf.data(), 3, 0, 0).logprob));
}

TEST(ServeResponse, UsageLogprobsAndChunkShapes) {
  Tokenizer tok = testing_fixtures::corpus_tokenizer(true);
  StreamUpdate end;
  end.finished = true, end.finish_reason = "length", end.prompt_tokens = 7, end.completion_tokens = 2,
  end.cached_tokens = 4;
  const TokenLogprob a{'a', -0.5, {{'a', -0.5}, {'b', -1.5}}}, b{'b', -0.25, {}};
  ResponseContext ctx{Endpoint::completions, "cmpl-1", 10, "tiny", 0};
  json j = completion_json(ctx, "ab", {a, b}, true, end, tok);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["choices"][0]["text"], "ab");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["total_tokens"], 9);
  EXPECT_EQ(j["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
  const json& lp = j["choices"][0]["logprobs"];
  EXPECT_EQ(lp["tokens"], json::array({tok.token_bytes('a'), tok.token_bytes('b')}));
  EXPECT_EQ(lp["token_logprobs"], json::array({-0.5, -0.25}));
  EXPECT_EQ(lp["text_offset"], json::array({0, json_characters(tok.token_bytes('a'))}));
  EXPECT_DOUBLE_EQ(lp["top_logprobs"][0][tok.token_bytes('b')].get<double>(), -1.5);
  ResponseContext chat{Endpoint::chat_completions, "chatcmpl-1", 10, "tiny", 0};
  j = chunk_json(chat, "", {}, false, "", true, tok);
  EXPECT_EQ(j["object"], "chat.completion.chunk");
  EXPECT_EQ(j["choices"][0]["delta"]["role"], "assistant");
  EXPECT_TRUE(j["choices"][0]["finish_reason"].is_null());
  EXPECT_TRUE(j["choices"][0]["logprobs"].is_null());
  j = chunk_json(chat, "x", {a}, true, "stop", false, tok);
  EXPECT_FALSE(j["choices"][0]["delta"].contains("role"));
  EXPECT_EQ(j["choices"][0]["logprobs"]["content"][0]["top_logprobs"].size(), 2u);
  EXPECT_EQ(j["choices"][0]["logprobs"]["content"][0]["bytes"], json::array({(int)'a'}));
  EXPECT_EQ(usage_chunk_json(chat, end)["choices"].size(), 0u);
  // A token that ends inside a UTF-8 character is still valid JSON text (U+FFFD).
  EXPECT_EQ(json::parse(dump_json(json{{"t", std::string("a\xE2\x82")}}))["t"], "a\xEF\xBF\xBD");
  EXPECT_EQ(sse_event(json{{"a", 1}}), "data: {\"a\":1}\n\n");
}

TEST(ServeResponse, TextOffsetCountsCharactersAsTheJsonShowsThem) {
  EXPECT_EQ(json_characters("ab"), 2);
  EXPECT_EQ(json_characters("a\xE2\x82\xAC"), 2);           // "a€": 4 bytes, 2 characters
  EXPECT_EQ(json_characters("\xF0\x9F\x98\x80!"), 2);       // an emoji (one code point) and "!"
  EXPECT_EQ(json_characters("\xE2\x82"), 1);                 // an incomplete character: one U+FFFD
  EXPECT_EQ(json_characters("\xE2\x82" "a"), 2);
  EXPECT_EQ(json_characters(""), 0);
  EXPECT_EQ(json_characters("\n\"\x01"), 3);                  // escapes count as the characters they are
}

TEST(ServeMetrics, PrometheusTextCountsAndCumulativeBuckets) {
  Metrics m;
  m.count(Outcome::stop);
  m.count(Outcome::stop);
  m.count(Outcome::cancelled);
  m.prompt_tokens = 12;
  m.pages_in_use = 3;
  for (double x : {1.0, 3.0, 3.0, 200.0}) m.batch_size.observe(x);
  const std::string t = m.render();
  EXPECT_NE(t.find("llm0_requests_total{outcome=\"stop\"} 2\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_requests_total{outcome=\"cancelled\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_prompt_tokens_total 12\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_kv_pages_in_use 3\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_batch_size_bucket{le=\"1\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_batch_size_bucket{le=\"2\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_batch_size_bucket{le=\"4\"} 3\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_batch_size_bucket{le=\"128\"} 3\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_batch_size_bucket{le=\"+Inf\"} 4\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_batch_size_sum 207\n"), std::string::npos);
  EXPECT_NE(t.find("llm0_batch_size_count 4\n"), std::string::npos);
  EXPECT_NE(t.find("# TYPE llm0_time_to_first_token_seconds histogram"), std::string::npos);
}

}  // namespace
