"""`python -m memhtml_desktop` behaves exactly like the `memhtml-desktop` script."""

import multiprocessing

from memhtml_desktop.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen build's parse workers re-enter here
    raise SystemExit(main())
