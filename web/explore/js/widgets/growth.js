// "Push it longer" (lesson 8): a length slider L (up to 4,096) and the engine's growth table of
// GET lesson/kv-cache?up-to=L — K/V projections and q·k scores per layer with and without the
// cache, their ratio, and the fitted growth order (least-squares slope of log count vs log n) —
// with the last row checked against the lesson's rules. A static export snaps L to baked values.
(function (x) {
  "use strict";
  var BAKED = [8, 16, 32, 64, 100, 128, 256, 512, 1000, 1024, 2048, 4096];

  x.widgets = x.widgets || {};
  x.widgets.growth = function (parent, info) {
    var st = x.state.growth = x.state.growth || {L: 256};
    var P = 2, G = 3, maxL = (info.limits && info.limits.kv_cache_up_to) || 4096;
    var params = function (L) { return {"prompt-len": P, generate: G, "up-to": L}; };
    var panel = x.panel(parent, {id: "growth", title: "kv.growth.title", intro: "kv.growth.intro"});
    var snap = function (L) {
      L = Math.max(P + 1, Math.min(maxL, Math.round(L)));
      if (!x.isStatic()) return L;
      var baked = BAKED.filter(function (b) {  // the lengths this export holds
        return Object.prototype.hasOwnProperty.call(window.LLM0_BAKED, x.canonicalKey("lesson/kv-cache", params(b)));
      });
      return (baked.length ? baked : BAKED).reduce(function (a, b) { return Math.abs(b - L) < Math.abs(a - L) ? b : a; });
    };
    var slider = x.el("input", {type: "range", id: "growth-slider", min: P + 1, max: maxL, step: 1, value: st.L,
      "aria-label": x.t("kv.growth.L"), oninput: function () { box.value = slider.value; later(); },
      onchange: function () { set(slider.value); }});
    var box = x.el("input", {type: "number", id: "growth-L", min: P + 1, max: maxL, value: st.L,
      onchange: function () { set(box.value); }});
    panel.body.appendChild(x.el("div", {class: "controls"},
      x.el("label", null, x.t("kv.growth.L"), box), slider));
    var out = x.el("div", {class: "growth-out"});
    panel.body.appendChild(out);
    var timer = null;
    function later() { clearTimeout(timer); timer = setTimeout(function () { set(slider.value); }, 300); }
    function set(v) {
      clearTimeout(timer);
      var L = snap(Number(v) || st.L);
      slider.value = L; box.value = L;
      if (L === st.L && out.childNodes.length) return;
      st.L = L;
      load();
    }
    function ratio(a, b) { return (a / b).toFixed(1) + "×"; }
    function render(d) {
      out.textContent = "";
      var H = d.growth_heads;  // the counting model's query heads (the stepper's model may have more)
      var head = ["kv.growth.n", "kv.growth.kvNo", "kv.growth.kvYes", "kv.growth.ratio",
                  "kv.growth.qkNo", "kv.growth.qkYes", "kv.growth.ratio"];
      var rows = d.growth.map(function (g) {
        return x.el("tr", {"data-length": g.length}, x.el("td", {text: x.fmtInt(g.length)}),
          x.el("td", {text: x.fmtInt(g.kv_no_cache)}), x.el("td", {text: x.fmtInt(g.kv_cache)}),
          x.el("td", {text: ratio(g.kv_no_cache, g.kv_cache)}),
          x.el("td", {text: x.fmtInt(g.qk_no_cache)}), x.el("td", {text: x.fmtInt(g.qk_cache)}),
          x.el("td", {text: ratio(g.qk_no_cache, g.qk_cache)}));
      });
      var f = d.fit;  // null when the table has one row (L just past the prompt): no order to fit
      var order = function (v) { return x.el("td", null, "n", x.el("sup", {text: v.toFixed(2)})); };
      if (f) rows.push(x.el("tr", {class: "sum fit-row"}, x.el("td", {text: x.t("kv.growth.order")}),
        order(f.kv_no_cache), order(f.kv_cache), x.el("td"), order(f.qk_no_cache), order(f.qk_cache), x.el("td")));
      out.appendChild(x.el("div", {class: "table-wrap"}, x.el("table", {id: "growth-table"},
        x.el("thead", null, x.el("tr", null, head.map(function (k) { return x.el("th", {text: x.t(k)}); }))),
        x.el("tbody", null, rows))));
      // The last row by the lesson's rules (q·k per head × H heads), beside the engine's numbers.
      var last = d.growth[d.growth.length - 1];
      if (!last) return;
      var r = x.kvRulesAtLength(d.prompt_len, last.length);
      var same = r.kvNoCache === last.kv_no_cache && r.kvCache === last.kv_cache &&
                 r.qkNoCache * H === last.qk_no_cache && r.qkCache * H === last.qk_cache;
      out.appendChild(x.el("p", {class: "rule-check", id: "growth-rule"},
        x.t("kv.growth.rule", {n: x.fmtInt(last.length), a: x.fmtInt(r.kvNoCache), b: x.fmtInt(r.kvCache),
                                c: x.fmtInt(r.qkNoCache * H), e: x.fmtInt(r.qkCache * H), H: H}), " ",
        x.el("span", {class: same ? "ok" : "bad", text: x.t(same ? "kv.growth.agree" : "kv.growth.disagree")})));
      out.appendChild(x.el("p", {class: "growth-note", text: x.t("kv.growth.orders")}));
      out.appendChild(x.el("p", {class: "mono growth-model", text: x.t("kv.growth.model", {m: d.growth_model})}));
    }
    function load() {
      out.textContent = "";
      panel.provenance("kv.growth.prov", "llm0 lesson kv-cache --prompt-len " + P + " --generate " + G + " --up-to " + st.L);
      var L = st.L;  // a slower answer for an earlier L must not overwrite the current one
      panel.load(x.api("lesson/kv-cache", params(L)),
                 function (d) { if (L === st.L) render(d); }, out);
    }
    st.L = snap(st.L);
    slider.value = st.L; box.value = st.L;
    load();
  };
})(window.llm0x = window.llm0x || {});
