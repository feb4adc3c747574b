"""`python -m memhtml_desktop` behaves exactly like the `memhtml-desktop` script."""

from memhtml_desktop.cli import main

raise SystemExit(main())
