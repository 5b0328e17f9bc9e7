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
