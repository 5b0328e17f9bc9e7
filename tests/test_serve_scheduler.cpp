// The server's scheduler (src/serve/scheduler.h) over the real BatchEngine, without HTTP: six
// requests of different prompt lengths (some sharing a prefix) submitted at once, with 3-token
// prefill chunks and a 5-token step budget, so prompts are read over many steps beside the decodes
// of the others and some steps leave a prompt out. Every greedy text and token count must equal
// the Generator's (its own one-page cache, one sequence); the metrics must add up and every page must
// come back; a cancelled request must end and free its pages. Seeded sampling with log-probs gives
// the Generator's tokens, text and log-probs bitwise (both drive one llm0::Sequence per text).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "generator_fixtures.h"
#include "infer/generator.h"
#include "infer/logprobs.h"
#include "ops/linear_rows.h"
#include "serve/api_error.h"
#include "serve/scheduler.h"

using namespace llm0;
using namespace llm0::serve;
using namespace llm0::testing_fixtures;

namespace {

// Reads a stream to its end: the text (and log-probs, if given), and the end's update.
StreamUpdate drain(RequestStream& out, std::string& text, std::vector<TokenLogprob>* logprobs = nullptr) {
  StreamUpdate u;
  for (;;) {
    if (!out.wait(u, std::chrono::milliseconds(100))) continue;
    text += u.text;
    if (logprobs) logprobs->insert(logprobs->end(), u.logprobs.begin(), u.logprobs.end());
    if (u.finished) return u;
  }
}

// Waits (up to 5 s) until the scheduler's gauges show no open sequence and no page in use.
bool idle(const Metrics& m) {
  for (int i = 0; i < 500; ++i) {
    if (m.running == 0 && m.pages_in_use == 0 && m.queue_length == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class ServeScheduler : public ::testing::Test {
 protected:
  Tokenizer tok = corpus_tokenizer(true);
  std::unique_ptr<Model> model = [&] {
    auto m = std::make_unique<Model>(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
    random_weights(*m, 21, 0.5);
    return m;
  }();
  BatchEngine engine{*model, BatchEngineOptions{4, 120, 0, true}};
  Metrics metrics;
};

TEST_F(ServeScheduler, ConcurrentGreedyEqualsTheGeneratorAndPagesReturn) {
  const std::vector<std::string> texts = {"the cat sat on the mat", "the cat sat on the mat. the dog",
                                          "hello", "the cat sat on the mat. the dog sat on the log",
                                          "café crème", "the cat"};
  std::vector<ServeRequest> reqs;
  for (size_t i = 0; i < texts.size(); ++i) {
    ServeRequest r;
    r.prompt = tok.encode(texts[i]);
    r.max_tokens = 6 + (int)i;
    r.sampler.temperature = 0;
    if (i == 2) r.stop = {"e"};
    reqs.push_back(r);
  }
  std::vector<std::string> got(reqs.size());
  std::vector<StreamUpdate> ends(reqs.size());
  {
    Scheduler sched(engine, *model, tok, metrics, SchedulerOptions{4, 16, 3, 5});
    std::vector<std::shared_ptr<RequestStream>> outs;
    for (const ServeRequest& r : reqs) outs.push_back(sched.submit(r));
    for (size_t i = 0; i < outs.size(); ++i) ends[i] = drain(*outs[i], got[i]);
    ASSERT_TRUE(idle(metrics));
  }
  Generator gen(*model, tok);
  uint64_t prompt_tokens = 0, generated = 0, cached = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    GenerateOptions o;
    o.max_new_tokens = reqs[i].max_tokens;
    o.sampler.temperature = 0;
    o.stop = reqs[i].stop;
    gen.start_ids(reqs[i].prompt, o);
    while (!gen.finished()) gen.next();
    const GenerateResult want = gen.result();
    EXPECT_EQ(got[i], want.text) << texts[i];
    EXPECT_EQ(ends[i].completion_tokens, (int)want.generated_ids.size()) << texts[i];
    EXPECT_EQ(ends[i].prompt_tokens, (int)reqs[i].prompt.size());
    EXPECT_EQ(ends[i].finish_reason, want.stop_reason == StopReason::max_new_tokens ? "length" : "stop");
    EXPECT_TRUE(ends[i].error.empty()) << ends[i].error;
    EXPECT_EQ(ends[i].cached_tokens % 4, 0);
    prompt_tokens += reqs[i].prompt.size(), generated += (uint64_t)ends[i].completion_tokens;
    cached += (uint64_t)ends[i].cached_tokens;
  }
  EXPECT_EQ(metrics.prompt_tokens.load(), prompt_tokens);
  EXPECT_EQ(metrics.generation_tokens.load(), generated);
  EXPECT_EQ(metrics.prefix_cache_hit_tokens.load(), cached);
  EXPECT_EQ(metrics.prefix_cache_hit_tokens.load(), engine.prefix_hit_tokens());
  EXPECT_EQ(metrics.requests[(int)Outcome::stop] + metrics.requests[(int)Outcome::length], reqs.size());
  EXPECT_EQ(engine.pages_in_use(), 0);
  // Every request's first token was timed.
  EXPECT_GT(metrics.steps.load(), 0u);
  const std::string text = metrics.render();
  EXPECT_NE(text.find("llm0_time_to_first_token_seconds_count 6\n"), std::string::npos);
}

// The same request and seed give the same text in `llm0 generate` and the server: six seeded
// requests (temperature, top-k, top-p, min-p, repetition penalty, a stop string, log-probs) run
// concurrently, each equal to the Generator run alone. The Generator's context runs the engine's
// fixed-order kernels (ops/linear_rows.h, its default), where its logits are the engine's bitwise, so
// every draw, token, text piece and log-prob must be identical (EXPECT_EQ on doubles).
TEST_F(ServeScheduler, SeededSamplingEqualsTheGeneratorBitwise) {
  const std::vector<std::string> texts = {"the cat sat on the mat", "hello", "café crème",
                                          "the dog sat on the log", "東京 is", "the cat"};
  std::vector<ServeRequest> reqs;
  for (size_t i = 0; i < texts.size(); ++i) {
    ServeRequest r;
    r.prompt = tok.encode(texts[i]);
    r.max_tokens = 8 + (int)i;
    r.sampler.temperature = 0.8 + 0.1 * (double)i;
    r.sampler.seed = 1 + i;
    r.logprobs = (int)i % 3;
    if (i == 1) r.sampler.top_k = 20;
    if (i == 2) r.sampler.top_p = 0.9;
    if (i == 3) r.sampler.min_p = 0.05;
    if (i == 4) r.sampler.repetition_penalty = 1.3;
    if (i == 5) r.stop = {"e"};
    reqs.push_back(r);
  }
  std::vector<std::string> got(reqs.size());
  std::vector<std::vector<TokenLogprob>> got_lp(reqs.size());
  std::vector<StreamUpdate> ends(reqs.size());
  {
    Scheduler sched(engine, *model, tok, metrics, SchedulerOptions{4, 16, 3, 5});
    std::vector<std::shared_ptr<RequestStream>> outs;
    for (const ServeRequest& r : reqs) outs.push_back(sched.submit(r));
    for (size_t i = 0; i < outs.size(); ++i) ends[i] = drain(*outs[i], got[i], &got_lp[i]);
    ASSERT_TRUE(idle(metrics));
  }
  Generator gen(*model, tok);
  ASSERT_TRUE(gen.context().fixed_order());  // the engine's kernels
  const int V = std::min(model->config().vocab_size, tok.vocab_size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    GenerateOptions o;
    o.max_new_tokens = reqs[i].max_tokens;
    o.sampler = reqs[i].sampler;
    o.stop = reqs[i].stop;
    gen.start_ids(reqs[i].prompt, o);
    std::vector<TokenLogprob> want_lp;
    while (!gen.finished()) {
      const GenerateStep& s = gen.next();
      if (s.token >= 0) want_lp.push_back(token_logprob(gen.last_logits().data(), V, s.token, reqs[i].logprobs));
    }
    const GenerateResult want = gen.result();
    EXPECT_EQ(got[i], want.text) << texts[i];
    EXPECT_EQ(ends[i].completion_tokens, (int)want.generated_ids.size()) << texts[i];
    EXPECT_EQ(ends[i].finish_reason, finish_reason(want.stop_reason)) << texts[i];
    ASSERT_EQ(got_lp[i].size(), want_lp.size()) << texts[i];
    for (size_t k = 0; k < want_lp.size(); ++k) {
      EXPECT_EQ(got_lp[i][k].token, want_lp[k].token) << texts[i] << " token " << k;
      EXPECT_EQ(got_lp[i][k].logprob, want_lp[k].logprob) << texts[i] << " token " << k;
      EXPECT_EQ(got_lp[i][k].top, want_lp[k].top) << texts[i] << " token " << k;
    }
  }
}

TEST_F(ServeScheduler, CancelledRequestEndsAndFreesItsPages) {
  Scheduler sched(engine, *model, tok, metrics, SchedulerOptions{2, 4, 64, 512});
  ServeRequest r;
  r.prompt = tok.encode("the cat sat");
  r.max_tokens = 50;
  r.sampler.temperature = 0;
  r.ignore_eos = true;  // runs its 50 tokens (many steps)
  // The cancel races the scheduler (50 steps of the tiny model take about a millisecond; a busy
  // machine can pause this thread longer): try until one request is cancelled while it runs.
  // Every request ends either way, with its pages back and the outcome counted.
  uint64_t cancelled = 0;
  for (int attempt = 0; attempt < 50 && cancelled == 0; ++attempt) {
    std::shared_ptr<RequestStream> out = sched.submit(r);
    out->cancel();
    std::string text;
    const StreamUpdate end = drain(*out, text);
    if (end.error == "cancelled") {
      EXPECT_LT(end.completion_tokens, 50);
      ++cancelled;
    } else {
      EXPECT_EQ(end.error, "");
      EXPECT_EQ(end.completion_tokens, 50);  // it ran to the end before the cancel came
    }
    ASSERT_TRUE(idle(metrics));
    EXPECT_EQ(metrics.requests[(int)Outcome::cancelled].load(), cancelled);
    EXPECT_EQ(engine.pages_in_use(), 0);
  }
  EXPECT_EQ(cancelled, 1u);
}

TEST_F(ServeScheduler, AFullQueueIsRefusedWith429AndShutdownEndsEverything) {
  auto sched = std::make_unique<Scheduler>(engine, *model, tok, metrics, SchedulerOptions{1, 1, 64, 512});
  ServeRequest r;
  r.prompt = tok.encode("the cat sat");
  r.max_tokens = 50;
  r.sampler.temperature = 0;
  r.ignore_eos = true;  // runs its 50 tokens (many steps)
  std::vector<std::shared_ptr<RequestStream>> outs;
  int refused = 0;
  for (int i = 0; i < 6; ++i) {
    try {
      outs.push_back(sched->submit(r));
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 429);
      EXPECT_EQ(e.code, "queue_full");
      ++refused;
    }
  }
  // At most one running and one waiting at any time; six submitted in a row cannot all fit.
  EXPECT_GE(refused, 1);
  sched->shutdown();
  try {
    sched->submit(r);
    ADD_FAILURE() << "a submit after shutdown was accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 503);
    EXPECT_EQ(e.code, "shutting_down");
  }
  int ended_by_shutdown = 0;
  for (auto& out : outs) {
    std::string text;
    const StreamUpdate end = drain(*out, text);
    EXPECT_TRUE(end.error.empty() || end.error == kShuttingDown) << end.error;
    ended_by_shutdown += end.error == kShuttingDown;
  }
  // Every request is counted once: finished, refused (429) or ended by the shutdown (error).
  auto count = [&](Outcome o) { return (int)metrics.requests[(int)o].load(); };
  EXPECT_EQ(count(Outcome::error), ended_by_shutdown);
  EXPECT_EQ(count(Outcome::rejected), refused);
  EXPECT_EQ(count(Outcome::stop) + count(Outcome::length) + count(Outcome::error), (int)outs.size());
  sched.reset();
  EXPECT_EQ(engine.pages_in_use(), 0);
}

}  // namespace
