"""Human-readable output for the headless commands (JSON output is each value's `to_json()`)."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.printable import field, printable
from memhtml_desktop.domain.rrf import RANK_ARMS
from memhtml_desktop.domain.signals import STEP_NAMES

__all__ = ["PrintableStream", "field", "printable"]

ARM_SHORT = {"fts": "fts", "vector": "vec", "recency": "rec", "salience": "sal"}


class PrintableStream:
    """A text stream that passes everything through `printable` (human output only; JSON is data).

    The second wall: every value is escaped with `field` where it is printed, so a newline in a file
    name cannot make a line of its own; this catches whatever a print forgot (an ESC still cannot
    reach the terminal), while the program's own line breaks pass.
    """

    def __init__(self, stream) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(printable(text))

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


MAX_LINE = 400


def _line(text: str) -> str:
    """One echoed violation or reason, clipped (a file can echo a 100,000-character attribute) and
    escaped."""
    return field(text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…")


def _width() -> int:
    return max(60, min(shutil.get_terminal_size((100, 20)).columns, 160))


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return field(text if len(text) <= width else text[: max(0, width - 1)] + "…")


def progress_printer(stream=None) -> Callable[[str, int, int], None]:
    """A one-line progress bar on stderr: phase, count, rate and ETA; redrawn in place."""
    stream = stream or sys.stderr
    started = time.perf_counter()
    state = {"phase": None, "t0": started}

    def show(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if phase != state["phase"]:
            state["phase"], state["t0"] = phase, now
        elapsed = max(now - state["t0"], 1e-6)
        rate = done / elapsed
        if total:
            fraction = min(1.0, done / total)
            bar = "█" * int(fraction * 24) + "░" * (24 - int(fraction * 24))
            eta = (total - done) / rate if rate else 0
            line = f"\r{phase:<6} {bar} {done:>7}/{total:<7} {rate:8.0f}/s  ETA {eta:5.1f}s"
        else:
            line = f"\r{phase:<6} {done:>7} files  {rate:8.0f}/s"
        stream.write(line)
        if total and done >= total:
            stream.write("\n")
        stream.flush()

    return show


def print_index_report(report, store) -> None:
    print(
        f"{counted(report.seen, 'file')} seen: {report.added} added, {report.changed} changed, {report.moved} moved, "
        f"{report.removed} removed, {report.unchanged} unchanged, {report.failed} failed; "
        f"{report.embedded} chunks embedded in {report.seconds:.2f}s"
    )
    print(f"index: {field(store.index_path)}")
    if report.embed_error:
        print(f"  vectors: embedding stopped ({field(report.embed_error)}); search runs without them until fixed")
    for path, reason in report.failures[:50]:
        print(f"  failed  {field(path)}: {_line(reason)}")
    if len(report.failures) > 50:
        print(f"  … and {len(report.failures) - 50} more (memhtml-desktop doctor lists them all)")
    for skipped in report.skipped[:20]:
        print(f"  skipped {field(skipped.path)}: {field(skipped.reason)}")


def _matches_line(result) -> str:
    m = result.matches
    if m.form is None:
        return "no query words: ranked by the other arms"
    words = "every word" if m.form == "all" else "any of the words"
    if not m.any:
        return f"no memory in scope holds {words} of the query"
    if m.capped:
        return f"more than {counted(m.count, 'memory')} in scope hold {words} of the query"
    return f"{counted(m.count, 'memory in scope', 'memories in scope', verb=('holds', 'hold'))} {words} of the query"


def _relevance_line(result) -> str | None:
    r = result.relevance
    if r is None:
        return None
    cos = ""
    if r.top_cosine is not None:
        cos = f"; raw cosine top {r.top_cosine:.3f}, median {r.median_cosine:.3f} over {counted(r.candidates, 'candidate')}"
    return f"{r.below_floor} below the relevance floor (cosine {r.floor_cosine:g}){cos}"


def print_search(result) -> None:
    width = _width()
    arms = ", ".join(result.arms) or "none"
    form = f" · fts: {result.fts_form} terms" if result.fts_form else ""
    steps = ", ".join(STEP_NAMES.get(s, s) for s in result.steps) or "none"
    print(
        f"{counted(len(result.hits), 'hit')} for {result.query!r} · ranking: {result.ranking} (after fusion: {steps})"
        f" · arms: {arms}{form} · {result.elapsed_ms:.1f} ms"
    )
    print(f"  {_matches_line(result)}")
    relevance = _relevance_line(result)
    if relevance and result.hits:
        print(f"  {relevance}")
    for reason in result.degraded_reasons:
        print(f"  degraded: {field(reason)}")
    if result.scope_empty:
        print(f"0 live matches — {result.archived_matches} archived memories match these filters:")
        for pointer in result.archived:
            tail = f"  → superseded by {field(pointer.superseded_by)}" if pointer.superseded_by else ""
            print(f"  {field(pointer.path)}{tail}")
        return
    header = "  #  score    " + " ".join(f"{ARM_SHORT[a.name]:>4}" for a in RANK_ARMS) + "  title"
    if any(not a.counted for hit in result.hits for a in hit.arms):
        print(
            "  (rank): ranked but not counted: recency and salience count only for a memory that holds "
            "every query word or reaches the relevance floor"
        )
    print(header)
    for hit in result.hits:
        ranks = []
        for arm in RANK_ARMS:
            score = hit.arm(arm.name)
            if score is None:
                ranks.append("   -")
            else:
                ranks.append(f"{score.rank:>4}" if score.counted else f"{'(' + str(score.rank) + ')':>4}")
        title_width = max(20, width - len(header) + 5)
        print(f"{hit.position:>3}  {hit.score:.5f} {' '.join(ranks)}  {_clip(hit.title, title_width)}")
        low = "  · low relevance (no query word, cosine below the floor, nothing named)" if hit.low_relevance else ""
        print(f"{'':>15}{field(hit.path)}  [{hit.memory_type}]{low}")
        for move in hit.moves:
            print(f"{'':>15}{_clip(move.describe(), width - 17)}")
        for mark in hit.contradictions:  # the other's title, its path whole (a reader opens it), what each says
            print(f"{'':>15}{_clip(f'{chr(0x26A0)} {mark.mark}: {mark.other_title or mark.other}', width - 17)}")
            print(f"{'':>17}{field(mark.other)}")
            print(f"{'':>17}{_clip(mark.says(), width - 19)}")
        if hit.superseded_by:
            print(f"{'':>15}superseded by {field(hit.superseded_by)}")
        if hit.suspicious_date:
            print(f"{'':>15}dated in the future ({field(hit.suspicious_date)}): recency did not believe it")
        if hit.snippet:
            print(f"{'':>15}“{_clip(hit.snippet, width - 17)}”")


def print_why(report) -> None:
    print(f"{field(report.path)} for {report.query!r}: {report.status}")
    for reason in report.reasons:
        print(f"  - {_line(reason)}")
    if report.arms:
        note = " (ranks computed with the excluding filters relaxed)" if report.ranks_relaxed else ""
        print(f"  ranks in each arm, no candidate window{note}:")
        for name, entry in report.arms.items():
            rank = entry.get("rank")
            where = f"{rank} of {entry['ranked']}" if rank else f"not ranked (of {entry['ranked']})"
            window = " (inside the arm's candidate window)" if entry.get("in_window") else ""
            if entry.get("counted") is False:
                window += ", not counted (see above)"
            elif entry.get("normalised") is not None:
                window += (
                    f", contributes {entry['contribution']:.4f} (score {entry['normalised']:.3f} of the "
                    f"window's best \u00d7 weight {entry['weight']:.3g})"
                )
            print(f"    {name:<9} {where}{window}")
    if report.fused_position:
        print(f"  fused position {report.fused_position} (score {report.fused_score:.5f})")
    if report.search_position:
        print(f"  on the first page at position {report.search_position} (ranking: {report.ranking})")
        for move in report.moves:
            print(f"    moved by {move['step']} from {move['from']}: {move['reason']}")


def print_recall(pack) -> None:
    print(
        f"recall {pack.query!r} · ranking: {pack.ranking}: spent {pack.spent} chars; "
        f"memories {pack.memories.spent}/{pack.memories.budget}, "
        f"arcs {pack.arcs.spent}/{pack.arcs.budget}; truncated: {'yes' if pack.truncated else 'no'}"
    )
    for reason in pack.degraded_reasons:
        print(f"  degraded: {field(reason)}")
    for section in (pack.arcs, pack.memories):
        counts = section.counts
        print(
            f"\n{section.name.upper()} — quote {counts['quote']}, disclosure {counts['disclosure']}, index {counts['index']}"
        )
        for item in section.items:
            print(
                f"  {item.rank:>2}. [{item.tier.upper():<10}] {item.chars:>5} chars  {field(item.path)}  ({item.reason})"
            )
            for mark in item.contradictions:
                print(f"      {chr(0x26A0)} {mark.mark}: {field(mark.other_title or mark.other)} ({field(mark.other)})")


def print_detail(detail) -> None:
    print(field(detail.title))
    print(f"{field(detail.path)} · {field(detail.memory_type or '?')}{' · archived' if detail.archived else ''}")
    if detail.gist:
        print(f"\n  {field(detail.gist)}\n")
    for violation in detail.violations:
        print(f"  violation: {_line(violation)}")
    for warning in detail.warnings:
        print(f"  warning: {_line(warning)}")
    if detail.facets:
        print("facets:")
        for name, value, _ in detail.facets:
            print(f"  {field(name)}: {field(value)}")
    if detail.entities:
        print("entities: " + ", ".join(field(e) for e in detail.entities))
    if detail.tags:
        print("tags: " + ", ".join(field(t) for t in detail.tags))
    for link in detail.links:
        print(f"→ {link.rel} {field(link.path)}{'' if link.exists else ' (missing)'}")
    for link in detail.backlinks:
        print(f"← {link.rel} {field(link.path)}")
    if detail.superseded_by:
        print(f"superseded by {field(detail.superseded_by)}")
    if detail.suspicious_date:
        print(f"dated in the future ({field(detail.suspicious_date)}): recency ranks it by an earlier stamp")
    if detail.access:
        a = detail.access
        print(f"read {a['access_count']}× · last {field(a['last_accessed_at'])} · outcome {a['outcome_score']:+.2f}")
    if detail.bump is not None and detail.bump.queued:
        print(
            f"this read is not counted yet: {field(detail.bump.refused)}; it is kept (.memhtml/state.db-pending.jsonl) "
            "and counted, with this read's time, once state.db can be written"
        )
    elif detail.bump is not None and detail.bump.refused:
        print(f"this read was not counted: {field(detail.bump.refused)}")
    # The body keeps its own line breaks (it is prose, shown last, after a blank line); every other
    # control in it is escaped by the stream.
    print("\n" + detail.text.replace("\r", "\\r"))


def print_reinforce(result, signal: str) -> None:
    for path in result.bumped:
        print(f"counted     {field(path)}")
    for path in result.cooled_down:
        if not result.refused:
            print(f"cooled down {field(path)} (read within the last 15 minutes)")
    for path in result.signal_applied:
        print(f"{signal:<11} {field(path)}")
    for path in result.signal_cooled:
        if not result.refused:
            print(f"signal cooled {field(path)} (a signal within the last 15 minutes)")


def print_list(page) -> None:
    for memory in page.files:
        status = f" [{memory.task_status}]" if memory.task_status else ""
        print(f"{field(memory.path)}  {memory.memory_type}{status}  {_clip(memory.title, 70)}")
    if page.next_cursor:
        print(f"(more: --cursor {field(page.next_cursor)})")


def print_problems(problems, stats) -> None:
    print(
        f"{stats['active']} live memories, {stats['archived']} archived, {stats['failed']} failed to parse, "
        f"{stats['with_warnings']} with warnings; {stats['embedded']}/{stats['chunks']} chunks embedded"
    )
    for problem in problems:
        print(f"{problem.kind:<10} {field(problem.path)}")
        for line in problem.violations:
            print(f"    ✗ {_line(line)}")
        for line in problem.warnings:
            print(f"    ! {_line(line)}")
