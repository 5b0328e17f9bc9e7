// Makes a random-init llm0 checkpoint (F32 model.safetensors, untied lm_head) emit only complete
// UTF-8 text under greedy decoding: the lm_head rows of every token whose bytes are not a complete,
// well-formed UTF-8 string (a lone byte of a multi-byte character, a merge that splits one) and of
// the special tokens become zero, so their logit is exactly 0 while the largest of the ~4,000
// random logits of the other tokens is positive. llama.cpp's llama-server refuses a completion
// whose text is not valid UTF-8 ("does not match the expected Content-only format"), so the
// serving benchmark needs such a model. Token bytes come from tokenizer.json (GPT-2 byte-level
// alphabet). In place (a .tmp file, then renamed).
// Usage: node mask_partial_utf8.mjs CHECKPOINT_DIR
import {readFileSync, writeFileSync, renameSync} from "node:fs";
import {join} from "node:path";

const dir = process.argv[2];
if (!dir) { console.error("usage: node mask_partial_utf8.mjs CHECKPOINT_DIR"); process.exit(1); }
// GPT-2's bytes_to_unicode: printable bytes map to themselves, the others to 256 + n.
const byteOf = new Map();
let n = 0;
for (let b = 0; b < 256; b++) {
  const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  byteOf.set(String.fromCodePoint(printable ? b : 256 + n++), b);
}
const tok = JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8"));
const utf8 = new TextDecoder("utf-8", {fatal: true});
const masked = new Set((tok.added_tokens ?? []).map((t) => t.id));
for (const [text, id] of Object.entries(tok.model.vocab)) {
  const bytes = Uint8Array.from([...text].map((c) => byteOf.get(c)));
  try { utf8.decode(bytes); } catch { masked.add(id); }
}
const path = join(dir, "model.safetensors");
const buf = readFileSync(path);
const headerLen = Number(buf.readBigUInt64LE(0));
const header = JSON.parse(buf.subarray(8, 8 + headerLen).toString("utf8"));
const t = header["lm_head.weight"];
if (!t || t.dtype !== "F32") throw new Error(`${path}: no F32 lm_head.weight (a tied or BF16 checkpoint)`);
const [V, C] = t.shape, start = 8 + headerLen + t.data_offsets[0];
for (const id of masked) if (id < V) buf.fill(0, start + id * C * 4, start + (id + 1) * C * 4);
writeFileSync(path + ".tmp", buf);
renameSync(path + ".tmp", path);
console.log(`zeroed ${masked.size} of ${V} lm_head rows in ${path}`);
