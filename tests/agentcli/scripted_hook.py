"""A hook command for tests: `python scripted_hook.py KIND TEXT LOG`.

KIND `context`: answer with TEXT as additionalContext (PostToolUse / AfterTool style).
KIND `block`: block the stop with TEXT as the reason (Stop / AfterAgent style).
Either answers only the first time its event fires (the LOG file remembers: each
payload is appended to it as a JSON line); later it answers `{}`. A hook that adds
the same directive every time would make the fake model loop.
"""

import json
import sys
from pathlib import Path


def main(kind: str, text: str, log: str) -> None:
    payload = json.loads(sys.stdin.read() or "{}")
    event = payload.get("hook_event_name", "")
    seen = Path(log).read_text().splitlines() if Path(log).exists() else []
    first = not any(json.loads(line).get("hook_event_name") == event for line in seen)
    with open(log, "a") as out:
        out.write(json.dumps(payload) + "\n")
    if not first:
        answer = {}
    elif kind == "context":
        answer = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    else:
        answer = {"decision": "block", "reason": text}
    print(json.dumps(answer))


if __name__ == "__main__":
    main(*sys.argv[1:])
