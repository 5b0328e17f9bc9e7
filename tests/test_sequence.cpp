// Sequence (src/infer/sequence.h) driven by hand-made logits rows: a row whose largest logit is
// token t makes greedy sampling pick t, so each test chooses the exact byte sequence a text is
// generated from. Checks the stop rules (stop string across token boundaries and inside one
// token, eos with and without ignore_eos, max_new_tokens, context full, their order), the text
// (held back while it may start a stop string or ends inside a UTF-8 character, released at the
// end), the log-probs against the closed form of log_softmax, and the errors.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "core/check.h"
#include "generator_fixtures.h"
#include "infer/sequence.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

class SequenceTest : public ::testing::Test {
 protected:
  Tokenizer tok = corpus_tokenizer(/*eos=*/true);
  int V = tok.vocab_size();
  int eos = endoftext_id(tok);

  // Id of the token whose bytes are exactly `bytes` (a single byte always has one).
  int id(std::string_view bytes) const {
    for (int i = 0; i < V; ++i)
      if (tok.token_bytes(i) == bytes) return i;
    ADD_FAILURE() << "no token with bytes '" << bytes << "'";
    return 0;
  }
  // One id per byte of `text`.
  std::vector<int> bytes_of(std::string_view text) const {
    std::vector<int> ids;
    for (char c : text) ids.push_back(id(std::string_view(&c, 1)));
    return ids;
  }
  // A row [V] where greedy sampling picks `token`: 0 everywhere, 5 at token.
  std::vector<float> row(int token) const {
    std::vector<float> r((size_t)V, 0.0f);
    r[(size_t)token] = 5.0f;
    return r;
  }
  Sequence make(int max_new_tokens, int context, std::vector<std::string> stop = {},
                std::vector<int> prompt = {}) const {
    SequenceOptions o;
    o.max_new_tokens = max_new_tokens, o.context = context, o.stop = std::move(stop);
    o.sampler.temperature = 0;
    return Sequence(tok, V, prompt.empty() ? bytes_of("xy") : std::move(prompt), o);
  }
  // Steps `s` once per token of `tokens`; returns each step's text.
  std::vector<std::string> feed(Sequence& s, const std::vector<int>& tokens) const {
    std::vector<std::string> texts;
    for (int t : tokens) texts.push_back(s.step(row(t).data()).text);
    return texts;
  }
};

using Texts = std::vector<std::string>;

TEST_F(SequenceTest, StopStringAcrossTokenBoundariesIsHeldBackThenCut) {
  Sequence s = make(100, 64, {"END"});
  // "E", "EN" may start "END": held; "x" shows it was not; "END" over three tokens stops.
  EXPECT_EQ(feed(s, bytes_of("aENxEND")), (Texts{"a", "", "", "ENx", "", "", ""}));
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.stop_reason(), StopReason::stop_string);
  EXPECT_STREQ(finish_reason(s.stop_reason()), "stop");
  EXPECT_STREQ(stop_reason_name(s.stop_reason()), "stop_string");
  EXPECT_EQ(s.stop_string(), "END");
  EXPECT_EQ(s.text(), "aENx");
  EXPECT_EQ(s.generated(), 7);  // the token that completed the stop string is generated
  EXPECT_EQ(s.sampled(), 7);
  // Finished: no token, no text, no logits read.
  const SequenceStep& after = s.step(nullptr);
  EXPECT_EQ(after.token, -1);
  EXPECT_TRUE(after.text.empty());
  EXPECT_TRUE(after.finished);
}

TEST_F(SequenceTest, StopStringInsideOneMultiByteToken) {
  int merged = -1;  // a learned token of two different letters other than "c", e.g. "at"
  for (int i = 256; i < V && merged < 0; ++i) {
    const std::string& b = tok.token_bytes(i);
    if (b.size() == 2 && std::isalpha((unsigned char)b[0]) && std::isalpha((unsigned char)b[1]) &&
        b[0] != b[1] && b[0] != 'c' && b[1] != 'c')
      merged = i;
  }
  ASSERT_GE(merged, 0);
  const std::string bytes = tok.token_bytes(merged);
  Sequence s = make(100, 64, {bytes.substr(1)});
  EXPECT_EQ(feed(s, {id("c"), merged}), (Texts{"c", bytes.substr(0, 1)}));
  EXPECT_EQ(s.stop_reason(), StopReason::stop_string);
  EXPECT_EQ(s.text(), "c" + bytes.substr(0, 1));
}

TEST_F(SequenceTest, EosEndsTheTextAndReleasesWhatWasHeld) {
  Sequence s = make(100, 64, {"END"});
  EXPECT_EQ(feed(s, {id("E")}), (Texts{""}));  // may start "END"
  const SequenceStep& st = s.step(row(eos).data());
  EXPECT_EQ(st.token, -1);  // eos is not appended
  EXPECT_EQ(st.text, "E");
  EXPECT_TRUE(st.finished);
  EXPECT_EQ(s.stop_reason(), StopReason::eos);
  EXPECT_STREQ(finish_reason(s.stop_reason()), "stop");
  EXPECT_EQ(s.tokens(), (std::vector<int>{id("x"), id("y"), id("E")}));
  EXPECT_EQ(s.generated(), 1);
  EXPECT_EQ(s.sampled(), 2);  // eos was sampled, not generated
}

TEST_F(SequenceTest, IgnoreEosGeneratesItLikeAnyToken) {
  SequenceOptions o;
  o.max_new_tokens = 3, o.context = 64, o.ignore_eos = true, o.sampler.temperature = 0;
  Sequence s(tok, V, bytes_of("xy"), o);
  const SequenceStep& st = s.step(row(eos).data());
  EXPECT_EQ(st.token, eos);
  EXPECT_EQ(st.text, "<|endoftext|>");  // the special token's bytes, as decode gives them
  EXPECT_FALSE(st.finished);
  EXPECT_EQ(feed(s, {eos, id("a")}), (Texts{"<|endoftext|>", "a"}));
  EXPECT_EQ(s.stop_reason(), StopReason::max_new_tokens);
  EXPECT_EQ(s.text(), "<|endoftext|><|endoftext|>a");
}

TEST_F(SequenceTest, StopTokenIdsEndTheTextAsEosDoes) {
  // A chat template's end of turn (e.g. <|eot_id|>): here the byte "Z".
  SequenceOptions o;
  o.max_new_tokens = 10, o.context = 64, o.sampler.temperature = 0, o.stop_token_ids = {id("Z")};
  Sequence s(tok, V, bytes_of("xy"), o);
  EXPECT_EQ(feed(s, {id("a"), id("Z")}), (Texts{"a", ""}));
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.stop_reason(), StopReason::eos);
  EXPECT_EQ(s.tokens(), (std::vector<int>{id("x"), id("y"), id("a")}));  // "Z" is not appended
  o.ignore_eos = true;  // generated like any other token, as <|endoftext|> is
  Sequence t(tok, V, bytes_of("xy"), o);
  EXPECT_EQ(feed(t, {id("Z"), id("a")}), (Texts{"Z", "a"}));
  EXPECT_FALSE(t.finished());
}

TEST_F(SequenceTest, MaxNewTokensAndZero) {
  Sequence s = make(3, 64);
  EXPECT_EQ(feed(s, bytes_of("ab")), (Texts{"a", "b"}));
  EXPECT_FALSE(s.finished());
  EXPECT_TRUE(s.step(row(id("c")).data()).finished);
  EXPECT_EQ(s.stop_reason(), StopReason::max_new_tokens);
  EXPECT_STREQ(finish_reason(s.stop_reason()), "length");
  EXPECT_EQ(s.text(), "abc");

  Sequence none = make(0, 64);  // nothing to generate: finished before any logits
  EXPECT_TRUE(none.finished());
  EXPECT_EQ(none.stop_reason(), StopReason::max_new_tokens);
  EXPECT_EQ(none.step(nullptr).token, -1);
  EXPECT_EQ(none.sampled(), 0);
}

TEST_F(SequenceTest, ContextFullAndWhichLimitComesFirst) {
  Sequence s = make(10, 6, {}, bytes_of("wxyz"));  // 4 prompt tokens, room for 2
  EXPECT_EQ(feed(s, bytes_of("ab")), (Texts{"a", "b"}));
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.stop_reason(), StopReason::context_full);
  EXPECT_STREQ(finish_reason(s.stop_reason()), "length");
  EXPECT_EQ(s.tokens().size(), 6u);

  Sequence full = make(10, 4, {}, bytes_of("wxyz"));  // the prompt fills the context
  EXPECT_TRUE(full.finished());
  EXPECT_EQ(full.stop_reason(), StopReason::context_full);

  Sequence both = make(2, 6, {}, bytes_of("wxyz"));  // both limits at the same token:
  feed(both, bytes_of("ab"));                        // max_new_tokens is checked first
  EXPECT_EQ(both.stop_reason(), StopReason::max_new_tokens);

  Sequence stop = make(2, 6, {"b"}, bytes_of("wxyz"));  // and a stop string before both
  feed(stop, bytes_of("ab"));
  EXPECT_EQ(stop.stop_reason(), StopReason::stop_string);
  EXPECT_EQ(stop.text(), "a");
}

TEST_F(SequenceTest, Utf8CharacterHeldBackUntilComplete) {
  Sequence s = make(100, 64);
  // é = C3 A9, 😀 = F0 9F 98 80, one byte per token.
  EXPECT_EQ(feed(s, bytes_of("\xC3\xA9\xF0\x9F\x98\x80")), (Texts{"", "\xC3\xA9", "", "", "", "\xF0\x9F\x98\x80"}));
  EXPECT_EQ(s.text(), "é😀");
  // A text that ends inside a character releases its bytes at the end (as decode gives them).
  Sequence cut = make(2, 64);
  EXPECT_EQ(feed(cut, bytes_of("a\xE2")), (Texts{"a", "\xE2"}));
  EXPECT_EQ(cut.stop_reason(), StopReason::max_new_tokens);
}

TEST_F(SequenceTest, LogprobsOfTheRawRowWhileThePenaltyChangesTheChoice) {
  SequenceOptions o;
  o.max_new_tokens = 4, o.context = 64, o.logprobs = 2;
  o.sampler.temperature = 0, o.sampler.repetition_penalty = 2.0;
  const int a = id("x"), b = id("q");  // a is in the prompt: the penalty halves its logit
  Sequence s(tok, V, bytes_of("xy"), o);
  std::vector<float> r((size_t)V, 0.0f);
  r[(size_t)a] = 3.0f, r[(size_t)b] = 2.0f;
  const std::vector<float> before = r;
  const SequenceStep& st = s.step(r.data());
  EXPECT_EQ(st.token, b);  // 3 / 2 = 1.5 < 2
  EXPECT_EQ(r, before);    // the caller's row is only read
  ASSERT_EQ(st.logprobs.size(), 1u);
  // log_softmax of the raw row: log p_i = l_i - log(e^3 + e^2 + (V - 2) e^0). Both sums of V
  // positive terms are in double, in different orders: relative error <= V * 2^-53 ~ 3.3e-14
  // each, so their logs differ by less than 1e-12.
  const double lse = std::log(std::exp(3.0) + std::exp(2.0) + (V - 2));
  const TokenLogprob& lp = st.logprobs[0];
  EXPECT_EQ(lp.token, b);
  EXPECT_NEAR(lp.logprob, 2.0 - lse, 1e-12);
  ASSERT_EQ(lp.top.size(), 2u);
  EXPECT_EQ(lp.top[0].first, a);
  EXPECT_NEAR(lp.top[0].second, 3.0 - lse, 1e-12);
  EXPECT_EQ(lp.top[1].first, b);
  EXPECT_NEAR(lp.top[1].second, 2.0 - lse, 1e-12);
  // No log-probs for eos that ends the text, nor without logprobs.
  EXPECT_TRUE(s.step(row(eos).data()).logprobs.empty());
  Sequence plain = make(4, 64);
  EXPECT_TRUE(plain.step(row(a).data()).logprobs.empty());
}

TEST_F(SequenceTest, BadInputThrowsNamingTheField) {
  auto refused = [&](const std::string& field, auto edit, std::vector<int> prompt) {
    SequenceOptions o;
    o.context = 8;
    edit(o);
    try {
      Sequence s(tok, V, std::move(prompt), o);
      ADD_FAILURE() << "accepted; expected an error naming " << field;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  const std::vector<int> ok = bytes_of("xy");
  refused("max_new_tokens", [](SequenceOptions& o) { o.max_new_tokens = -1; }, ok);
  refused("stop string", [](SequenceOptions& o) { o.stop = {"a", ""}; }, ok);
  refused("logprobs", [](SequenceOptions& o) { o.logprobs = -2; }, ok);
  refused("temperature", [](SequenceOptions& o) { o.sampler.temperature = -1; }, ok);
  refused("prompt is empty", [](SequenceOptions&) {}, {});
  refused("context of 8", [](SequenceOptions&) {}, bytes_of("abcdefghi"));
  refused("vocab_size", [](SequenceOptions&) {}, {V});
  Sequence s = make(4, 64);
  EXPECT_THROW(s.step(nullptr), Error);  // not finished: the row is needed
}

}  // namespace
