// "Cache vs recompute — the same?" (lesson 8): the engine generates greedily with and without the
// KV cache and reports the largest |logit difference| and whether the tokens are identical, on the
// lesson's random model and, when one is loaded, on the learner's model (model=loaded); beside
// them the teaching world's attention outputs computed both ways (lesson/attention's cache_check).
(function (x) {
  "use strict";

  x.widgets = x.widgets || {};
  x.widgets.cacheCheck = function (parent, info) {
    var panel = x.panel(parent, {id: "cache-check", title: "kv.same.title", intro: "kv.same.intro",
      provenance: "kv.same.prov", command: "llm0 lesson kv-cache --prompt-len 2 --generate 3 --up-to 0" +
        (info.model ? " --model " + info.model.name : "")});
    var grid = x.el("div", {class: "two-col"});
    panel.body.appendChild(grid);

    function card(titleKey, params, id) {
      var box = x.el("div", {class: "track", id: id}, x.el("h3", {text: x.t(titleKey)}));
      grid.appendChild(box);
      panel.load(x.api("lesson/kv-cache", params), function (d) {
        var same = d.same_tokens;
        box.appendChild(x.el("p", {class: "mono", text: d.model}));
        box.appendChild(x.el("table", null, x.el("tbody", null,
          x.el("tr", null, x.el("td", {text: x.t("kv.same.maxDiff")}),
               x.el("td", {class: "max-diff", text: Number(d.max_logit_diff).toExponential(2)})),
          x.el("tr", null, x.el("td", {text: x.t("kv.same.tokensNo")}),
               x.el("td", {class: "mono", text: d.without_cache.tokens.join(" ")})),
          x.el("tr", null, x.el("td", {text: x.t("kv.same.tokensYes")}),
               x.el("td", {class: "mono", text: d.with_cache.tokens.join(" ")})),
          (d.cache_bytes || []).map(function (c) {
            return x.el("tr", null, x.el("td", {text: x.t("kv.same.bytes", {dtype: c.dtype, n: c.length})}),
              x.el("td", {text: x.t("kv.same.bytesVal", {e: x.fmtInt(c.engine_bytes), l: x.fmtInt(c.ledger_bytes)})}));
          }))));
        box.appendChild(x.el("p", {class: same ? "ok verdict" : "bad verdict",
                                   text: x.t(same ? "kv.same.yes" : "kv.same.no")}));
      }, box);
    }
    // The teaching world: every position's attention output (head by head, side by side) from
    // one pass over the sentence and from the cache, token by token (lesson attention's cache_check).
    function worldCard() {
      var box = x.el("div", {class: "track wide", id: "same-world"}, x.el("h3", {text: x.t("kv.same.world")}));
      grid.appendChild(box);
      panel.load(x.api("lesson/attention", {}), function (d) {
        var c = d.cache_check, vec = function (r) { return r.map(function (v) { return v.toFixed(3); }).join(" "); };
        box.appendChild(x.el("p", {class: "mono", text: "llm0 lesson attention --json  (cache_check)"}));
        box.appendChild(x.el("div", {class: "table-wrap"}, x.el("table", null,
          x.el("thead", null, x.el("tr", null, x.el("th", {text: x.t("kv.same.token")}),
            x.el("th", {text: x.t("kv.same.full")}), x.el("th", {text: x.t("kv.same.cached")}))),
          x.el("tbody", null, d.tokens.map(function (tok, t) {
            return x.el("tr", null, x.el("td", {text: tok}), x.el("td", {class: "mono", text: vec(c.full[t])}),
                        x.el("td", {class: "mono", text: vec(c.cached[t])}));
          }), x.el("tr", {class: "sum"}, x.el("td", {text: x.t("kv.same.maxAbs")}),
            x.el("td", {class: "max-abs-diff", colspan: 2, text: Number(c.max_abs_diff).toExponential(2)}))))));
        box.appendChild(x.el("p", {class: c.max_abs_diff < 1e-4 ? "ok verdict" : "bad verdict",
                                   text: x.t(c.max_abs_diff < 1e-4 ? "kv.same.worldYes" : "kv.same.no")}));
      }, box);
    }
    worldCard();
    card("kv.same.random", {"prompt-len": 2, generate: 3, "up-to": 0}, "same-random");
    if (info.model) card("kv.same.loaded", {"prompt-len": 2, generate: 3, "up-to": 0, model: "loaded"}, "same-loaded");
    else grid.appendChild(x.el("div", {class: "track"}, x.el("h3", {text: x.t("kv.same.loaded")}),
                               x.el("p", {text: x.t("model.none", {hint: info.model_hint || "llm0 explore --model runs/small"})})));
  };
})(window.llm0x = window.llm0x || {});
