// Page "the lineage": the two timelines, then the config.json ledger.
(function (x) {
  "use strict";
  x.renderPage = function (main, info) {
    x.widgets.timelineTraining(main, info);
    x.widgets.timelineCache(main);
    x.widgets.configPaste(main);
  };
})(window.llm0x = window.llm0x || {});
