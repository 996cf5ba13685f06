// Live updates: the server pushes small hints ({kind, chat}) over a websocket;
// elements that care refetch their partial from the database (the truth).
// On every (re)connect everything live refetches, so a missed push costs nothing.
// While the socket is down (the server restarts, Redis is away) the page polls:
// every POLL_MS everything live refetches, until the socket is back.
(function () {
  const path = document.body.dataset.liveSocket;
  if (!path) return;
  const POLL_MS = 5000;
  let delay = 500;
  let connectedBefore = false;
  let pollTimer = null;
  // Once this page is being left (a form posted, a link followed), hints are not acted
  // on: the action that sent them (a delete) may have made this page's parts 404.
  let leaving = false;
  window.addEventListener("beforeunload", function () { leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; });

  function fire(name, detail) {
    if (leaving) return;
    document.body.dispatchEvent(new CustomEvent(name, { detail: detail }));
  }

  function startPolling() {
    if (pollTimer === null) pollTimer = setInterval(function () { fire("live-resync", {}); }, POLL_MS);
  }

  function stopPolling() {
    if (pollTimer !== null) clearInterval(pollTimer);
    pollTimer = null;
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + path);
    socket.onopen = function () {
      delay = 500;
      stopPolling();
      setLive(true);
      if (connectedBefore) fire("live-resync", {});
      connectedBefore = true;
    };
    socket.onmessage = function (event) {
      const hint = JSON.parse(event.data);
      // This page's chat was deleted (in another tab, or by REST or MCP): to the list.
      if (hint.kind === "deleted" && path === "/ws/chats/" + hint.chat + "/") {
        leaving = true;
        location.assign("/chats/");
        return;
      }
      fire("live-" + hint.kind, hint);
      if (hint.chat) fire("live-" + hint.kind + "-" + hint.chat, hint);
      fire("live-any", hint);
    };
    socket.onclose = function (event) {
      setLive(false);
      // 4001: this page's session ended (logged out, expired, new password): reloading
      // leads to the login page; retrying would only be refused.
      if (event.code === 4001) {
        location.reload();
        return;
      }
      startPolling();
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }

  function setLive(on) {
    document.querySelectorAll(".live-dot").forEach(function (dot) {
      dot.classList.toggle("on", on);
      dot.title = on ? "Live" : "Reconnecting… (refreshing every few seconds)";
    });
  }

  connect();
})();

// Keyboard, filter and title: small behaviours of every page.
(function () {
  // A button with data-confirm asks first (no inline handlers: the CSP forbids them).
  document.addEventListener("click", function (event) {
    const button = event.target.closest("[data-confirm]");
    if (button && !window.confirm(button.dataset.confirm)) event.preventDefault();
  });

  const composerText = () => document.getElementById("composer-text");

  document.addEventListener("keydown", function (event) {
    const target = event.target;
    // Ctrl/Cmd+Enter sends the form being written; Enter alone adds a line.
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target.form) {
      event.preventDefault();
      target.form.requestSubmit();
      return;
    }
    if (event.key === "Escape") {
      document.querySelectorAll("details.menu[open]").forEach(function (menu) {
        menu.open = false;
        menu.querySelector("summary").focus();
      });
    }
  });

  // A click outside an open menu closes it.
  document.addEventListener("click", function (event) {
    document.querySelectorAll("details.menu[open]").forEach(function (menu) {
      if (!menu.contains(event.target)) menu.open = false;
    });
    // "New chat" and the like: the page scrolls to the form and the cursor goes there too.
    const focusLink = event.target.closest("a[data-focus]");
    if (focusLink) {
      const field = document.querySelector(focusLink.dataset.focus);
      if (field) setTimeout(() => field.focus(), 0);
    }
    const sendOn = event.target.closest("[data-send-on]");
    if (sendOn && composerText() && new URL(sendOn.href).pathname === location.pathname) {
      // Held messages go on with the next prompt: keep the box ticked and write it.
      event.preventDefault();
      const box = document.querySelector("#composer input[name=send_queued]");
      if (box) box.checked = true;
      composerText().focus();
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target.matches("[data-autosubmit]")) event.target.form.requestSubmit();
  });

  function applyFilter() {
    const input = document.getElementById("chat-filter");
    if (!input) return;
    const words = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    document.querySelectorAll(".chat-card").forEach(function (card) {
      const text = card.dataset.filter || "";
      const match = words.every((word) => text.includes(word));
      card.hidden = !match;
      if (match) shown += 1;
    });
    const none = document.querySelector(".filter-none");
    if (none) none.hidden = shown > 0 || !document.querySelector(".chat-card");
  }
  document.addEventListener("input", function (event) {
    if (event.target.id === "chat-filter") applyFilter();
  });

  function updateTitle() {
    const counter = document.getElementById("waiting-for-you");
    if (!counter) return;
    const count = parseInt(counter.dataset.count || "0", 10);
    const base = document.title.replace(/^\(\d+\) /, "");
    document.title = count > 0 ? "(" + count + ") " + base : base;
  }

  // A chat list refreshed live keeps what the person picked, while it is still offered.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    const target = event.detail.target;
    if (target && target.tagName === "SELECT") target.dataset.picked = target.value;
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    const target = event.detail.target;
    if (!target || target.tagName !== "SELECT" || target.dataset.picked === undefined) return;
    const picked = target.dataset.picked;
    if ([...target.options].some((option) => option.value === picked)) target.value = picked;
    delete target.dataset.picked;
  });

  // A live refresh of a part keeps its open menus open: a push never undoes a click.
  // So do the folds the person opened (earlier messages, a long entry's "Show all"), by id.
  document.addEventListener("htmx:beforeSwap", function (event) {
    const target = event.detail.target;
    const menus = [...target.querySelectorAll("details.menu")];
    target.dataset.openMenus = menus.map((menu) => menu.open).join(",");
    rememberFolds(target);
    rememberFocus(target);
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    const target = event.detail.target;
    const open = (target.dataset.openMenus || "").split(",");
    delete target.dataset.openMenus;
    target.querySelectorAll("details.menu").forEach(function (menu, index) {
      if (open[index] === "true") menu.open = true;
    });
    restoreFolds(target);
    restoreFocus(target);
  });

  // A refresh that replaces the focused control (Stop, the ⋯ switch…) gives the focus to
  // the control in its place, or the first one still shown, never to <body>.
  const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  const shown = (element) => element.getClientRects().length > 0 && !element.disabled;
  function rememberFocus(target) {
    const focused = document.activeElement;
    if (!focused || focused === document.body || !target.contains(focused)) return;
    target.dataset.focusAt = [...target.querySelectorAll(FOCUSABLE)].indexOf(focused);
    target.dataset.focusId = focused.id || "";
  }
  function restoreFocus(target) {
    const at = target.dataset.focusAt;
    const id = target.dataset.focusId;
    delete target.dataset.focusAt;
    delete target.dataset.focusId;
    if (at === undefined || (document.activeElement && document.activeElement !== document.body)) return;
    const all = [...target.querySelectorAll(FOCUSABLE)];
    const same = (id && document.getElementById(id)) || all[Number(at)];
    const next = same && shown(same) ? same : all.find(shown);
    if (next) next.focus();
  }
  function rememberFolds(target) {
    const folds = [...target.querySelectorAll("details[id][open]")].map((fold) => fold.id);
    target.dataset.openFolds = folds.join(" ");
  }
  function restoreFolds(target) {
    const folds = (target.dataset.openFolds || "").split(" ").filter(Boolean);
    delete target.dataset.openFolds;
    folds.forEach(function (id) {
      const fold = document.getElementById(id);
      if (fold) fold.open = true;
    });
  }
  document.addEventListener("htmx:oobBeforeSwap", (event) => rememberFolds(event.detail.target));
  document.addEventListener("htmx:oobAfterSwap", (event) => restoreFolds(event.detail.target));

  document.addEventListener("htmx:afterSettle", function (event) {
    applyFilter();
    updateTitle();
    // After a prompt is sent the composer is new: the person keeps writing there.
    if (event.target.id === "composer" && composerText()) composerText().focus();
  });
})();

// Sending: the form's main button says so while the request is out; if the server does not
// answer (down, restarting, a 5xx), the form says "Not sent" and keeps what was written.
(function () {
  const NOT_SENT =
    "Not sent: the server did not answer. What you wrote is kept here; send again when it is back.";

  function sendingForm(event) {
    const elt = event.detail.elt;
    return elt && elt.tagName === "FORM" ? elt : null;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    const form = sendingForm(event);
    if (!form) return;
    form.querySelectorAll(".not-sent").forEach((note) => note.remove());
    const button = form.querySelector("button.primary[type=submit]");
    form.setAttribute("aria-busy", "true");
    if (button) {
      button.dataset.label = button.textContent;
      button.textContent = "Sending…";
      button.disabled = true;
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    const form = sendingForm(event);
    if (!form) return;
    form.removeAttribute("aria-busy");
    const button = form.querySelector("button.primary[type=submit]");
    if (button && button.dataset.label) {
      button.textContent = button.dataset.label;
      button.disabled = false;
    }
  });

  function notSent(event) {
    const form = sendingForm(event);
    const status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (!form || (status > 0 && status < 500) || form.querySelector(".not-sent")) return;
    const note = document.createElement("p");
    note.className = "not-sent error";
    note.setAttribute("role", "alert");
    note.textContent = NOT_SENT;
    form.append(note);
  }
  ["htmx:sendError", "htmx:timeout", "htmx:responseError"].forEach(function (name) {
    document.addEventListener(name, notSent);
  });
})();

// Unread: a chat that changed since the person last looked at it gets a dot, here in this
// browser (localStorage: chat id → the chat's last change the person saw, in microseconds:
// a change within the second the page was read is still a change). A chat seen for the
// first time counts as read, so a new browser does not mark everything.
(function () {
  const KEY = "crosstalk-seen-us"; // marks kept in whole seconds were under "crosstalk-seen"
  const seen = () => JSON.parse(localStorage.getItem(KEY) || "{}");
  const current = () => (document.querySelector(".chat-link.current") || {}).dataset;

  function markUnread() {
    const marks = seen();
    const here = current();
    if (here && here.chat) marks[here.chat] = Number(here.updated);
    document.querySelectorAll("[data-chat][data-updated]").forEach(function (item) {
      const id = item.dataset.chat;
      const updated = Number(item.dataset.updated);
      if (marks[id] === undefined) marks[id] = updated;
      const unread = updated > marks[id];
      item.classList.toggle("unread", unread);
      const words = item.querySelector(".unread-words");
      if (words) words.textContent = unread ? " (changed since you looked)" : "";
    });
    localStorage.setItem(KEY, JSON.stringify(marks));
  }
  document.addEventListener("DOMContentLoaded", markUnread);
  document.addEventListener("htmx:afterSettle", markUnread);
  document.addEventListener("crosstalk:links", markUnread);
})();

// A message whose state changes while the page is open (pending → delivered, queued →
// cancelled…): its card, refetched in place, marks the new state for a moment, so a state
// is seen even when the next push follows within a second. Cards that arrive later than
// the page are new to the person, so their state is marked too.
(function () {
  const MARK_MS = 4000;
  const known = new Map(); // element id → the state last shown
  const changedAt = new Map(); // element id → when its state changed in front of the person
  let firstLoad = true;
  let sweep = null;

  function mark() {
    const now = Date.now();
    document.querySelectorAll("[data-state][id]").forEach(function (card) {
      const was = known.get(card.id);
      if (!firstLoad && was !== card.dataset.state) changedAt.set(card.id, now);
      known.set(card.id, card.dataset.state);
      const at = changedAt.get(card.id);
      card.classList.toggle("state-changed", at !== undefined && now - at < MARK_MS);
    });
    firstLoad = false;
    if (changedAt.size && sweep === null) sweep = setTimeout(unmark, MARK_MS);
  }

  function unmark() {
    sweep = null;
    const now = Date.now();
    changedAt.forEach(function (at, id) {
      if (now - at < MARK_MS) return;
      changedAt.delete(id);
      const card = document.getElementById(id);
      if (card) card.classList.remove("state-changed");
    });
    if (changedAt.size) sweep = setTimeout(unmark, 500);
  }

  document.addEventListener("DOMContentLoaded", mark);
  document.addEventListener("htmx:afterSettle", mark);
  document.addEventListener("htmx:oobAfterSwap", mark);
})();

// A live refresh never swallows a click: swapping a part while a pointer is pressed on it
// takes the pressed link or button away, and the release then clicks nothing. Such a
// swap waits: it is dropped, and once the pointer is up (after its click) every live
// part refetches, as after a reconnect.
(function () {
  let pressed = null;
  let held = false;

  document.addEventListener("pointerdown", (event) => { pressed = event.target; }, true);
  ["pointerup", "pointercancel"].forEach(function (name) {
    document.addEventListener(name, function () {
      pressed = null;
      if (!held) return;
      held = false;
      setTimeout(() => document.body.dispatchEvent(new CustomEvent("live-resync", { detail: {} })), 0);
    }, true);
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    const cause = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
    const live = cause && cause.type.startsWith("live-");
    if (live && pressed && event.detail.target.contains(pressed)) {
      event.detail.shouldSwap = false;
      held = true;
    }
  });
})();
