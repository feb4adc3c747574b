"""The relevance workbench on the command line: `eval`'s workbench modes and the `probes` verbs.

`eval PROBES|--set NAME` with `--config C`, `--compare C`, `--optimize` or `--history` runs through
`memhtml_desktop.workbench` (a configuration is a shipped name, a store configuration's name, or
a JSON file). A run is recorded in the history (the app's data directory; `--no-record` skips it).
`probes sets|list|add|remove|judgments` edit the store's probe sets, each change one commit.

Bad input never stops the rest: a malformed probe line, a probe naming a memory that no longer
exists, a configuration with an unknown key are each a `file:line: …` message on stderr, and the
remaining probes run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memhtml_desktop.cli.common import EXIT_FAIL, EXIT_OK, CliError, open_store, print_json, refresh
from memhtml_desktop.cli.verbs import HELP
from memhtml_desktop.domain.plural import counted


def add_parsers(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("probes", parents=[common], help=HELP["probes"])
    verbs = p.add_subparsers(dest="probes_verb", metavar="VERB", required=True)
    v = verbs.add_parser("sets", parents=[common], help="list the probe sets and configurations")
    v.add_argument("--json", action="store_true")
    v = verbs.add_parser("list", parents=[common], help="the probes of one set, with their keys and lines")
    v.add_argument("set", metavar="SET")
    v.add_argument("--json", action="store_true")
    v = verbs.add_parser("add", parents=[common], help="pin a probe: QUERY should bring TARGET first (one commit)")
    v.add_argument("set", metavar="SET")
    v.add_argument("--query", required=True)
    v.add_argument("--target", required=True, action="append", metavar="PATH", help="repeatable: any of them")
    v.add_argument(
        "--control",
        dest="controls",
        action="append",
        default=[],
        metavar="PATH",
        help="a memory that must rank below the target (repeatable)",
    )
    v.add_argument("--note", default="")
    v.add_argument("--within", type=int, default=1, help="pass when a target is within the first N hits")
    v.add_argument("--json", action="store_true")
    v = verbs.add_parser(
        "import",
        parents=[common],
        help="add probes from question→answer pairs (JSON lines or question<TAB>answer; one commit)",
    )
    v.add_argument("set", metavar="SET")
    v.add_argument("pairs", metavar="FILE", help='one pair a line: {"question": ..., "answer": TEXT or PATH}')
    v.add_argument("--note", default="", help="a note every imported probe carries")
    v.add_argument("--dry-run", action="store_true", help="resolve and report, write nothing")
    v.add_argument("--json", action="store_true")
    v = verbs.add_parser("remove", parents=[common], help="remove a probe by its key (one commit)")
    v.add_argument("set", metavar="SET")
    v.add_argument("key", metavar="KEY")
    v.add_argument("--json", action="store_true")
    v = verbs.add_parser("judgments", parents=[common], help="implicit judgments: list, accept into a set, discard")
    v.add_argument("--accept", metavar="ID")
    v.add_argument("--to", metavar="SET", help="the set an accepted judgment joins")
    v.add_argument("--discard", metavar="ID")
    v.add_argument("--json", action="store_true")


def _root(args: argparse.Namespace) -> Path:
    from memhtml_desktop.cli.common import checked_root

    return checked_root(args)


def _write(action):
    from memhtml_desktop.workbench import BadName
    from memhtml_desktop.write.errors import WriteError

    try:
        return action()
    except (WriteError, BadName) as exc:
        raise CliError(str(exc)) from exc


def cmd_probes(args: argparse.Namespace) -> int:
    from memhtml_desktop.domain.probes import EvalProbe
    from memhtml_desktop.workbench import JudgmentLog, WorkbenchFiles, store_data_dir

    root = _root(args)
    files = WorkbenchFiles(root)
    verb = args.probes_verb
    if verb == "sets":
        listing = files.configurations()
        sets = {name: len(files.read_probe_set(name).probes) for name in files.probe_sets()}
        for problem in listing.problems:
            print(f"memhtml-desktop: {problem}", file=sys.stderr)
        if args.json:
            print_json(
                {
                    "sets": sets,
                    "configurations": [c.name for c in listing.configurations],
                    "problems": [str(p) for p in listing.problems],
                }
            )
        else:
            for name, count in sets.items():
                print(f"set    {name} ({count} probes)")
            for config in listing.configurations:
                print(f"config {config.name}" + ("" if config.source else " (shipped, read-only)"))
        return EXIT_OK
    if verb == "list":
        probe_set = _guard(lambda: files.read_probe_set(args.set))
        _report_problems(probe_set.problems)
        if args.json:
            print_json(
                {
                    "set": args.set,
                    "probes": [{"key": p.key, "line": p.line, **p.to_json()} for p in probe_set.probes],
                    "problems": [p.to_json() for p in probe_set.problems],
                }
            )
        else:
            for p in probe_set.probes:
                print(
                    f"{p.key}  line {p.line:<4} {p.query!r} -> {p.target}"
                    + (f" ({len(p.controls)} controls)" if p.controls else "")
                )
        return EXIT_OK
    if verb == "add":
        try:
            probe = EvalProbe(
                query=args.query,
                target=args.target[0],
                targets=tuple(args.target[1:]),
                controls=tuple(args.controls),
                note=args.note,
                within=args.within,
            )
        except ValueError as exc:
            raise CliError(str(exc)) from exc
        from memhtml_desktop.domain.probes import ProbeFileError, parse_probe

        try:
            parse_probe(probe.to_line())
        except ProbeFileError as exc:
            raise CliError(f"not a valid probe: {exc}") from exc
        saved = _write(lambda: files.add_probe(args.set, probe))
        _print_saved(saved, args, key=probe.key)
        return EXIT_OK
    if verb == "import":
        return _import_pairs(args, files)
    if verb == "remove":
        saved = _write(lambda: files.remove_probe(args.set, args.key))
        _print_saved(saved, args)
        return EXIT_OK
    log = JudgmentLog(store_data_dir(root), enabled=True)
    if args.accept:
        if not args.to:
            raise CliError("--accept needs --to SET: the probe set it joins")
        try:
            probe = log.get(args.accept).to_probe()
        except KeyError:
            raise CliError(f"no pending judgment {args.accept}") from None
        saved = _write(lambda: files.add_probe(args.to, probe))
        log.accept(args.accept)
        _print_saved(saved, args, key=probe.key)
        return EXIT_OK
    if args.discard:
        try:
            log.discard(args.discard)
        except KeyError:
            raise CliError(f"no pending judgment {args.discard}") from None
        return EXIT_OK
    candidates = log.candidates()
    if args.json:
        print_json({"candidates": [j.to_json() for j in candidates]})
    else:
        for j in candidates:
            print(f"{j.id}  {j.count}x best #{j.best_position}  {j.query!r} -> {j.path}")
    return EXIT_OK


def _import_pairs(args: argparse.Namespace, files) -> int:
    """`probes import SET FILE`: resolve each pair's answer to a memory, append the probes (one commit)."""
    from memhtml_desktop.cli.common import open_store, refresh
    from memhtml_desktop.domain.qa_pairs import parse_pairs
    from memhtml_desktop.guarded import SMALL_FILE_CAP, read_guarded
    from memhtml_desktop.workbench import resolve_pairs

    try:  # a file named here may live anywhere, but it is still a regular file under the cap (no FIFO, no /dev/zero)
        text = read_guarded(args.pairs, cap=SMALL_FILE_CAP, what="the pairs file").decode("utf-8")
    except (OSError, ValueError) as exc:  # Unreadable and UnicodeDecodeError are ValueErrors
        raise CliError(f"cannot read {args.pairs}: {getattr(exc, 'strerror', None) or exc}") from exc
    pairs, problems = parse_pairs(text, args.pairs)
    store = open_store(args)
    refresh(store, args)
    resolved = resolve_pairs(store, pairs, source=args.pairs, note=args.note)
    problems = [*problems, *resolved.problems]
    _report_problems(problems)
    if not resolved.probes:
        raise CliError(f"{args.pairs}: no pair could be resolved to a memory ({len(problems)} problems)")
    saved, already = (None, 0) if args.dry_run else _write(lambda: files.add_probes(args.set, resolved.probes))
    report = {
        "set": args.set,
        "pairs": len(pairs),
        "probes": len(resolved.probes),
        "by_path": resolved.by_path,
        "by_text": resolved.by_text,
        "already_in_set": already,
        "left_out": [p.to_json() for p in problems],
        "commit": saved.to_json() if saved else None,
    }
    if args.json:
        print_json(report)
    else:
        print(
            f"{len(resolved.probes)} probes from {args.pairs} ({resolved.by_path} by path, {resolved.by_text} "
            f"found by their answer's words), {len(problems)} lines left out"
            + (f", {already} already in {args.set}" if already else "")
        )
        if saved is not None:
            print(f"committed {saved.commit_sha[:12]}: {saved.subject}")
        elif args.dry_run:
            print("dry run: nothing written")
    return EXIT_OK


def _guard(action):
    from memhtml_desktop.workbench import BadName

    try:
        return action()
    except BadName as exc:
        raise CliError(str(exc)) from exc


def _print_saved(saved, args, *, key: str | None = None) -> None:
    if getattr(args, "json", False):
        print_json({**saved.to_json(), **({"key": key} if key else {})})
    else:
        print(f"committed {saved.commit_sha[:12]}: {saved.subject}")


def _report_problems(problems) -> None:
    for problem in problems:
        print(f"memhtml-desktop: {problem}", file=sys.stderr)


# -- eval's workbench modes ----------------------------------------------------------------------


def wants_workbench(args: argparse.Namespace) -> bool:
    return bool(
        args.config or args.compare or args.optimize or args.history or args.set or args.floor_scan or args.coverage
    )


def _configuration(files, text: str, store_profile):
    """A configuration named on the command line: a JSON file, a store configuration, a shipped one."""
    from memhtml_desktop.domain.configs import ConfigError
    from memhtml_desktop.workbench import read_config_file

    try:
        if text.endswith(".json") or "/" in text:
            return read_config_file(Path(text), source=text)
        return files.read_configuration(text)
    except ConfigError as exc:
        raise CliError(str(exc)) from exc


def _probe_set(args, files):
    from memhtml_desktop.workbench import read_probe_file

    if args.set:
        probe_set = _guard(lambda: files.read_probe_set(args.set))
        if not (files.root / f".memhtml-desktop/probes/{args.set}.jsonl").exists():
            raise CliError(f"no probe set {args.set} in the store (probes sets lists them)")
    else:
        probe_set = read_probe_file(Path(args.probes))
    if probe_set.problems and not probe_set.probes and probe_set.problems[0].line == 0:
        raise CliError(str(probe_set.problems[0]))
    return probe_set


def cmd_workbench_eval(args: argparse.Namespace) -> int:
    from memhtml_desktop.domain.configs import Configuration
    from memhtml_desktop.workbench import Workbench

    store = open_store(args)
    workbench = Workbench(store)
    if args.history and not (args.probes or args.set):
        return _history(workbench, args, None)
    if not (args.probes or args.set):
        raise CliError("give a probe file or --set NAME")
    probe_set = _probe_set(args, workbench.files)
    if args.history:
        return _history(workbench, args, probe_set.name)
    refresh(store, args)
    current = Configuration(store.ranking.name, store.ranking, store.ranking.summary)
    config = _configuration(workbench.files, args.config, store.ranking) if args.config else current
    record = not args.no_record
    if args.optimize:
        return _optimize(workbench, probe_set, config, args)
    if args.floor_scan:
        return _floor(workbench, probe_set, config, args)
    if args.coverage:
        return _coverage(workbench, probe_set, config, args)
    if args.compare:
        other = _configuration(workbench.files, args.compare, store.ranking)
        comparison = workbench.compare(probe_set, config, other, limit=args.limit, record=record)
        _report_problems(comparison.a.problems)
        for run in (comparison.a, comparison.b):
            if run.not_recorded:
                print(f"memhtml-desktop: {run.not_recorded}", file=sys.stderr)
        if args.json:
            print_json(comparison.to_json())
        else:
            a, b = comparison.a, comparison.b
            print(f"{a.config_name} against {b.config_name} on {probe_set.name} ({a.figures.probes} probes)")
            for run in (a, b):
                print("  " + _figures_line(run))
            for c in comparison.changes:
                delta = f"{c.delta:+d}" if c.delta is not None else "±"
                print(
                    f"  {c.status:<7} {str(c.rank_before or '-'):>3} -> {str(c.rank_after or '-'):<3} ({delta})  {c.query!r}"
                )
            if not comparison.changes:
                print("  no probe moved")
        return EXIT_OK
    run = workbench.run(
        probe_set, config, limit=args.limit, record=record, progress=progress_line(len(probe_set.probes))
    )
    _report_problems(run.problems)
    if args.json:
        sys.stdout.writelines(run.json_chunks(indent=2))  # a verdict at a time: 100,000 probes, bounded memory
        sys.stdout.write("\n")
    else:
        print(f"{run.config_name} on {probe_set.name} at {(run.head or 'no commit')[:12]} · embedder {run.embedder}")
        for v in run.verdicts:
            mark = "pass" if v.passed else "FAIL"
            why = f"  lost by {v.lost_by} to {v.lost_to}" if not v.passed and v.lost_by else ""
            print(f"  {mark} {str(v.rank or '-'):>3} {len(v.inverted):>2} inv  {v.query!r}{why}")
        kept = " · not recorded" if run.not_recorded else (f" · recorded {run.id}" if record else "")
        print(_figures_line(run) + kept)
    if run.not_recorded:  # the results above stand; only the history lacks them
        print(f"memhtml-desktop: {run.not_recorded}", file=sys.stderr)
    return EXIT_OK if not (args.check and run.figures.failed) else EXIT_FAIL


PROGRESS_FROM = 2000
"""A set this large (or any set on a terminal) prints its progress on stderr."""


def progress_line(total: int):
    """`progress(stage, done, total)` printing "eval: 12,000 of 100,000 probes (12%) · 45 s, about
    5 min left" on stderr: rewritten in place on a terminal, one line per tenth otherwise; None when
    the set is small and stderr is not a terminal."""
    import time

    tty = sys.stderr.isatty()
    if total < PROGRESS_FROM and not tty:
        return None
    started = time.monotonic()
    last = {"at": 0.0, "tenth": -1}

    def progress(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        tenth = done * 10 // max(total, 1)
        if done < total and (now - last["at"] < 0.5 if tty else tenth == last["tenth"]):
            return
        last["at"], last["tenth"] = now, tenth
        spent = now - started
        left = spent * (total - done) / done if done else 0
        eta = (
            f", about {left / 60:.0f} min left"
            if left >= 90
            else (f", about {left:.0f} s left" if done < total else "")
        )
        line = f"eval: {stage} {done:,} of {total:,} probes ({done * 100 // max(total, 1)}%) · {spent:.0f} s{eta}"
        print(
            ("\r" + line + ("\n" if done >= total else "")) if tty else line,
            end="" if tty else "\n",
            file=sys.stderr,
            flush=True,
        )

    return progress


def _figures_line(run) -> str:
    f = run.figures
    return (
        f"{run.config_name}: {f.passed}/{f.probes} passed, MRR {f.mrr:.3f}, nDCG@10 {f.ndcg:.3f}, "
        f"recall@10 {f.recall:.3f}, {f.inversions} inversions, {f.degraded} degraded"
        + (f", {f.skipped} skipped" if f.skipped else "")
    )


def _optimize(workbench, probe_set, config, args) -> int:
    def progress(stage: str, done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty() and stage == "trial" and done % 20 == 0:
            print(f"\r{done}/{total} trials", end="", file=sys.stderr)

    try:
        result = workbench.optimize(
            probe_set,
            config,
            trials=args.trials,
            seed=args.seed,
            holdout=args.holdout,
            limit=args.limit,
            progress=progress,
        )
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    saved = None
    if args.save:
        saved = _write(
            lambda: workbench.files.save_configuration(
                args.save,
                result.best.profile,
                base=result.best.base if result.best.base in ("memhtml", "default") else "default",
                note=f"optimized from {config.name} on {probe_set.name}: held-out MRR "
                f"{result.base_held_out_mrr:.3f} -> {result.best_held_out_mrr:.3f}",
            )
        )
    if args.json:
        print_json({**result.to_json(), "saved": saved.to_json() if saved else None})
        return EXIT_OK
    c = result.certainty
    print(
        f"optimized {config.name} on {probe_set.name}: {counted(result.trials, 'trial')} ({result.trials_per_s:.1f}/s), "
        f"{counted(len(result.train), 'probe')} to train on, {len(result.held_out)} held out"
        + (f"; {result.ended}" if result.ended else "")
    )
    print(f"  best: arms {result.knobs['arms']}, k {result.knobs['rrf_k']}, λ {result.knobs['mmr_lambda']}")
    print(f"  training MRR {result.base_train_mrr:.3f} -> {result.best_train_mrr:.3f}")
    print(
        f"  held-out MRR {result.base_held_out_mrr:.3f} -> {result.best_held_out_mrr:.3f} "
        f"(gain {result.held_out_gain:+.3f}, 95% interval {c.interval[0]:+.3f} to {c.interval[1]:+.3f}; "
        f"{c.wins} better, {c.losses} worse, sign test p = {c.p_value:.3f})"
    )
    if saved:
        print(f"  saved as {args.save}: committed {saved.commit_sha[:12]}")
    return EXIT_OK


def _floor(workbench, probe_set, config, args) -> int:
    scan = workbench.floor_scan(probe_set, config)
    saved = None
    if args.save_floor is not None:
        if not args.save:
            raise CliError("--save-floor needs --save NAME: the configuration it is saved in")
        try:
            saved = _write(lambda: workbench.save_floor(config, args.save_floor, name=args.save))
        except ValueError as exc:
            raise CliError(str(exc)) from exc
    if args.json:
        print_json({**scan.to_json(), "saved": saved.to_json() if saved else None})
        return EXIT_OK
    print(
        f"floor scan on {probe_set.name} ({scan.targets} targets, {scan.non_targets} non-target first-page hits), "
        f"embedder {scan.model_id}: current {scan.current:g}, suggested {scan.suggested:g}"
    )
    print("  floor  targets dropped  non-targets admitted (controls)")
    for r in scan.rows:
        print(f"  {r.floor:5.2f}  {r.targets_dropped:>15}  {r.non_targets_admitted:>20} ({r.controls_admitted})")
    if saved:
        print(f"saved as {args.save}: committed {saved.commit_sha[:12]}")
    return EXIT_OK


def _coverage(workbench, probe_set, config, args) -> int:
    crowd = workbench.crowders(probe_set, config)
    reach = workbench.unreachable(config, sample=200)
    if args.json:
        print_json({"crowders": [c.to_json() for c in crowd], "reachability": reach.to_json()})
        return EXIT_OK
    print(f"crowders (first page of at least half of {probe_set.name}'s probes, not as a target):")
    for c in crowd:
        print(f"  {c.share:4.0%} {c.path}  arms {c.arms}, {c.without_query_arms} pages by recency/salience alone")
    if not crowd:
        print("  none")
    print(f"unreachable by their own claim ({len(reach.unreachable)} of {reach.checked} sampled memories):")
    for u in reach.unreachable:
        print(f"  {u.rank or '-':>3} {u.path}")
    return EXIT_OK


def _history(workbench, args, set_name) -> int:
    history = workbench.history
    if args.diff:
        try:
            diff = history.diff(*args.diff)
        except KeyError as exc:
            raise CliError(f"no recorded run {exc.args[0]}") from None
        if args.json:
            print_json(diff.to_json())
        else:
            for line in diff.describe() or ["no probe changed"]:
                print(line)
        return EXIT_OK
    runs = history.list(set_name=set_name)
    if args.json:
        print_json({"runs": [r.to_json() for r in runs], "breaks": _breaks(history, runs)})
        return EXIT_OK
    for r in runs:
        f = r.figures
        print(
            f"{r.id}  {r.started}  {(r.head or '-')[:12]}  {r.set_name:<12} {r.config_name:<12} "
            f"{f.passed}/{f.probes} passed  MRR {f.mrr:.3f}  nDCG@10 {f.ndcg:.3f}  {f.inversions} inv"
        )
    for item in _breaks(history, runs):
        print(
            f"broke between {str(item['before_head'])[:12]} and {str(item['after_head'])[:12]} "
            f"({item['set']}, {item['config']}): {item['query']!r}"
        )
    if not runs:
        print("no recorded runs" + (f" of {set_name}" if set_name else ""))
    return EXIT_OK


def _breaks(history, runs, last: int = 20) -> list[dict]:
    """Probes that passed in a run and failed in the next run of the same set and configuration."""
    out = []
    by: dict[tuple[str, str], list] = {}
    for r in runs[-last * 4 :]:
        by.setdefault((r.set_name, r.config_name), []).append(r)
    for (set_name, config), series in by.items():
        tail = series[-last:]
        for before, after in zip(tail, tail[1:]):
            try:
                diff = history.diff(before.id, after.id)
            except (KeyError, ValueError):
                continue
            for change in diff.broke:
                out.append(
                    {
                        "set": set_name,
                        "config": config,
                        "before": before.id,
                        "after": after.id,
                        "before_head": before.head,
                        "after_head": after.head,
                        "key": change.key,
                        "query": change.query,
                        "rank_before": change.rank_before,
                        "rank_after": change.rank_after,
                    }
                )
    return out


COMMANDS = {"probes": cmd_probes}
