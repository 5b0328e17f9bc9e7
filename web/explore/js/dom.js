// DOM and number helpers shared by every widget: el() builds elements, fmt* format numbers the
// way the CLI prints them (grouping, fixed decimals, percentages, bytes in binary units).
(function (x) {
  "use strict";

  // el("div", {class: "a", onclick: f, "data-x": 1}, child, "text", [children]...)
  x.el = function (tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    });
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  };
  function append(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }

  x.svg = function (tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    return node;
  };

  // `s` as one POSIX shell word: single quotes, each ' written '\'' (so $(...), quotes and
  // backslashes in a learner's sentence reach llm0 as typed when the command is pasted).
  x.shellQuote = function (s) { return "'" + String(s).replace(/'/g, "'\\''") + "'"; };
  x.fmtInt = function (n) { return Math.round(n).toLocaleString("en-US"); };
  x.fmtFixed = function (v, digits) { return Number(v).toFixed(digits); };
  x.fmtPct = function (v, digits) { return (v * 100).toFixed(digits === undefined ? 1 : digits) + "%"; };
  // Binary units as the course writes them: 65,536 B = 64 KiB, 16 GiB.
  x.fmtBytes = function (b) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0, v = b;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    if (i === 0) return x.fmtInt(b) + " B";
    return (Number.isInteger(v) ? String(v) : v.toFixed(2)) + " " + units[i];
  };
})(window.llm0x = window.llm0x || {});
