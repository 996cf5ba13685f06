// Desktop notifications, opt-in (the top bar's toggle), for what waits for the person:
// - more messages held until they write than a moment ago (one tag: once for every tab);
// - each new message addressed to them rather than a chat (a chat asking, an answer to
//   what they sent), once: its id is remembered in localStorage, so a reload, a resync or
//   another tab never says it again, and what the page shows on its first load is old news.
(function () {
  if (!("Notification" in window)) return;
  const KEY = "crosstalk-notify";
  const TOLD = "crosstalk-told";
  const KEEP = 200;
  let lastHeld = null;

  const button = () => document.getElementById("notify-toggle");
  const on = () => localStorage.getItem(KEY) === "on" && Notification.permission === "granted";

  function show() {
    const toggle = button();
    if (!toggle) return;
    toggle.hidden = false;
    toggle.setAttribute("aria-pressed", on() ? "true" : "false");
    toggle.textContent = on() ? "Notifications on" : "Notify me";
  }

  function checkHeld() {
    const counter = document.getElementById("waiting-for-you");
    if (!counter) return;
    const count = parseInt(counter.dataset.count || "0", 10);
    if (lastHeld !== null && count > lastHeld && on()) {
      const words = count === 1 ? "1 message waits" : count + " messages wait";
      new Notification("Crosstalk: " + words + " for you", {
        body: "Held until you write to its chat.",
        tag: "crosstalk-waiting",
      });
    }
    lastHeld = count;
  }

  function told() {
    try {
      return JSON.parse(localStorage.getItem(TOLD) || "[]");
    } catch (error) {
      return [];
    }
  }

  // firstLoad: the page just opened; what it lists is marked told, never announced.
  function checkAsks(firstLoad) {
    const list = document.getElementById("asks-for-you");
    if (!list) return;
    const known = told();
    const fresh = [...list.querySelectorAll("[data-ask]")].filter(
      (item) => !known.includes(item.dataset.ask)
    );
    if (fresh.length === 0) return;
    fresh.reverse().forEach(function (item) {
      known.push(item.dataset.ask);
      if (firstLoad || !on()) return;
      const verb = item.dataset.answer ? " answered you" : " writes to you";
      new Notification("Crosstalk: " + item.dataset.from + verb, {
        body: item.textContent,
        tag: "crosstalk-ask-" + item.dataset.ask,
      });
    });
    localStorage.setItem(TOLD, JSON.stringify(known.slice(-KEEP)));
  }

  document.addEventListener("DOMContentLoaded", function () {
    show();
    checkHeld();
    checkAsks(true);
  });
  document.addEventListener("htmx:afterSettle", function () {
    checkHeld();
    checkAsks(false);
  });
  document.addEventListener("click", function (event) {
    if (event.target !== button()) return;
    if (on()) {
      localStorage.setItem(KEY, "off");
      show();
      return;
    }
    Notification.requestPermission().then(function (permission) {
      localStorage.setItem(KEY, permission === "granted" ? "on" : "off");
      show();
    });
  });
})();
