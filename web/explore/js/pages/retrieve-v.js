// Page "lesson 5 — what attention retrieves (V)": where we start (the weights of the engine's
// default asker row, info.default_asker), the three-step switch with the swap test, the formula,
// the shape diagram, the convex-combination check, the sink row, the shared-KV answer ("is
// retrieving K always wrong?"), then the course's static blocks.
(function (x) {
  "use strict";
  function start(main, info) {
    var panel = x.panel(main, {id: "start", title: "rv.start.title", intro: "rv.start.intro",
      vars: {asker: info.default_asker}, provenance: "rv.start.prov", command: "llm0 lesson attention"});
    panel.load(x.api("lesson/attention", {asker: info.default_asker}), function (d) {
      var f = d.figures, labels = d.tokens.slice(0, f.causal.length);
      panel.body.appendChild(x.el("p", {class: "big", id: "start-row"}, x.t("rv.start.row", {row: f.row}), " ",
        labels.map(function (tok, j) {
          return x.el("span", {class: "start-w"}, (j ? " · " : "") + (tok === f.row ? x.t("rv.start.self") : tok) + " " +
                      x.fmtPct(f.causal[j]));
        })));
    });
  }
  x.renderPage = function (main, info) {
    main.appendChild(x.el("p", {class: "question", text: x.t("rv.question")}));
    start(main, info);
    var convexSlot = x.el("div");
    x.widgets.swapTest(main, info, function () { convexSlot.textContent = ""; x.widgets.convexCheck(convexSlot, info); });
    x.widgets.formula(main, info);
    x.widgets.shapeDiagram(main);
    main.appendChild(convexSlot);
    x.widgets.convexCheck(convexSlot, info);
    x.widgets.sinkRow(main, info);
    x.widgets.sharedKv(main, info);
    main.appendChild(x.el("section", {class: "block try"}, x.el("h2", {text: x.t("rv.try.title")}),
      x.el("ol", null, x.t("rv.try").map(function (s) { return x.el("li", {text: s}); }))));
    x.blocks(main, "rv");
  };
})(window.llm0x = window.llm0x || {});
