"""Every verb of the command: its name, the module that parses and runs it, and its line in `--help`.

`cli/__init__` reads this table, not the command modules, to know the verbs: the top-level parser
lists them all from here, and only the module of the verb asked for is imported and its parser
built (building every subparser imported every command module: 0.15 s of CPU before `--help`
printed a line, 0.4 s wall on a loaded machine). Each module's `add_parsers` takes the help of
its verbs from `HELP`, so a verb's line is written once. tests/test_cli_verbs.py holds the table to
the modules: same verbs, same order, each module's `COMMANDS`.
"""

from __future__ import annotations

#: (verb, module under memhtml_desktop.cli, help) in the order `--help` lists them: the window
#: first, then reading, then maintenance, then writing, then measuring the ranking.
VERBS: tuple[tuple[str, str, str], ...] = (
    ("gui", "window_commands", "open the window (the default)"),
    ("screenshot", "window_commands", "render the window offscreen to a PNG"),
    ("search", "read_commands", "fused four-arm search, explained"),
    ("recall", "read_commands", "the budgeted recall pack an agent would receive"),
    ("read", "read_commands", "one memory in full (counts as a read)"),
    ("reinforce", "read_commands", "record that memories were right or wrong"),
    ("list", "read_commands", "memories in path order, scoped like search"),
    ("expand", "shape_commands", "one memory's body, neighbours and evidence chain, with the call's cost (not a read)"),
    ("index", "store_commands", "bring the index in step with the store"),
    ("doctor", "store_commands", "files with violations, warnings, duplicate bodies"),
    ("watch", "store_commands", "keep the index in step with the disk (headless)"),
    ("write", "write_commands", "write a new memory and commit it"),
    ("correct", "write_commands", "supersede a memory: write the correction, archive the old one, one commit"),
    ("archive", "write_commands", "move a memory into archive/<year>/ and commit"),
    ("link", "write_commands", "add a typed link from one memory to another"),
    ("apply", "write_commands", "write a JSONL batch of memories in one commit"),
    ("task", "write_commands", "add a task or change its status (memhtml's arguments)"),
    (
        "undo",
        "curation_commands",
        "revert one of this app's own recent changes: the newest, or CHANGE (while none of "
        "its paths changed since); --list shows them and whether each can be undone",
    ),
    ("redo", "curation_commands", "give back a change this app undid: the newest undone, or CHANGE"),
    ("supersede", "curation_commands", "WINNER supersedes LOSER: archive LOSER, link them, one commit"),
    (
        "conflicts",
        "curation_commands",
        "memories whose claims contradict each other (one slot, two values; a negation, a number, a date), newer first",
    ),
    ("history", "curation_commands", "a memory's supersession chain, oldest first"),
    ("state", "curation_commands", "export or import the shared state plane"),
    ("review", "review_commands", "what changed since you last looked: the store's changes since the review mark"),
    ("eval", "eval_command", "rank probe targets against their near-twin controls"),
    ("probes", "workbench_commands", "the store's probe sets (.memhtml-desktop/probes/)"),
)

HELP: dict[str, str] = {name: text for name, _, text in VERBS}
MODULE: dict[str, str] = {name: module for name, module, _ in VERBS}
#: The command modules in the order their verbs first appear.
MODULES: tuple[str, ...] = tuple(dict.fromkeys(module for _, module, _ in VERBS))
#: The verbs that take memhtml's own grammar (cli/memhtml_argv.py), not argparse's.
MEMHTML_GRAMMAR = frozenset({"write", "correct", "archive", "link", "apply", "task"})
