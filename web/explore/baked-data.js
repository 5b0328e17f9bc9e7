// The numbers of a static export. Served live this stub defines nothing, and every page asks the
// engine; `llm0 explore --export DIR` replaces this file with window.LLM0_BAKED = {key: JSON, ...}
// (keys as in docs/explore-api.md, "Static export and the canonical key").
