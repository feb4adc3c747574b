"""The frozen app's entry point: `memhtml-desktop` as PyInstaller runs it.

`multiprocessing.freeze_support()` must come first. The indexer parses large runs in a spawn
pool (`index.parse_pool.parse_pool`); in a frozen app a spawned worker is this same executable
started with `--multiprocessing-fork` (and the resource tracker with `-c ...`), and without this
call such a child would parse those flags as a command line and exit with a usage error, breaking
the pool. With it, the child runs the worker and never reaches `main`.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from memhtml_desktop.cli import main

    sys.exit(main())
