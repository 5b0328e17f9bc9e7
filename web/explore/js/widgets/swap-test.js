// Lesson 5's three-step switch (① naive: retrieve K, ② where it fails, ③ improved: a separate V)
// with the swap test 小明把苹果给了小王 ↔ 小王把苹果给了小明: for the chosen asker row, a table of
// weight × each column of K (or V) per visible token with the sum row (the retrieved vector, which
// a learner can add up by hand), for both sentences, and how far apart the two results are
// ("两句话相差", Euclidean distance). Numbers: GET lesson/attention?asker=T (the CLI's twin).
(function (x) {
  "use strict";
  var D = 3;  // decimals shown, as the CLI's tables

  x.widgets = x.widgets || {};
  x.widgets.swapTest = function (parent, info, onAsker) {
    var st = x.state.swap = x.state.swap || {step: 3, asker: info.default_asker};
    var panel = x.panel(parent, {id: "swap-test", title: "rv.swap.title", intro: "rv.swap.intro"});
    var setProv = function () {
      panel.provenance("rv.swap.prov", "llm0 lesson attention --asker " + st.asker);
    };
    var switcher = x.el("div", {class: "steps3", role: "group"});
    var pickerSlot = x.el("div");
    var out = x.el("div", {class: "swap-out"});
    panel.body.appendChild(switcher);
    panel.body.appendChild(pickerSlot);
    panel.body.appendChild(out);
    var data = null;

    function drawSwitch() {
      switcher.textContent = "";
      [1, 2, 3].forEach(function (i) {
        switcher.appendChild(x.el("button", {type: "button", id: "swap-step-" + i, "aria-pressed": String(st.step === i),
          onclick: function () { st.step = i; drawSwitch(); draw(); }, text: x.t("rv.swap.step" + i)}));
      });
    }
    // The table of one sentence: tokens, weights w_j, columns w_j·x_j[c], the sum row.
    function table(id, titleKey, tokens, weights, vectorOf, engineSum, what) {
      var last = weights.reduce(function (a, w, j) { return w > 0 ? j : a; }, 0);
      var dims = vectorOf(tokens[0]).length, sums = new Array(dims).fill(0), wsum = 0;
      var rows = [];
      for (var j = 0; j <= last; j++) {
        var vec = vectorOf(tokens[j]);
        wsum += weights[j];
        rows.push(x.el("tr", null, x.el("td", {text: tokens[j]}), x.el("td", {text: x.fmtPct(weights[j])}),
          vec.map(function (v, c) { sums[c] += weights[j] * v; return x.el("td", {text: x.fmtFixed(weights[j] * v, D)}); })));
      }
      rows.push(x.el("tr", {class: "sum"}, x.el("td", {text: x.t("rv.swap.sum")}), x.el("td", {text: x.fmtPct(wsum)}),
        sums.map(function (s, c) { return x.el("td", {class: "sum-cell", "data-engine": engineSum[c], text: x.fmtFixed(s, D)}); })));
      var same = sums.every(function (s, c) { return x.fmtFixed(s, D) === x.fmtFixed(engineSum[c], D); });
      return x.el("div", {class: "sentence", id: id},
        x.el("h3", {text: x.t(titleKey, {s: tokens.join("")})}),
        x.el("div", {class: "table-wrap"}, x.el("table", null,
          x.el("thead", null, x.el("tr", null, x.el("th", {text: x.t("rv.swap.token")}), x.el("th", {text: "w"}),
            sums.map(function (s, c) { return x.el("th", {text: "w·" + what.toLowerCase() + "[" + (c + 1) + "]"}); }))),
          x.el("tbody", null, rows))),
        x.el("p", {class: "engine-sum"}, x.t("rv.swap.engine"), " ",
          x.el("span", {class: "mono", text: "[" + engineSum.map(function (v) { return x.fmtFixed(v, D); }).join(", ") + "]"}),
          " ", x.el("span", {class: same ? "ok" : "bad", text: same ? "✓" : "≠"})));
    }
    function draw() {
      out.textContent = "";
      if (!data) return;
      var s = data.swap_test, head = data.heads[s.head], toks = data.tokens;
      var useV = st.step === 3;
      var key = useV ? "values" : "keys";
      var vectorOf = function (tok) { return head[key][toks.indexOf(tok)]; };
      var what = useV ? "V" : "K";
      out.appendChild(x.el("p", {class: "step-text", text: x.t("rv.swap.text" + st.step, {q: s.query})}));
      out.appendChild(x.el("div", {class: "two-col"},
        table("swap-before", "rv.swap.original", toks, s.weights_before, vectorOf, useV ? s.v_before : s.k_before, what),
        table("swap-after", "rv.swap.swapped", s.tokens_after, s.weights_after, vectorOf, useV ? s.v_after : s.k_after, what)));
      var delta = useV ? s.delta_v : s.delta_k;
      var ratio = Number.isFinite(s.ratio) ? s.ratio.toFixed(1) + "×" : "∞";
      out.appendChild(x.el("div", {class: "diff-box" + (useV ? " good" : ""), id: "swap-diff"},
        x.el("p", null, x.t("rv.swap.diff", {what: what}), " ",
          x.el("span", {class: "big", id: "swap-delta", text: x.fmtFixed(delta, D)})),
        x.el("p", null, x.t(useV ? "rv.swap.cosV" : "rv.swap.cosK", {a: s.swapped[0], b: s.swapped[1]}), " ",
          x.el("span", {class: "big", id: useV ? "swap-cos-v" : "swap-cos-k", text: x.fmtFixed(useV ? s.cos_v : s.cos_k, D)})),
        useV ? x.el("p", null, x.t("rv.swap.ratio", {k: x.fmtFixed(s.delta_k, D)}), " ",
                    x.el("span", {class: "big", id: "swap-ratio", text: ratio})) : null));
    }
    function load() {
      setProv();
      data = null;
      pickerSlot.textContent = "";
      out.textContent = "";
      var asker = st.asker;
      panel.load(x.api("lesson/attention", {asker: asker}), function (d) {
        if (asker !== st.asker) return;
        data = d;
        pickerSlot.appendChild(x.widgets.tokenPicker(d.tokens, st.asker, function (tok) {
          st.asker = tok; load(); if (onAsker) onAsker(tok);
        }, "rv.swap.asker"));
        draw();
      }, out);
    }
    drawSwitch();
    load();
  };
})(window.llm0x = window.llm0x || {});
