"""The relevance workbench in the window (issue 16): probe sets, runs, side by side, what-if
configurations, history, the optimizer, implicit judgments, floor calibration and coverage, over
the Qt-free core in `memhtml_desktop/workbench/` (docs/workbench.md, "The window")."""
