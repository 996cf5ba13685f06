/* Crosstalk: the Ctrl+K switcher of every page (a chat by name, or a search of everything
   said); no inline script, as the Content-Security-Policy wants. */
// Ctrl+K (Cmd+K) anywhere: the quick switcher, filled from /switch/ each time it opens.
(function () {
  const dialog = () => document.getElementById("switcher");

  function links() {
    return [...document.querySelectorAll("#switcher-list a")].filter((a) => !a.parentElement.hidden);
  }

  // The switcher's last line searches everything said for what was typed (/search/).
  function searchLink() {
    const link = document.getElementById("switcher-search");
    if (!link) return;
    const typed = document.getElementById("switcher-input").value.trim();
    link.href = link.dataset.url + (typed ? "?q=" + encodeURIComponent(typed) : "");
    link.textContent = typed ? "Search everything said for “" + typed + "”" : "Search everything said…";
  }
  document.addEventListener("close", function (event) {
    if (event.target !== dialog()) return;
    const back = before && document.contains(before) ? before : document.getElementById("main");
    before = null;
    if (back) back.focus();
  }, true);

  function filter() {
    searchLink();
    const words = document.getElementById("switcher-input").value.trim().toLowerCase().split(/\s+/);
    document.querySelectorAll("#switcher-list li").forEach(function (item) {
      const name = item.textContent.toLowerCase();
      item.hidden = !words.every((word) => name.includes(word));
    });
  }

  let before = null; // what had the focus when the switcher opened: it gets it back
  function open() {
    const box = dialog();
    if (!box || box.open) return;
    const input = document.getElementById("switcher-input");
    input.value = "";
    searchLink();
    before = document.activeElement !== document.body ? document.activeElement : null;
    box.showModal();
    input.focus();
    fetch(box.dataset.url, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.text() : ""))
      .then(function (html) {
        document.getElementById("switcher-list").innerHTML = html;
        filter();
        document.dispatchEvent(new CustomEvent("crosstalk:links"));
      });
  }

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
      event.preventDefault();
      open();
      return;
    }
    const box = dialog();
    if (!box || !box.open) return;
    const choices = links();
    const at = choices.indexOf(document.activeElement);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      const next = choices[(at + step + choices.length) % choices.length];
      if (next) next.focus();
    } else if (event.key === "Enter" && event.target.id === "switcher-input") {
      event.preventDefault();
      const search = document.getElementById("switcher-search");
      if (choices[0]) choices[0].click();
      else if (search && event.target.value.trim()) search.click();
    }
  });
  document.addEventListener("input", function (event) {
    if (event.target.id === "switcher-input") filter();
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-switcher]")) open();
    else if (event.target === dialog()) dialog().close(); // a click on the backdrop
  });
})();
