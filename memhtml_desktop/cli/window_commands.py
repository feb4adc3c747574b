"""Commands that load Qt: the window itself and offscreen screenshots of it."""

from __future__ import annotations

import argparse

from memhtml_desktop.cli.common import add_ranking_flag, settings_from
from memhtml_desktop.cli.verbs import HELP


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("gui", parents=[common], help=HELP["gui"])
    p.add_argument(
        "--demo",
        action="store_true",
        default=argparse.SUPPRESS,
        help="open the demo store: your kept copy of the bundled one (made on first use, in the app's data folder)",
    )

    p.add_argument(
        "--demo-fresh",
        action="store_true",
        default=argparse.SUPPRESS,
        help="open a throwaway copy of the bundled demo store (in a temporary folder; not kept)",
    )

    p = sub.add_parser("screenshot", parents=[common], help=HELP["screenshot"])
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--query", default="")
    p.add_argument(
        "--view",
        choices=(
            "results",
            "reader",
            "recall",
            "problems",
            "correct",
            "undo",
            "conflicts",
            "timeline",
            "workbench",
            "review",
            "activity",
            "provenance",
        ),
        default="results",
        help="correct, undo, conflicts, timeline, workbench: that dialog or window alone "
        "(undo: a correction of the memory shown, then Edit → Undo… on it)",
    )
    p.add_argument(
        "--tab",
        choices=("probes", "compare", "configs", "history", "optimizer", "diagnostics", "judgments"),
        help="--view workbench: the tab shown (default: compare, after comparing A and B)",
    )
    p.add_argument("--open", metavar="PATH", help="the memory to show in the reader")
    p.add_argument("--size", default="1400x900", metavar="WxH")
    p.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        default=None,
        help="the colour theme (default: the theme setting)",
    )
    p.add_argument("--claim", help="--view correct: the corrected claim typed into the dialog")
    p.add_argument("--reason", help="--view correct: the reason typed into the dialog")
    p.add_argument(
        "--file", type=int, metavar="N", help="--view correct: show the diff of the plan's Nth file (0-based)"
    )
    p.add_argument(
        "--order", choices=("agent", "fused"), default="agent", help="the list in the agent's order or the fused order"
    )
    p.add_argument(
        "--more", type=int, default=0, metavar="N", help="list N rows of the fused list below the agent's page"
    )
    p.add_argument(
        "--shape",
        choices=("memhtml", "quotas", "catalog"),
        default="memhtml",
        help="--view recall: the pack shape shown",
    )
    p.add_argument(
        "--expand",
        type=int,
        default=0,
        metavar="N",
        help="--view recall --shape catalog: expand the catalogue's Nth row",
    )
    add_ranking_flag(p)
    p.add_argument("--demo", action="store_true", default=argparse.SUPPRESS, help="use a fresh copy of the demo store")


def cmd_gui(args: argparse.Namespace) -> int:
    from memhtml_desktop.ui.app import run_app

    return run_app(
        settings_from(args),
        demo=getattr(args, "demo", False),
        fresh_demo=getattr(args, "demo_fresh", False),
        explicit_store=getattr(args, "store", None) is not None,
        verbose=getattr(args, "verbose", False),
    )


def cmd_screenshot(args: argparse.Namespace) -> int:
    from memhtml_desktop.ui.screenshot import take_screenshot

    settings = settings_from(args)
    if getattr(args, "ranking", None):
        settings = settings.with_(ranking=args.ranking)  # a profile's name (the window's `ranking` setting)
    return take_screenshot(settings, args)


COMMANDS = {
    "gui": cmd_gui,
    "screenshot": cmd_screenshot,
}
