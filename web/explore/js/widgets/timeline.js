// The lineage of attention as two timelines (course, "注意力的演进"): how a token takes
// information from others (RNN → Bahdanau → Q/K/V → scaling → mask → RoPE → heads → sinks), with
// the teaching world's figures from GET lesson/attention; and how K/V got smaller during
// generation (KV cache → MQA → GQA → MLA → linear/hybrid), with bytes per token computed by
// `llm0 kv` from configs/reference (GET kv/reference/NAME). Each entry: what it solved, where it
// got stuck, and its numbers.
(function (x) {
  "use strict";
  var CTX = 262144, ANCHOR = "course-anchor-hybrid";

  function entry(id, key, numbers) {
    return x.el("li", {id: "tl-" + id},
      x.el("div", {class: "era", text: x.t("tl." + key + ".era")}),
      x.el("h3", {text: x.t("tl." + key + ".name")}),
      x.el("p", null, x.el("strong", {text: x.t("tl.solved")}), " ", x.t("tl." + key + ".solved")),
      numbers,
      x.el("p", null, x.el("strong", {text: x.t("tl.stuck")}), " ", x.t("tl." + key + ".stuck")));
  }
  // A numbers line filled when its request answers; an error stays inside the line.
  function numbers(promise, text) {
    var p = x.el("p", {class: "num-line", text: x.t("loading")});
    promise.then(function (d) { p.textContent = ""; p.appendChild(x.el("span", {class: "num", text: text(d)})); },
                 function (e) { p.textContent = x.t("err.prefix") + e.message; p.className = "panel-error"; });
    return p;
  }
  var pct = function (v) { return x.fmtPct(v); };

  x.widgets = x.widgets || {};
  x.widgets.timelineTraining = function (parent, info) {
    var panel = x.panel(parent, {id: "timeline-training", title: "tl.training.title", intro: "tl.training.intro",
      provenance: "tl.training.prov", command: "llm0 lesson attention"});
    var asker = info.default_asker;
    var a = x.api("lesson/attention", {asker: asker});
    var f = function (fn) { return numbers(a, function (d) { return fn(d.figures, d); }); };
    panel.body.appendChild(x.el("ol", {class: "timeline"},
      entry("rnn", "rnn", null),
      entry("bahdanau", "bahdanau", null),
      entry("qkv", "qkv", f(function (g, d) {
        return x.t("tl.qkv.num", {asker: asker, emb: g.by_embedding_cosine.map(function (e) { return e.token; }).join(" > "),
          qk: g.by_qk_score.map(function (e) { return e.token; }).join(" > "), ck: d.swap_test.cos_k.toFixed(3)});
      })),
      entry("scale", "scale", f(function (g, d) {
        return x.t("tl.scale.num", {asker: asker, p: pct(g.unmasked[g.unmasked.length - 1]), who: d.tokens[d.tokens.length - 1]});
      })),
      entry("mask", "mask", f(function (g) { return x.t("tl.mask.num", {asker: asker, a: pct(g.causal[2]), b: pct(g.causal[0])}); })),
      entry("rope", "rope", null),
      entry("heads", "heads", f(function (g) {
        return g.split.map(function (s) { return x.t("tl.heads.num", {h: s.head, p: pct(s.weight), tok: s.token}); }).join("; ");
      })),
      entry("sinks", "sinks", f(function (g) {
        return x.t("tl.sinks.num", {row: g.sink_row.row, s: g.sink_row.scores.map(function (v) { return v.toFixed(2); }).join(", "),
          w: g.sink_row.weights.map(function (v) { return x.fmtPct(v, 0); }).join(" / ")});
      }))));
  };

  x.widgets.timelineCache = function (parent) {
    var panel = x.panel(parent, {id: "timeline-cache", title: "tl.cache.title", intro: "tl.cache.intro",
      provenance: "tl.cache.prov", command: "llm0 kv configs/reference/*.json"});
    var kv = function (name, params) { return x.api("kv/reference/" + name, params); };
    var per = function (d) {
      return x.t("tl.perToken", {name: d.source.replace(/^.*\//, "").replace(/\.json$/, ""), b: x.fmtInt(x.ledgerBytes(d, "kv_bytes_per_token")),
                                  kib: x.fmtBytes(x.ledgerBytes(d, "kv_bytes_per_token")), n: x.fmtInt(d.context), at: x.fmtBytes(x.ledgerBytes(d, "kv_bytes_at_context"))});
    };
    var both = function (a, b) { return Promise.all([a, b]); };
    panel.body.appendChild(x.el("ol", {class: "timeline"},
      entry("kv", "kvc", numbers(kv(ANCHOR, {as: "mha", context: CTX}), per)),
      entry("mqa", "mqa", numbers(kv(ANCHOR, {as: "mqa", context: CTX}), per)),
      entry("gqa", "gqa", numbers(both(kv(ANCHOR, {context: CTX}), kv("deepseek-llm-67b", {})), function (r) {
        return per(r[0]) + "  ·  " + per(r[1]);
      })),
      entry("mla", "mla", numbers(both(kv("deepseek-v2", {}), kv("deepseek-v3", {})), function (r) {
        return per(r[0]) + "  ·  " + per(r[1]);
      })),
      entry("linear", "linear", numbers(both(kv(ANCHOR, {context: CTX}), kv("qwen3-next-80b-a3b", {})), function (r) {
        return x.t("tl.linear.num", {layers: r[0].layers.linear_attention, state: x.fmtBytes(x.ledgerBytes(r[0], "fixed_state_bytes"))}) +
               "  ·  " + per(r[1]);
      }))));
  };
})(window.llm0x = window.llm0x || {});
