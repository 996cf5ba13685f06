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

  function fire(name, detail) {
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
      fire("live-" + hint.kind, hint);
      if (hint.chat) fire("live-" + hint.kind + "-" + hint.chat, hint);
      fire("live-any", hint);
    };
    socket.onclose = function () {
      setLive(false);
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
