// Compares llm0 with llama.cpp for scripts/parity_llamacpp.sh:
//   - greedy ids: llm0's `generate --temperature 0 --json` output vs parity.mjs's generated_ids;
//     the first N must be identical (both stop early only on end-of-generation, at the same step);
//   - first-step log-probabilities: llm0's last-position logits (`llm0 forward` .npy [T, V],
//     log-softmax in double) vs llama.cpp's for the tokens parity.mjs listed, |diff| <= tol.
// Prints one JSON line with the verdict and exits 1 on a mismatch.
// Usage: node compare_parity.mjs LLM0.json LOGITS.npy LLAMA.json [N=64] [TOL=1e-4]
import {readFileSync} from "node:fs";

function readNpyLastRow(path) {
    const b = readFileSync(path);
    if (b.toString("latin1", 1, 6) !== "NUMPY") throw new Error(`${path}: not a .npy file`);
    const major = b[6];
    const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
    const start = (major === 1 ? 10 : 12) + hlen;
    const header = b.toString("latin1", major === 1 ? 10 : 12, start);
    if (!header.includes("'<f4'") || header.includes("'fortran_order': True"))
        throw new Error(`${path}: expected little-endian float32 C-order, got ${header}`);
    const shape = header.match(/\((\d+),\s*(\d+)\)/).slice(1).map(Number);
    const [T, V] = shape;
    const row = new Float64Array(V);
    for (let v = 0; v < V; v++) row[v] = b.readFloatLE(start + 4 * ((T - 1) * V + v));
    return row;
}

function logSoftmax(x) {
    let max = -Infinity;
    for (const v of x) max = Math.max(max, v);
    let sum = 0;
    for (const v of x) sum += Math.exp(v - max);
    const lse = max + Math.log(sum);
    return x.map((v) => v - lse);
}

const [llm0Path, npyPath, llamaPath, nArg, tolArg] = process.argv.slice(2);
const N = Number(nArg ?? 64), tol = Number(tolArg ?? 1e-4);
const ours = JSON.parse(readFileSync(llm0Path, "utf8"));
const theirs = JSON.parse(readFileSync(llamaPath, "utf8"));
const a = ours.generated_ids.slice(0, N), b = theirs.generated_ids.slice(0, N);
let firstDiff = -1;
for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) { firstDiff = i; break; }
const lp = logSoftmax(readNpyLastRow(npyPath));
let maxDiff = 0, worst = null;
for (const {id, logprob} of theirs.first_step) {
    const d = Math.abs(lp[id] - logprob);
    if (d > maxDiff) { maxDiff = d; worst = id; }
}
const top = theirs.first_step[0];
const distinct = new Set(a).size;
const idsOk = firstDiff < 0 && (a.length === N || ours.stop_reason === "eos");
const result = {
    ids_identical: idsOk, compared: a.length, first_difference: firstDiff, distinct_ids: distinct,
    logprob_max_abs_diff: maxDiff, logprob_worst_id: worst, logprobs_compared: theirs.first_step.length,
    top1: {id: top.id, llm0: lp[top.id], llama_cpp: top.logprob},
    pass: idsOk && maxDiff <= tol,
};
if (firstDiff >= 0) result.diverged = {llm0: a.slice(firstDiff, firstDiff + 8), llama_cpp: b.slice(firstDiff, firstDiff + 8)};
console.log(JSON.stringify(result));
process.exit(result.pass ? 0 : 1);
