// Live updates: the server pushes small hints ({kind, chat}) over a websocket;
// elements that care refetch their partial from the database (the truth).
// On every (re)connect everything live refetches, so a missed push costs nothing.
(function () {
  const path = document.body.dataset.liveSocket;
  if (!path) return;
  let delay = 500;
  let connectedBefore = false;

  function fire(name, detail) {
    document.body.dispatchEvent(new CustomEvent(name, { detail: detail }));
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + path);
    socket.onopen = function () {
      delay = 500;
      setLive(true);
      if (connectedBefore) fire("live-resync", {});
      connectedBefore = true;
    };
    socket.onmessage = function (event) {
      const hint = JSON.parse(event.data);
      fire("live-" + hint.kind, hint);
      if (hint.chat) fire("live-" + hint.kind + "-" + hint.chat, hint);
      fire("live-any", hint);
    };
    socket.onclose = function () {
      setLive(false);
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }

  function setLive(on) {
    document.querySelectorAll(".live-dot").forEach(function (dot) {
      dot.classList.toggle("on", on);
      dot.title = on ? "Live" : "Reconnecting…";
    });
  }

  connect();
})();
