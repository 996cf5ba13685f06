"""Modules a server loads on first use: the MCP and A2A SDKs take longer to import
than Django itself (a second of CPU here), and a server that is never asked for
/mcp or /a2a/ never pays it."""

import asyncio
import importlib
from types import ModuleType

LOADED: dict[str, ModuleType] = {}


async def load(name: str) -> ModuleType:
    """The module `name`, imported in a thread the first time so the event loop keeps
    serving meanwhile. Only a finished import is handed out (never a module that
    another thread is still executing)."""
    module = LOADED.get(name)
    if module is None:
        module = await asyncio.to_thread(importlib.import_module, name)
        LOADED[name] = module
    return module
