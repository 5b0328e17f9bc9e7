// "Cache vs recompute — the same?" (lesson 8): the engine generates greedily with and without the
// KV cache and reports the largest |logit difference| and whether the tokens are identical, on the
// lesson's random model and, when one is loaded, on the learner's model (model=loaded).
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
    card("kv.same.random", {"prompt-len": 2, generate: 3, "up-to": 0}, "same-random");
    if (info.model) card("kv.same.loaded", {"prompt-len": 2, generate: 3, "up-to": 0, model: "loaded"}, "same-loaded");
    else grid.appendChild(x.el("div", {class: "track"}, x.el("h3", {text: x.t("kv.same.loaded")}),
                               x.el("p", {text: x.t("model.none", {hint: info.model_hint || "llm0 explore --model runs/small"})})));
  };
})(window.llm0x = window.llm0x || {});
