// Multiplies every F32 weight matrix of an llm0 checkpoint's model.safetensors by a factor, in
// place (written to a .tmp file, then renamed). Norm weights are left alone. A random init
// (std 0.02) gives nearly uniform next-token distributions, so greedy decoding degenerates into
// repeats and near-ties; scaled-up weights give peaked, varied distributions, which makes a
// parity check of greedy ids meaningful. Format: 8-byte little-endian header length, JSON header
// {name: {dtype, shape, data_offsets}}, data section.
// Usage: node scale_weights.mjs CHECKPOINT_DIR FACTOR
import {readFileSync, writeFileSync, renameSync} from "node:fs";
import {join} from "node:path";

const [dir, factorArg] = process.argv.slice(2);
const factor = Number(factorArg);
if (dir == null || !(factor > 0)) {
    console.error("usage: node scale_weights.mjs CHECKPOINT_DIR FACTOR");
    process.exit(1);
}
const path = join(dir, "model.safetensors");
const buf = readFileSync(path);
const headerLen = Number(buf.readBigUInt64LE(0));
const header = JSON.parse(buf.subarray(8, 8 + headerLen).toString("utf8"));
const dataStart = 8 + headerLen;
let scaled = 0;
for (const [name, t] of Object.entries(header)) {
    if (name === "__metadata__" || t.shape.length < 2 || name.includes("norm")) continue;
    if (t.dtype !== "F32") throw new Error(`${path}: ${name} is ${t.dtype}, only F32 is scaled`);
    const [begin, end] = t.data_offsets;
    for (let off = dataStart + begin; off < dataStart + end; off += 4)
        buf.writeFloatLE(buf.readFloatLE(off) * factor, off);
    scaled++;
}
writeFileSync(path + ".tmp", buf);
renameSync(path + ".tmp", path);
console.log(`scaled ${scaled} tensors of ${path} by ${factor}`);
