// The composer's @ picker: in a textarea with data-mentions="<url>", typing @ (and part of
// a name) lists the person's chats (name, repository, branch, status) from that URL;
// arrows and Enter/Tab or a click pick one, Escape closes. A pick writes "@name (id) " in
// place of what was typed, so the agent can message that chat without listing first.
(function () {
  const TYPED = /(^|\s)@([^\s@]{0,100})$/;
  let timer = null;

  function typedAt(area) {
    const before = area.value.slice(0, area.selectionStart);
    const found = TYPED.exec(before);
    return found ? { start: before.length - found[2].length - 1, query: found[2] } : null;
  }

  function listFor(area) {
    let list = document.getElementById(area.id + "-mentions");
    if (!list) {
      list = document.createElement("ul");
      list.id = area.id + "-mentions";
      list.className = "mention-list";
      list.setAttribute("role", "listbox");
      list.setAttribute("aria-label", "Chats to mention");
      list.hidden = true;
      area.insertAdjacentElement("afterend", list);
      area.setAttribute("aria-controls", list.id);
      area.setAttribute("aria-autocomplete", "list");
    }
    return list;
  }

  function close(area) {
    const list = listFor(area);
    list.hidden = true;
    list.replaceChildren();
    area.setAttribute("aria-expanded", "false");
    area.removeAttribute("aria-activedescendant");
  }

  function option(area, chat, index) {
    const item = document.createElement("li");
    item.id = area.id + "-mention-" + index;
    item.className = "mention-option";
    item.setAttribute("role", "option");
    item.dataset.id = chat.id;
    item.dataset.name = chat.name;
    const name = document.createElement("strong");
    name.textContent = chat.name;
    const where = document.createElement("span");
    where.className = "muted small";
    where.textContent = [chat.repository, chat.branch].filter(Boolean).join(" · ");
    const status = document.createElement("span");
    status.className = "mention-status small status-" + chat.status;
    status.textContent = chat.status;
    item.append(name, " ", where, " ", status);
    item.addEventListener("mousedown", (event) => {
      event.preventDefault(); // keep the focus (and the caret) in the textarea
      pick(area, item);
    });
    return item;
  }

  function show(area, chats) {
    const list = listFor(area);
    list.replaceChildren(...chats.map((chat, i) => option(area, chat, i)));
    if (!chats.length) return close(area);
    list.hidden = false;
    area.setAttribute("aria-expanded", "true");
    select(area, 0);
  }

  function select(area, index) {
    const items = [...listFor(area).children];
    items.forEach((item, i) => item.setAttribute("aria-selected", i === index ? "true" : "false"));
    if (items[index]) area.setAttribute("aria-activedescendant", items[index].id);
  }

  function selected(area) {
    const items = [...listFor(area).children];
    return Math.max(0, items.findIndex((item) => item.getAttribute("aria-selected") === "true"));
  }

  function pick(area, item) {
    const at = typedAt(area);
    if (!at) return close(area);
    const mention = "@" + item.dataset.name + " (" + item.dataset.id + ") ";
    const end = area.selectionStart;
    area.value = area.value.slice(0, at.start) + mention + area.value.slice(end);
    const caret = at.start + mention.length;
    area.setSelectionRange(caret, caret);
    close(area);
    area.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function lookUp(area) {
    const at = typedAt(area);
    if (!at) return close(area);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const url = area.dataset.mentions + "?q=" + encodeURIComponent(at.query);
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then((response) => (response.ok ? response.json() : { items: [] }))
        .then((body) => {
          if (typedAt(area)) show(area, body.items || []);
        })
        .catch(() => close(area));
    }, 120);
  }

  function onKey(event) {
    const area = event.target;
    const list = listFor(area);
    if (list.hidden) return;
    const count = list.children.length;
    const index = selected(area);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      select(area, (index + (event.key === "ArrowDown" ? 1 : count - 1)) % count);
    } else if ((event.key === "Enter" && !event.ctrlKey && !event.metaKey) || event.key === "Tab") {
      event.preventDefault();
      event.stopImmediatePropagation(); // not a send, not a new line: a pick
      pick(area, list.children[index]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(area);
    }
  }

  function wire(area) {
    if (area.dataset.mentionsWired) return;
    area.dataset.mentionsWired = "1";
    area.setAttribute("aria-expanded", "false");
    area.addEventListener("input", () => lookUp(area));
    area.addEventListener("keydown", onKey);
    area.addEventListener("blur", () => close(area));
  }

  function wireAll(root) {
    (root || document).querySelectorAll("textarea[data-mentions]").forEach(wire);
  }

  document.addEventListener("DOMContentLoaded", () => wireAll(document));
  // The composer and the Peers tab are swapped in by htmx.
  document.addEventListener("htmx:load", (event) => wireAll(event.target.parentNode || document));
})();
