"""Write a checkout-sized burst from ANOTHER process, as git would: `python burst_writer.py ROOT PLAN.json`.

PLAN.json: {"rewrite": [paths], "delete": [paths], "create": N}. Rewrites put a revision note after
the claim; new files are minimal memories under projects/branch/. In the test's own process the
writes would fight the watcher and the search thread for the GIL, which no real checkout does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from any directory

from memhtml_desktop.devtools.store_render import minimal_memory  # noqa: E402


def write_burst(root: Path, rewrite: list[str], delete: list[str], create: int) -> None:
    for i, path in enumerate(rewrite):
        target = root / path
        text = target.read_text(encoding="utf-8")
        target.write_text(text.replace("</mark>", f"</mark> Burst revision {i}.", 1), encoding="utf-8")
    for path in delete:
        (root / path).unlink()
    for i in range(create):
        target = root / f"projects/branch/{i // 250:03d}/change-{i}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        claim = f"Branch change {i} renames the queue q{i}."
        target.write_text(minimal_memory(f"Branch change {i}", claim), encoding="utf-8")


if __name__ == "__main__":
    plan = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
    write_burst(Path(sys.argv[1]), plan["rewrite"], plan["delete"], plan["create"])
