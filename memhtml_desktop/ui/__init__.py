"""The PySide6 window. Importing any ui module applies the PySide6 workarounds first."""

from memhtml_desktop.ui.kit.pyside_fixes import guard_singleton_refcounts

guard_singleton_refcounts()
