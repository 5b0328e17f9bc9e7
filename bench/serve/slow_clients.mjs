// The slow-client attack on `llm0 serve` (issue 17's review; docs/serve.md "Connections and slow
// clients"): CLIENTS connections each send a request line, then one header line every EVERY ms and
// never the blank line that ends the headers (with --reconnect, a dropped one connects again);
// meanwhile GET /health every 500 ms and a 4-token completion every 2 s go out on fresh
// connections, each timed (10 s limit). Prints one JSON line: the probes' statuses, median and
// max milliseconds, and how the slow connections ended (status of the reply, or "closed" without
// one, or "open" at the end) and when the last of them was gone.
//   node bench/serve/slow_clients.mjs PORT [--clients 300] [--seconds 40] [--every 1000] [--reconnect]
import net from "node:net";

const args = process.argv.slice(2);
const port = Number(args[0]);
const opt = (name, dflt) => { const i = args.indexOf(name); return i < 0 ? dflt : Number(args[i + 1]); };
const clients = opt("--clients", 300), seconds = opt("--seconds", 40), every = opt("--every", 1000);
const reconnect = args.includes("--reconnect");
if (!port) {
  console.error("usage: node slow_clients.mjs PORT [--clients N] [--seconds S] [--every MS] [--reconnect]");
  process.exit(2);
}
const t0 = Date.now(), end = t0 + seconds * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One slow client; resolves {status: "408" | ... | "closed" | "open", at: ms since start}.
function slow(id) {
  return new Promise((resolve) => {
    const sock = net.connect(port, "127.0.0.1");
    let data = "", timer = null, line = 0, settled = false;
    const done = (status) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      sock.destroy();
      resolve({status, at: Date.now() - t0});
    };
    sock.on("connect", () => {
      sock.write("POST /v1/completions HTTP/1.1\r\nHost: x\r\n");
      timer = setInterval(() => {
        if (Date.now() >= end) return done("open");
        sock.write(`X-Slow-${id}-${line++}: ${"a".repeat(20)}\r\n`);
      }, every);
    });
    sock.on("data", (d) => { data += d; });
    sock.on("error", () => {});
    sock.on("close", () => done((data.match(/^HTTP\/1\.1 (\d+)/) || [])[1] || "closed"));
  });
}

// A request on a fresh connection: {status, ms} (status "timeout" after 10 s, "error" if refused).
function probe(method, path, body) {
  return new Promise((resolve) => {
    const t = performance.now();
    const sock = net.connect(port, "127.0.0.1");
    const payload = body ? JSON.stringify(body) : "";
    let data = "";
    const timer = setTimeout(() => { sock.destroy(); resolve({status: "timeout", ms: 10000}); }, 10000);
    sock.on("connect", () => sock.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
      (body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` : "") + `\r\n${payload}`));
    sock.on("data", (d) => { data += d; });
    sock.on("error", () => {});
    sock.on("close", () => {
      clearTimeout(timer);
      resolve({status: (data.match(/^HTTP\/1\.1 (\d+)/) || [])[1] || "error", ms: performance.now() - t});
    });
  });
}

function summary(results) {
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const statuses = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] || 0) + 1;
  return {n: results.length, statuses, median_ms: +ms[Math.floor(ms.length / 2)].toFixed(1), max_ms: +ms[ms.length - 1].toFixed(1)};
}

const ends = [];
const attackers = [];
for (let i = 0; i < clients; i++) {
  attackers.push((async () => {
    for (let k = 0; ; k++) {
      const r = await slow(`${i}.${k}`);
      ends.push(r);
      if (!reconnect || r.status === "open" || Date.now() >= end) return;
    }
  })());
  if (i % 50 === 49) await sleep(10);  // a burst, as fast as the loop connects
}
const health = [], completion = [];
const probes = (async () => {
  await sleep(2000);  // the attack is established
  let n = 0;
  while (Date.now() < end - 1000) {
    const jobs = [probe("GET", "/health").then((r) => health.push(r))];
    if (n++ % 4 === 0)
      jobs.push(probe("POST", "/v1/completions", {prompt: "The cat", max_tokens: 4, temperature: 0}).then((r) => completion.push(r)));
    await Promise.all([...jobs, sleep(500)]);
  }
})();
await Promise.all([probes, ...attackers]);
const slowStatuses = {};
for (const e of ends) slowStatuses[e.status] = (slowStatuses[e.status] || 0) + 1;
const gone = ends.filter((e) => e.status !== "open").map((e) => e.at);
console.log(JSON.stringify({clients, seconds, every_ms: every, reconnect, health: summary(health),
                            completion: summary(completion), slow_connections: ends.length, slow_ended: slowStatuses,
                            last_slow_gone_s: gone.length ? +(Math.max(...gone) / 1000).toFixed(2) : null}));
process.exit(0);
