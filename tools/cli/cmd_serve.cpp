// `llm0 serve --model RUN [--host 127.0.0.1] [--port 8080] [--max-batch N] [--kv-pages N |
// --kv-memory MiB] [--page-size 16] [--max-connections N] [--request-timeout 30] [...]`: an OpenAI-compatible HTTP server (src/serve/) with
// continuous batching over a paged KV cache. Loopback by default. Prints one line
// "llm0 serve: listening on http://HOST:PORT ..." on stderr once it accepts connections (with
// --port 0 the system picks a free port and the line tells which); SIGINT / SIGTERM stop it.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <pthread.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "chat/chat_template.h"
#include "common.h"
#include "stop_signals.h"
#include "core/check.h"
#include "infer/generator_io.h"
#include "explore/explore_http.h"
#include "serve/batch_engine.h"
#include "serve/http_server.h"
#include "serve/prepare_request.h"
#include "serve/scheduler.h"

namespace llm0::cli {

// Upper bounds of the size flags: each connection is an HTTP thread started up front (a much
// larger count fails to start threads), and the default KV pool is max-batch full contexts.
constexpr int kMaxBatch = 4096, kMaxQueue = 65536, kMaxConnections = 4096;

namespace {

struct ServeArgs {
  std::string model, model_name;
  serve::HttpServerOptions http;
  serve::SchedulerOptions sched;
  BatchEngineOptions pool;
  int kv_pages = 0;
  double kv_memory_mib = 0;
  double max_body_mib = 4;
  bool no_prefix_cache = false;
  InferDtypes dtypes;
  ServeArgs() { http.limits.max_connections = 0; }  // 0: from max-batch and max-queue
};

// This machine's memory in MiB (0 if unknown).
double machine_mib() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (double)pages * (double)page / (1024.0 * 1024.0) : 0;
}

constexpr double kMiB = 1024.0 * 1024.0;

// A size in MiB for messages: whole MiB from 1024 up (8388608, not 8.38861e+06).
std::string mib_text(double mib) { return mib < 1024 ? format("{}", mib) : format("{}", (long long)std::llround(mib)); }

// The KV pool as the messages name it: the flag that sized it with its value, its size in MiB,
// and what to change when it does not fit.
struct PoolSize {
  std::string said, remedy;
  double mib = 0;
};

// Sets a.pool's page count (or memory size) from --kv-pages, --kv-memory or the default
// (--max-batch full contexts). Throws llm0::Error naming the flag for a --page-size above the
// context or a --kv-memory smaller than one page.
PoolSize size_pool(ServeArgs& a, const Model& model, bool pages_given, bool memory_given) {
  const ModelConfig& c = model.config();
  const int ps = a.pool.page_size, ctx = c.max_position_embeddings;
  LLM0_CHECK(ps <= ctx, "--page-size {} must be in [1, max_position_embeddings={}]", ps, ctx);
  const double page = (double)BatchEngine::page_bytes(model, ps);
  if (memory_given) {
    LLM0_CHECK(a.kv_memory_mib * kMiB >= page, "--kv-memory {} MiB is less than one KV page ({} tokens, {} bytes = {} MiB)",
               a.kv_memory_mib, ps, (long long)page, page / kMiB);
    a.pool.num_pages = 0;  // the bytes are set once they are known to fit
    return {format("--kv-memory {} MiB", a.kv_memory_mib), "; lower --kv-memory", a.kv_memory_mib};
  }
  if (pages_given) {
    a.pool.num_pages = a.kv_pages;
    const double mib = a.kv_pages * page / kMiB;
    return {format("--kv-pages {} ({} MiB)", a.kv_pages, mib_text(mib)), "; lower --kv-pages", mib};
  }
  const long long pages = (long long)a.sched.max_batch * ((ctx + ps - 1) / ps);  // every slot holds a full context
  const double mib = (double)pages * page / kMiB;
  PoolSize size{format("--max-batch {}: the default KV pool ({} full contexts of {} tokens = {} pages, {} MiB)",
                       a.sched.max_batch, a.sched.max_batch, ctx, pages, mib_text(mib)),
                "; lower --max-batch or set --kv-pages / --kv-memory", mib};
  LLM0_CHECK(pages <= (1LL << 30), "{} is more than 2^30 pages{}", size.said, size.remedy);
  a.pool.num_pages = (int)pages;
  return size;
}

// The engine, or an error naming the flag that sized its pool (size_pool) and the limit: the pool
// must fit in this machine's memory (and in 2^30 pages).
std::unique_ptr<BatchEngine> make_engine(Model& model, ServeArgs& a, bool pages_given, bool memory_given) {
  const PoolSize size = size_pool(a, model, pages_given, memory_given);
  const double mib = machine_mib();
  LLM0_CHECK(mib == 0 || size.mib <= mib, "{} is more than this machine's memory ({} MiB){}",
             size.said, (long long)mib, size.remedy);
  if (memory_given) a.pool.kv_memory_bytes = (size_t)std::min(a.kv_memory_mib * kMiB, 0x1p62);
  try {
    return std::make_unique<BatchEngine>(model, a.pool);
  } catch (const Error& e) {
    LLM0_FAIL("{}: {}{}", size.said, e.what(), size.remedy);
  }
}

// The served model's name: --model-name, else the last component of --model ("runs/small" -> small).
std::string model_id(const ServeArgs& a) {
  if (!a.model_name.empty()) return a.model_name;
  std::filesystem::path p(a.model);
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

void run_serve(ServeArgs& a, bool pages_given, bool memory_given, bool name_given) {
  LLM0_CHECK(!(pages_given && memory_given), "give --kv-pages or --kv-memory, not both");
  LLM0_CHECK(!name_given || !a.model_name.empty(), "--model-name must not be empty (leave it out to use the "
             "--model folder's name)");
  LLM0_CHECK(std::none_of(a.model_name.begin(), a.model_name.end(), [](char ch) { return (unsigned char)ch < 0x20 || ch == 0x7f; }),
             "--model-name must not contain control characters");
  LLM0_CHECK(a.http.limits.request_timeout_s <= 86400, "--request-timeout must be at most 86400 seconds (a day), got {}",
             a.http.limits.request_timeout_s);
  LLM0_CHECK(a.http.limits.read_timeout_s <= 86400, "--read-timeout must be at most 86400 seconds (a day), got {}",
             a.http.limits.read_timeout_s);
  GenerationModel gm = load_generation_model(a.model);
  apply_infer_dtypes(*gm.model, a.dtypes, gm.stored);
  // The model's own chat template (tokenizer_config.json / chat_template.jinja), else the plain one.
  const std::optional<chat::ChatTemplate> own_template = chat::load_chat_template(gm.dir);
  if (own_template) {
    a.http.chat_template = &*own_template;
    a.http.chat_stop_ids = serve::chat_stop_token_ids(*own_template, *gm.tokenizer, gm.model->config());
  }
  a.pool.prefix_cache = !a.no_prefix_cache;
  const std::unique_ptr<BatchEngine> pool = make_engine(*gm.model, a, pages_given, memory_given);
  BatchEngine& engine = *pool;
  serve::Metrics metrics;
  // Signals go to one waiting thread (blocked before the scheduler and HTTP threads start, so
  // they inherit the mask).
  StopSignals signals;
  serve::Scheduler scheduler(engine, *gm.model, *gm.tokenizer, metrics, a.sched);
  a.http.model_id = model_id(a);
  a.http.max_body_bytes = (size_t)(a.max_body_mib * kMiB);
  a.http.page_size = engine.page_size();
  a.http.pages_total = engine.pages_total();
  if (a.http.limits.max_connections == 0)  // every running and queued request, and room for more
    a.http.limits.max_connections = std::min(kMaxConnections, a.sched.max_batch + a.sched.max_queue + 16);
  a.http.limits.write_timeout_s = a.http.limits.read_timeout_s;
  a.http.limits.keep_alive_timeout_s = std::min(5, a.http.limits.read_timeout_s);
  explore::ExploreApi explorer({a.model, "zh"});  // its own copy of the model: lessons run beside the engine
  a.http.extra_routes = [&explorer](serve::ConnectionServer& h) { explore::mount_explore(h, explorer); };
  a.http.extra_body_limits = {{"/explore/", {explore::ExploreLimits::kBodyBytes, ""}}};
  serve::HttpServer server(scheduler, *gm.model, *gm.tokenizer, metrics, a.http);
  const int port = server.bind();
  std::fprintf(stderr, "llm0 serve: listening on http://%s (model %s, %d KV pages of %d tokens, "
               "max batch %d, prefix cache %s)\n", host_port(a.http.host, port).c_str(), a.http.model_id.c_str(),
               engine.pages_total(), engine.page_size(), a.sched.max_batch, engine.prefix_caching() ? "on" : "off");
  std::fprintf(stderr, "llm0 serve: the lessons (llm0 explore) at http://%s/explore/\n",
               host_port(a.http.host, port).c_str());
  std::fflush(stderr);
  signals.serve([&] { server.listen(); }, [&](int sig) {
    std::fprintf(stderr, "llm0 serve: stopping (signal %d)\n", sig);
    scheduler.shutdown();  // open requests end, so their HTTP threads return
    server.stop();
  });
  scheduler.shutdown();
}

}  // namespace

void register_serve(CLI::App& app) {
  auto* cmd = app.add_subcommand("serve", "Serve the model over the OpenAI HTTP API (continuous batching, paged KV cache)");
  static ServeArgs a;
  cmd->add_option("--model", a.model, "Checkpoint directory, or a training run whose checkpoint/ is one")->required();
  cmd->add_option("--model-name", a.model_name, "Name of the model in the API (default: the --model folder's name)");
  cmd->add_option("--host", a.http.host, "Address to listen on (loopback by default; 0.0.0.0 = every interface)")->capture_default_str();
  cmd->add_option("--port", a.http.port, "TCP port (0 = any free port, printed at start)")->check(CLI::Range(0, 65535))->capture_default_str();
  cmd->add_option("--max-batch", a.sched.max_batch, "Sequences decoded together in one step (1 to 4096)")->check(CLI::Range(1, kMaxBatch))->capture_default_str();
  cmd->add_option("--max-queue", a.sched.max_queue, "Requests waiting for admission; more get 429 (1 to 65536)")->check(CLI::Range(1, kMaxQueue))->capture_default_str();
  cmd->add_option("--kv-pages", a.kv_pages, "KV pages in the pool, 1 to 2^30 (default: max-batch full contexts)")
      ->check(CLI::Validator([](std::string& v) -> std::string {
                               const bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
                               if (digits && v.find_first_not_of('0') != std::string::npos &&
                                   (v.size() < 11 && std::stoll(v) <= (1LL << 30)))
                                 return "";
                               return "must be a page count in [1, 2^30 = 1073741824], got " +
                                      (v.size() > 20 ? "a value of " + std::to_string(v.size()) + " characters" : v);
                             }, "N in [1, 2^30]"));
  cmd->add_option("--kv-memory", a.kv_memory_mib, "KV pool size in MiB (instead of --kv-pages; at least one page, at most this machine's memory)")->check(positive_check());
  cmd->add_option("--page-size", a.pool.page_size, "Tokens per KV page (1 to the model's max_position_embeddings)")->check(positive_check())->capture_default_str();
  cmd->add_option("--prefill-chunk", a.sched.prefill_chunk, "Prompt tokens per sequence per step (long prompts do not stall decodes)")
      ->check(positive_check())->capture_default_str();
  cmd->add_option("--step-tokens", a.sched.step_tokens, "Tokens per engine step: decodes first, then prefill chunks")
      ->check(positive_check())->capture_default_str();
  cmd->add_flag("--no-prefix-cache", a.no_prefix_cache, "Do not share the pages of identical prompt prefixes");
  cmd->add_option("--max-body", a.max_body_mib, "Largest request body in MiB (larger: 413), 1/1024 (1 KiB) to 1048576 (1 TiB)")
      ->check(number_in_check(1.0 / 1024, 1048576, "a size in MiB in [0.0009765625, 1048576] (1 KiB to 1 TiB)"))
      ->capture_default_str();
  cmd->add_option("--read-timeout", a.http.limits.read_timeout_s, "Seconds one read or write of a connection may wait (idle keep-alive: at most 5)")
      ->check(positive_check())->capture_default_str();
  cmd->add_option("--request-timeout", a.http.limits.request_timeout_s,
                  "Seconds to receive a request's headers and body (slower clients are dropped; responses are not limited)")
      ->check(positive_check())->capture_default_str();
  cmd->add_option("--max-connections", a.http.limits.max_connections,
                  "Connections served at once, one HTTP thread each; more get 503 server_busy (/health and /metrics "
                  "still answer). 1 to 4096; default: max-batch + max-queue + 16, at most 4096")
      ->check(CLI::Range(1, kMaxConnections));
  add_dtype_options(cmd, a.dtypes);
  add_threads_option(cmd);
  cmd->callback([cmd] {
    run_serve(a, cmd->count("--kv-pages") > 0, cmd->count("--kv-memory") > 0, cmd->count("--model-name") > 0);
  });
}

}  // namespace llm0::cli
