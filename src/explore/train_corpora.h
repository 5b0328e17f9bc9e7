// The corpora a page-started run trains on, each prepared into its directory of the runs directory
// exactly as `make run` prepares it (scripts/prepare_corpus.sh SOURCE DIR LLM0, the script
// scripts/main_job.sh calls): fortunes-zh into RUNS/corpus, chinese-poetry into RUNS/corpus-poetry.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::explore {

/// The corpus sources, fortunes-zh first.
const std::vector<std::string>& corpus_sources();

/// RUNS/corpus for fortunes-zh, RUNS/corpus-poetry for chinese-poetry. Throws ExploreError 400
/// `bad_param` (data {"param": param}) for another source, listing them.
std::string corpus_dir(const std::string& runs_dir, const std::string& source,
                       const std::string& param = "corpus");

/// DIR holds train.jsonl and validation.jsonl.
bool corpus_ready(const std::string& dir);

/// The corpus a request that names none uses (GET train's defaults.corpus): chinese-poetry — make
/// run's corpus — when RUNS/corpus-poetry is ready, else fortunes-zh (ready, or the one a button
/// prepares in a second from a Debian package, where chinese-poetry is an 83 MB download).
std::string default_corpus(const std::string& runs_dir);

/// {"source", "dir", "ready", and when ready "documents", "characters" (Unicode characters of the
/// documents' text)} per source (GET /explore/api/train "corpora"). The counts are read once per
/// version of the files (their size and time), since a large corpus takes a while to count.
nlohmann::json corpora_json(const std::string& runs_dir);

/// argv of the preparation: {"bash", SCRIPT, SOURCE, DIR, LLM0} (SCRIPT found as a shipped file).
std::vector<std::string> prepare_corpus_argv(const std::string& source, const std::string& dir,
                                             const std::string& llm0);

}  // namespace llm0::explore
