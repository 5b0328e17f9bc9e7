// Running the `llm0` program (LLM0_CLI) from a test: stdout captured through a pipe, stderr
// through a file, the exit status decoded. Shared by the CLI tests.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace llm0::testing_fixtures {

/// What one command printed and returned (rc -1: it could not be started or did not exit).
struct CmdOut {
  int rc = -1;
  std::string out, err;
};

/// The whole file as bytes ("" if unreadable).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// `s` in POSIX shell single quotes.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `env LLM0_CLI args` in a shell (env: variable assignments, may be empty); stderr goes
/// through `err_file`.
inline CmdOut run_cli(const std::string& args, const std::filesystem::path& err_file,
                      const std::string& env = "") {
  const std::string cmd = env + " " + std::string(LLM0_CLI) + " " + args + " 2>" + quote(err_file.string());
  CmdOut r;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) r.out.append(buf, n);
  const int status = pclose(f);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_file);
  return r;
}

}  // namespace llm0::testing_fixtures
