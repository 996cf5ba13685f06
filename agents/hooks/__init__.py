"""The hooks endpoints: Claude Code, Codex and Gemini call in at each step of a session."""
