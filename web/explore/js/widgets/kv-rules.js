// The lesson's accounting rules for generation with and without a KV cache (course lesson 8), the
// one computation the pages do themselves, shown beside the engine's counters. Counts are per
// layer; q·k per query head. A prompt of P tokens, step s = 1, 2, ... feeds:
//   without cache: all n = P + s - 1 tokens      -> n K/V projections, n(n+1)/2 causal q·k pairs
//   with cache:    step 1 the P prompt tokens    -> P K/V, P(P+1)/2 q·k; then 1 token at
//                  position n (n tokens visible) -> 1 K/V, n q·k
// The token a step outputs is fed (its K/V computed) only at the next step.
(function (x) {
  "use strict";
  var tri = function (n) { return n * (n + 1) / 2; };

  // Totals after `steps` steps (steps ≥ 0) with prompt length P.
  x.kvRules = function (P, steps) {
    var r = {kvNoCache: 0, kvCache: 0, qkNoCache: 0, qkCache: 0};
    for (var s = 1; s <= steps; s++) {
      var n = P + s - 1;
      r.kvNoCache += n;
      r.qkNoCache += tri(n);
      r.kvCache += s === 1 ? P : 1;
      r.qkCache += s === 1 ? tri(P) : n;
    }
    return r;
  };
  // The same totals when the last position processed is n (the growth table's rows): n - P + 1 steps.
  x.kvRulesAtLength = function (P, n) { return x.kvRules(P, n - P + 1); };
})(window.llm0x = window.llm0x || {});
