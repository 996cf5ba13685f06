// The New chat form: the permission mode offers only the chosen agent's modes.
// Without this script every agent's show, and the server refuses a mismatch.
(() => {
  "use strict";
  const setUp = () => {
    const mode = document.querySelector("select[data-modes-for]");
    const agent = mode && document.getElementById(mode.dataset.modesFor);
    if (!agent) return;
    const show = () => {
      for (const group of mode.querySelectorAll("optgroup[data-agent]")) {
        const mine = group.dataset.agent === agent.value;
        group.hidden = !mine;
        group.disabled = !mine;
      }
      const chosen = mode.selectedOptions[0];
      if (chosen && chosen.parentElement.disabled) mode.value = "";
    };
    agent.addEventListener("change", show);
    show();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
