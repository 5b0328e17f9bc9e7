// The two-track stepper of lesson 8: "generate the next token" advances both tracks one step; the
// left track feeds the whole sequence again, the right one only the newest token (the rest read
// from the cache). Each track counts K/V projections and q·k scores per head by the lesson's rules
// (llm0x.kvRules) beside the engine's own counters from GET lesson/kv-cache (the CLI's twin).
(function (x) {
  "use strict";

  x.widgets = x.widgets || {};
  x.widgets.stepper = function (parent, info) {
    var st = x.state.stepper = x.state.stepper || {P: 2, G: 3, s: 0};
    var lim = info.limits || {};
    var maxP = x.isStatic() ? 4 : Math.min(12, lim.lesson_prompt_len || 12);
    var maxG = x.isStatic() ? 6 : Math.min(12, lim.lesson_generate || 12);
    var panel = x.panel(parent, {id: "stepper", title: "kv.stepper.title", intro: "kv.stepper.intro"});
    var params = function () { return {"prompt-len": st.P, generate: st.G, "up-to": 0}; };
    var setProv = function () {
      panel.provenance("kv.stepper.prov", "llm0 lesson kv-cache --prompt-len " + st.P + " --generate " + st.G + " --up-to 0");
    };

    var number = function (id, key, value, max, onset) {
      return x.el("label", null, x.t(key), x.el("input", {type: "number", id: id, min: 1, max: max, value: value,
        onchange: function (e) {
          var v = Math.max(1, Math.min(max, Math.round(Number(e.target.value) || 1)));
          e.target.value = v; onset(v); st.s = 0; setProv(); refresh();
        }}));
    };
    var next = x.el("button", {type: "button", id: "step-next", onclick: function () { st.s++; draw(); },
                               text: x.t("kv.stepper.next")});
    var reset = x.el("button", {type: "button", class: "secondary", id: "step-reset",
                                onclick: function () { st.s = 0; draw(); }, text: x.t("kv.stepper.reset")});
    var status = x.el("span", {class: "step-status", id: "step-status"});
    panel.body.appendChild(x.el("div", {class: "controls"},
      number("stepper-p", "kv.stepper.P", st.P, maxP, function (v) { st.P = v; }),
      number("stepper-g", "kv.stepper.G", st.G, maxG, function (v) { st.G = v; }), next, reset, status));
    panel.body.appendChild(x.el("div", {class: "legend"},
      x.el("span", null, x.el("span", {class: "tok computed", text: "K/V"}), " ", x.t("kv.stepper.legendComputed")),
      x.el("span", null, x.el("span", {class: "tok cached", text: "K/V"}), " ", x.t("kv.stepper.legendCached")),
      x.el("span", null, x.el("span", {class: "tok out", text: "#"}), " ", x.t("kv.stepper.legendOut"))));
    var tracks = x.el("div", {class: "two-col tracks"});
    panel.body.appendChild(tracks);
    var data = null;

    function tokenLabel(i) {  // i: 0-based position in prompt + generated
      if (!data) return "t" + (i + 1);
      var ids = data.prompt.concat(data.with_cache.tokens);
      return "#" + ids[i];
    }
    // Engine totals after s steps: per layer K/V, per layer q·k divided by the query heads.
    function engine(track, s) {
      var kv = 0, qk = 0;
      for (var i = 0; i < s; i++) { kv += track.steps[i].kv_per_layer; qk += track.steps[i].qk_per_layer; }
      return {kv: kv, qk: qk / data.num_attention_heads};
    }
    function track(id, cached) {
      var s = st.s, P = st.P, n = s === 0 ? 0 : P + s - 1;
      var rule = x.kvRules(P, s);
      var eng = data ? engine(cached ? data.with_cache : data.without_cache, s) : null;
      var toks = [];
      for (var i = 0; i < n; i++) {
        var fresh = !cached || s === 1 || i === n - 1;
        toks.push(x.el("span", {class: "tok " + (fresh ? "computed" : "cached"), text: tokenLabel(i)}));
      }
      if (s > 0) toks.push(x.el("span", {class: "tok out", title: x.t("kv.stepper.legendOut"), text: tokenLabel(n)}));
      var kvRule = cached ? rule.kvCache : rule.kvNoCache, qkRule = cached ? rule.qkCache : rule.qkNoCache;
      var row = function (label, key, r, e) {
        var agree = e === null ? "" : (r === e ? "✓" : "≠");
        return x.el("tr", null, x.el("td", {text: x.t(label)}),
          x.el("td", {id: key + "-rule", class: "big", text: x.fmtInt(r)}),
          x.el("td", {id: key + "-engine", class: "big", text: e === null ? "…" : x.fmtInt(e)}),
          x.el("td", {class: e === null ? null : (r === e ? "ok" : "bad"), text: agree}));
      };
      return x.el("div", {class: "track", id: "track-" + id},
        x.el("h3", {text: x.t(cached ? "kv.stepper.cache" : "kv.stepper.noCache")}),
        x.el("p", {class: "track-sub", text: x.t(cached ? "kv.stepper.cacheSub" : "kv.stepper.noCacheSub")}),
        x.el("div", {class: "tokens"}, toks),
        x.el("div", {class: "table-wrap"}, x.el("table", {class: "counters"},
          x.el("thead", null, x.el("tr", null, x.el("th"), x.el("th", {text: x.t("kv.stepper.rule")}),
                                   x.el("th", {text: x.t("kv.stepper.engine")}), x.el("th"))),
          x.el("tbody", null,
            row("kv.stepper.kvRow", "kv-" + id, kvRule, eng && eng.kv),
            row("kv.stepper.qkRow", "qk-" + id, qkRule, eng && eng.qk)))));
    }
    function draw() {
      next.disabled = !data || st.s >= st.G;
      status.textContent = x.t("kv.stepper.status", {s: st.s, G: st.G});
      tracks.textContent = "";
      tracks.appendChild(track("nocache", false));
      tracks.appendChild(track("cache", true));
    }
    function refresh() {
      data = null;
      draw();
      panel.load(x.api("lesson/kv-cache", params()), function (d) { data = d; draw(); }, tracks);
    }
    setProv();
    refresh();
  };
})(window.llm0x = window.llm0x || {});
