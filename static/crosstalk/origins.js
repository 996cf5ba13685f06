// Settings → Origins. No inline handlers or styles: the CSP forbids them.
// 1. The origin form shows only the chosen kind's fields: every box with data-kinds not
//    naming the kind is hidden and its inputs disabled (so they are not sent either).
//    Without this script every field shows, and the server keeps only the kind's own.
// 2. A button with data-copy="<element id>" copies that element's text.
(() => {
  "use strict";
  const showKind = (form) => {
    const kind = form.querySelector("[name=kind]");
    if (!kind) return;
    const chosen = kind.value;
    for (const box of form.querySelectorAll("[data-kinds]")) {
      const mine = box.dataset.kinds.split(" ").includes(chosen);
      box.hidden = !mine;
      for (const input of box.querySelectorAll("input, select, textarea")) input.disabled = !mine;
    }
  };
  const setUp = () => {
    for (const form of document.querySelectorAll("form.origin-form")) {
      const kind = form.querySelector("select[name=kind]");
      if (kind) kind.addEventListener("change", () => showKind(form));
      showKind(form);
    }
  };
  const say = (button, words) => {
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = words;
    setTimeout(() => { button.textContent = label; }, 2000);
  };
  const fallbackCopy = (text) => {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.append(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    return done;
  };
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-copy]");
    if (!button) return;
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    const text = source.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
      say(button, "Copied");
    } catch {
      say(button, fallbackCopy(text) ? "Copied" : "Select and copy it");
    }
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
