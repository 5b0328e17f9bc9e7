// Strings of the pages: t(key, vars) looks KEY up in the current language's table
// (js/i18n/zh.js, js/i18n/en.js; Chinese by default) and fills {name} placeholders from VARS.
// The language comes from ?lang=, else the last switch (localStorage), else the server's --lang.
(function (x) {
  "use strict";
  var STORE = "llm0x.lang";
  x.languages = ["zh", "en"];
  x.lang = "zh";

  x.t = function (key, vars) {
    var table = x.strings[x.lang] || {};
    var s = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : x.strings.zh[key];
    if (s === undefined) s = key;  // a missing string shows its key, visible in review
    if (!vars) return s;
    return s.replace(/\{(\w+)\}/g, function (m, name) { return name in vars ? String(vars[name]) : m; });
  };

  // The engine's name of a lesson model, "CONFIG (random weights, seed N)" (src/lesson/
  // lesson_json.cpp), in the page's language; any other name (a loaded model's path) as it is.
  x.modelLabel = function (name) {
    var m = /^(.*) \(random weights, seed (\d+)\)$/.exec(String(name));
    return m ? x.t("model.randomWeights", {config: m[1], seed: m[2]}) : String(name);
  };

  // The ledger's formula and note sentences (src/ledger/kv_ledger.cpp: attention_cost, mla_cost,
  // linear_group, build_groups, mla_expanded and the notes), in the page's language. The numbers and
  // config field names stay as the engine wrote them; only the English words around them change.
  // A sentence the table does not know stays English (the browser test fails on the known words).
  var LEDGER_ZH = [
    [/ B per token per layer, shared by all heads/g, " B（每 token 每层，所有头共用）"],
    [/ B per token per layer; × ([\d,]+) layers = ([\d,]+) B per token/g, " B（每 token 每层）；× $1 层 = $2 B（每 token）"],
    [/ B per token per layer/g, " B（每 token 每层）"],
    [/, held for min\(context, sliding_window ([\d,]+)\) tokens/g, "，只保留 min(上下文, sliding_window $1) 个 token"],
    [/^state /, "状态 "],
    [/; conv window /g, "；卷积窗口 "],
    [/ channels /g, " 通道 "],
    [/; fixed, per layer$/, "；大小固定，每层"],
    [/^unknown: the config has no (\w+)$/, "未知：config 里没有 $1"],
    [/^num_nextn_predict_layers=(\d+) multi-token-prediction layer\(s\) not counted \(used only for speculative decoding\)$/,
     "num_nextn_predict_layers=$1 个多 token 预测层未计入（它们只用于投机解码）"],
    [/^conv window counted as the last linear_conv_kernel_dim - 1 inputs, the minimum a causal conv needs \(some implementations keep linear_conv_kernel_dim\)$/,
     "卷积窗口按最后 linear_conv_kernel_dim - 1 个输入计：因果卷积至少要这么多（有的实现保留 linear_conv_kernel_dim 个）"]];
  x.ledgerText = function (s) {
    s = String(s);
    if (x.lang !== "zh") return s;
    LEDGER_ZH.forEach(function (r) { s = s.replace(r[0], r[1]); });
    return s;
  };

  // Picks the language before the first render; serverLang is info.lang.
  x.chooseLang = function (serverLang) {
    var fromUrl = new URLSearchParams(location.search).get("lang");
    var stored = null;
    try { stored = localStorage.getItem(STORE); } catch (e) { stored = null; }
    var want = fromUrl || stored || serverLang || "zh";
    x.lang = x.languages.indexOf(want) >= 0 ? want : "zh";
    document.documentElement.lang = x.lang === "zh" ? "zh-CN" : "en";
  };

  x.setLang = function (lang) {
    x.lang = lang;
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    try { localStorage.setItem(STORE, lang); } catch (e) { /* file:// without storage */ }
  };
})(window.llm0x = window.llm0x || {});
