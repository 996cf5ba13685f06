// The "Connect your own session" panel: tabs (click, arrow keys, Home/End) switched
// in the page, so a key shown once stays in every tab; a copy button on every block.
// Delegated from the document, so it works on a panel htmx swaps in.
(function () {
  "use strict";

  function tabsOf(tab) {
    return Array.from(tab.closest("[role=tablist]").querySelectorAll("[role=tab]"));
  }

  function select(tab, focus) {
    var panel = tab.closest(".attach-panel");
    tabsOf(tab).forEach(function (other) {
      var on = other === tab;
      other.setAttribute("aria-selected", on ? "true" : "false");
      other.tabIndex = on ? 0 : -1;
      var body = document.getElementById(other.getAttribute("aria-controls"));
      if (body) body.hidden = !on;
    });
    var agent = panel && panel.querySelector("[data-attach-agent]");
    if (agent) agent.value = tab.dataset.cli; // "Replace this key" keeps this tab
    if (focus) tab.focus();
  }

  var MOVES = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

  document.addEventListener("click", function (event) {
    var tab = event.target.closest(".attach-panel [role=tab]");
    if (tab) return select(tab, false);
    var button = event.target.closest(".attach-panel [data-copy]");
    if (button) copy(button);
  });

  document.addEventListener("keydown", function (event) {
    var tab = event.target.closest(".attach-panel [role=tab]");
    if (!tab) return;
    var tabs = tabsOf(tab);
    var here = tabs.indexOf(tab);
    var next = null;
    if (event.key in MOVES) next = tabs[(here + MOVES[event.key] + tabs.length) % tabs.length];
    if (event.key === "Home") next = tabs[0];
    if (event.key === "End") next = tabs[tabs.length - 1];
    if (!next) return;
    event.preventDefault();
    select(next, true);
  });

  function copy(button) {
    var code = button.closest(".code-block").querySelector("code");
    var text = code.textContent;
    var done = function (ok) {
      button.textContent = ok ? "Copied" : "Select and copy";
      button.classList.toggle("copied", ok);
      setTimeout(function () { button.textContent = "Copy"; button.classList.remove("copied"); }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallback(code)); });
    } else {
      done(fallback(code));
    }
  }

  // Without the clipboard API (a page served over plain http to another host):
  // select the block and let the browser copy it.
  function fallback(code) {
    var range = document.createRange();
    range.selectNodeContents(code);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }
})();
