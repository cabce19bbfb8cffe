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
      // The operator is the row header's first text (a skipped one's is followed by a note).
      var hit = !text || row.firstElementChild.firstChild.nodeValue.toLowerCase().indexOf(text) >= 0;
      row.hidden = !hit;
      if (hit) n += 1;
    });
    shown.textContent = n + " of " + rows.length + " operators";
  }
  if (box) { box.addEventListener("input", apply); apply(); }
  // In an editor's webview (VS Code), a click on a cell or an entry also opens its manifest line.
  var api = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : null;
  // A matrix cell's entry: its row's (a skipped operator's skip_ops item), else its column's
  // (the dtype's entry); the cells do not repeat the line.
  function cellLine(td) {
    var row = td.parentElement.firstElementChild;
    if (row.hasAttribute("data-line")) return row.getAttribute("data-line");
    var column = 0;
    for (var c = row; c && c !== td; c = c.nextElementSibling) column += c.colSpan;
    var head = document.querySelectorAll("#matrix-table thead th")[column];
    return head ? head.getAttribute("data-line") : null;
  }
  if (api) {
    document.addEventListener("click", function (event) {
      var td = event.target.closest("#matrix-table tbody td");
      var target = td ? null : event.target.closest("[data-line]");
      var line = td ? cellLine(td) : target ? target.getAttribute("data-line") : null;
      if (line) api.postMessage({ command: "reveal", line: Number(line) });
    });
  }
})();
