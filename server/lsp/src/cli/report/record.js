"use strict";
// The filter box: rows of the matrix whose operator contains the text.
(function () {
  var box = document.getElementById("filter");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#matrix-table tbody tr"));
  var shown = document.getElementById("shown");
  function apply() {
    var text = box.value.trim().toLowerCase();
    var n = 0;
    rows.forEach(function (row) {
      var hit = !text || row.getAttribute("data-op").toLowerCase().indexOf(text) >= 0;
      row.hidden = !hit;
      if (hit) n += 1;
    });
    shown.textContent = n + " of " + rows.length + " operators";
  }
  if (box) { box.addEventListener("input", apply); apply(); }
  // In an editor's webview (VS Code), a click on a cell or an entry also opens its manifest line.
  var api = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : null;
  if (api) {
    document.addEventListener("click", function (event) {
      var target = event.target.closest("[data-line]");
      if (target) api.postMessage({ command: "reveal", line: Number(target.getAttribute("data-line")) });
    });
  }
})();
