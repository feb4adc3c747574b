"""The engine behind the window: one long-lived owner of an open store (docs/architecture.md,
"One engine behind the window"). Its door is `EngineClient`; its words are `engine.protocol`."""

from memhtml_desktop.engine.client import EngineClient

__all__ = ["EngineClient"]
