// llm0 command-line program: main() registers one subcommand per file in tools/cli/ and turns
// every llm0::Error, command-line mistake (CLI11's ParseError) or other exception into one
// "llm0: error: ..." line on stderr and exit status 1 (under mpirun
// with several ranks: the message names the rank and the whole job is aborted, so no rank hangs).
// The source location of an llm0::Error is printed only under LLM0_DEBUG=1 or in a debug build.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <exception>
#include <string>

#include "common.h"
#include "core/check.h"
#include "core/comm.h"
#include "core/threads.h"
#include "core/version.h"

namespace llm0::cli {

static int g_threads = 0;

int threads_option() { return g_threads; }

void add_threads_option(CLI::App* cmd) {
  cmd->add_option("--threads", g_threads, "Threads for OpenMP loops and OpenBLAS (0 = all cores; at most 1024)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            const std::string range = "must be in [0, " + std::to_string(kMaxThreads) + "] (0 = all cores), got ";
            if (s.rfind('-', 0) == 0) return range + s;
            const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
            if (digits && (s.size() > 9 || std::stol(s) > kMaxThreads))
              return range + (s.size() > 20 ? "a number of " + std::to_string(s.size()) + " digits" : s);
            return "";
          },
          "N in [0, 1024]"));
  cmd->parse_complete_callback([] { llm0::set_num_threads(g_threads); });
}

// Prints `message` as the error and ends the program: exit status 1, or under mpirun with several
// ranks the whole job (the other ranks may wait in a collective), the message naming the rank.
int fail(const std::string& raw) {
  const std::string message = llm0::escape_control(raw);  // e.g. CLI11 quoting an argument
  if (llm0::comm::several_ranks()) {
    std::fprintf(stderr, "llm0: error (rank %d of %d): %s\n", llm0::comm::rank(),
                 llm0::comm::size(), message.c_str());
    std::fflush(stderr);
    llm0::comm::abort(1);
  }
  std::fprintf(stderr, "llm0: error: %s\n", message.c_str());
  llm0::comm::finalize();
  return 1;
}

// One per subcommand file (tools/cli/cmd_<name>.cpp).
void register_forward(CLI::App& app);
void register_train(CLI::App& app);
void register_init(CLI::App& app);
void register_convert(CLI::App& app);
void register_data(CLI::App& app);
void register_eval(CLI::App& app);
void register_kv(CLI::App& app);
void register_params(CLI::App& app);
void register_lesson(CLI::App& app);
void register_tokenizer(CLI::App& app);
void register_generate(CLI::App& app);
void register_export(CLI::App& app);
void register_check(CLI::App& app);
void register_bench(CLI::App& app);
void register_serve(CLI::App& app);
void register_explore(CLI::App& app);

// Source locations are for developers: shown under LLM0_DEBUG=1 or when built without NDEBUG.
bool show_error_location() {
#ifndef NDEBUG
  return true;
#else
  const char* debug = std::getenv("LLM0_DEBUG");
  return debug != nullptr && std::string(debug) == "1";
#endif
}

// "unknown command genrate; did you mean generate?" when argv[1] names no subcommand.
bool unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  const std::string word = argv[1];
  if (std::find(names.begin(), names.end(), word) != names.end()) return false;
  const std::string guess = closest_name(word, names);
  std::fprintf(stderr, "llm0: error: unknown command %s%s%s%s\n", word.c_str(),
               guess.empty() ? "" : "; did you mean ", guess.c_str(), guess.empty() ? "" : "?");
  return true;
}

// A command-line mistake as the rest of the errors read ("llm0: error: ..."), with where to look.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
  std::string help = "llm0";
  for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    help += " " + sub->get_name();
  }
  return std::string(e.what()) + " (see `" + help + " --help`)";
}

}  // namespace llm0::cli

int main(int argc, char** argv) {
  CLI::App app{"llm0: a small LLM engine built from zero (train, generate, measure)"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", llm0::version_text, "The build, this CPU's kernels and OpenBLAS's core");
  llm0::cli::register_forward(app);
  llm0::cli::register_train(app);
  llm0::cli::register_init(app);
  llm0::cli::register_convert(app);
  llm0::cli::register_data(app);
  llm0::cli::register_eval(app);
  llm0::cli::register_kv(app);
  llm0::cli::register_params(app);
  llm0::cli::register_lesson(app);
  llm0::cli::register_tokenizer(app);
  llm0::cli::register_generate(app);
  llm0::cli::register_export(app);
  llm0::cli::register_check(app);
  llm0::cli::register_bench(app);
  llm0::cli::register_serve(app);
  llm0::cli::register_explore(app);
  if (llm0::cli::unknown_command(app, argc, argv)) return 1;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --help-all: printed, status 0
    return llm0::cli::fail(llm0::cli::parse_error_message(app, e));
  } catch (const llm0::Error& e) {
    const bool at = llm0::cli::show_error_location() && !e.where().empty();
    return llm0::cli::fail(at ? e.where() + ": " + e.what() : std::string(e.what()));
  } catch (const std::exception& e) {
    return llm0::cli::fail(e.what());
  }
  llm0::comm::finalize();
  return 0;
}
