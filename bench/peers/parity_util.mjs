// Shared by the parity comparisons (compare_parity.mjs, compare_quant.mjs): llm0's logits file, a
// float32 C-order .npy of shape [T, V] (`llm0 forward --output`) with rows widened to float64, a
// log-softmax in float64, and the two engines' greedy ids with the first step where they differ.
import {readFileSync} from "node:fs";

// {shape: [T, V], row(t) -> Float64Array(V)}. Throws on anything but little-endian float32
// C-order rank 2.
export function readNpy(path) {
    const b = readFileSync(path);
    if (b.toString("latin1", 1, 6) !== "NUMPY") throw new Error(`${path}: not a .npy file`);
    const major = b[6];
    const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
    const start = (major === 1 ? 10 : 12) + hlen;
    const header = b.toString("latin1", major === 1 ? 10 : 12, start);
    if (!header.includes("'<f4'") || header.includes("'fortran_order': True"))
        throw new Error(`${path}: expected little-endian float32 C-order, got ${header}`);
    const shape = header.match(/\((\d+),\s*(\d+)\)/).slice(1).map(Number);
    const V = shape[1];
    const row = (t) => {
        const r = new Float64Array(V);
        for (let v = 0; v < V; v++) r[v] = b.readFloatLE(start + 4 * (t * V + v));
        return r;
    };
    return {shape, row};
}

// log(softmax(x)) in float64.
export function logSoftmax(x) {
    let max = -Infinity;
    for (const v of x) max = Math.max(max, v);
    let sum = 0;
    for (const v of x) sum += Math.exp(v - max);
    const lse = max + Math.log(sum);
    return x.map((v) => v - lse);
}

// The two runs' JSON (llm0 `generate --json`, parity.mjs), their first N greedy ids a and b, and
// the first index where those differ (-1 when identical, a shorter run differing at its end).
export function readGreedyPair(llm0Path, llamaPath, N) {
    const ours = JSON.parse(readFileSync(llm0Path, "utf8"));
    const theirs = JSON.parse(readFileSync(llamaPath, "utf8"));
    const a = ours.generated_ids.slice(0, N), b = theirs.generated_ids.slice(0, N);
    let firstDiff = -1;
    for (let i = 0; i < Math.max(a.length, b.length); i++)
        if (a[i] !== b[i]) { firstDiff = i; break; }
    return {ours, theirs, a, b, firstDiff};
}
