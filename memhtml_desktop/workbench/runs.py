"""A run: one configuration on one probe set, every probe judged, the set's figures.

The store is read once per probe set (`prepare_set`: each arm's candidates per query, through
`index/arm_lists.py`), and each configuration is then fused and reordered in memory
(`domain/refusion.py`), so a comparison or the optimizer's hundreds of trials cost arithmetic,
not SQL. A preparation serves every configuration with the same lexical form (`fts_forms`) and an
arm window up to its own; `PreparedSet.serves` says whether it does.

What a run reports per probe (`domain/judging.ProbeVerdict`): the best target's rank in the list
(`limit` hits, 40 as memhtml's gate), the controls above it, pass/fail, reciprocal rank, nDCG@10,
recall@10, and for a failure the arm (or post-fusion step) that lost it. For the set
(`RunFigures`): MRR, nDCG@10, recall@10, passed, inversions, degraded probes. A probe whose target
no longer exists is left out and named (file and line); a missing control is named and ignored.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from memhtml_desktop.domain.configs import Configuration
from memhtml_desktop.domain.judging import ProbeVerdict, RunFigures, figures, judge
from memhtml_desktop.domain.probes import EvalProbe, ProbeProblem, ProbeSet
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.refusion import PreparedQuery, can_rerank, rerank
from memhtml_desktop.index.arm_lists import PrepareCancelled, path_states, prepare_queries
from memhtml_desktop.write.git import Git, GitError

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore

RUN_LIMIT = 40
"""Hits per probe, as memhtml's gate searches."""

STREAM_PROBES = 2000
"""A set larger than this is run streamed (`run_streamed`): read and judged a chunk at a time."""
STREAM_CHUNK = 250
"""Probes read from the store at once by a streamed run (one read transaction each)."""

Progress = Callable[[str, int, int], None]
"""`progress(stage, done, total)`: stage is "reading" (the store), "ranking" or "trial"."""


class Cancelled(Exception):
    """The caller's `cancelled()` turned true; nothing was recorded."""


@dataclass
class PreparedSet:
    """A probe set read from the store once: the probes that can run, their prepared queries (same
    order), and the problems met (missing targets and controls, with file and line)."""

    name: str
    source: str
    probes: tuple[EvalProbe, ...]
    queries: tuple[PreparedQuery, ...]
    problems: tuple[ProbeProblem, ...]
    fts_forms: str
    window: int
    model_id: str | None
    lexical_key: tuple = ()  # the preparing profile's (RankingProfile.lexical_key)
    skipped: int = 0
    head: str | None = None
    read_s: float = 0.0

    def serves(self, profile: RankingProfile) -> bool:
        """Whether `profile` can be ranked from this preparation without reading the store again."""
        return (
            all(can_rerank(q, profile) for q in self.queries)
            if self.queries
            else (profile.lexical_key == self.lexical_key and profile.arm_window <= self.window)
        )


@dataclass(frozen=True)
class Run:
    """One configuration on one probe set, as recorded in the history (`history.py`)."""

    id: str
    set_name: str
    config_name: str
    profile: Mapping[str, Any]
    started: str
    head: str | None
    embedder: str | None
    limit: int
    figures: RunFigures
    verdicts: tuple[ProbeVerdict, ...]
    problems: tuple[ProbeProblem, ...] = ()
    elapsed_s: float = 0.0
    source: str = ""
    not_recorded: str = ""  # why the history does not hold this run ("": recorded, or not asked to be)

    def verdict(self, key: str) -> ProbeVerdict | None:
        return next((v for v in self.verdicts if v.key == key), None)

    def to_json(self, *, probes: bool = True) -> dict[str, Any]:
        return {
            "id": self.id,
            "set": self.set_name,
            "source": self.source,
            "config": self.config_name,
            "profile": dict(self.profile),
            "started": self.started,
            "head": self.head,
            "embedder": self.embedder,
            "limit": self.limit,
            "elapsed_s": round(self.elapsed_s, 3),
            "figures": self.figures.to_json(),
            "problems": [p.to_json() for p in self.problems],
            "probes": [v.to_json() for v in self.verdicts] if probes else [],
            **({"not_recorded": self.not_recorded} if self.not_recorded else {}),
        }

    def json_chunks(self, indent: int | None = None) -> Iterator[str]:
        """`to_json()` as JSON text, a verdict a piece: a run of 100,000 probes is written (to the
        history, to stdout) without building its whole dict or text in memory."""
        text = json.dumps(self.to_json(probes=False), ensure_ascii=False, indent=indent)
        before, after = text.rsplit('"probes": []', 1)
        yield before + '"probes": ['
        step = "\n" + " " * (2 * indent) if indent else ""
        for n, verdict in enumerate(self.verdicts):
            yield ("," if n else "") + step + json.dumps(verdict.to_json(), ensure_ascii=False)
        yield ("\n" + " " * indent if indent and self.verdicts else "") + "]" + after

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Run":
        return cls(
            id=str(data["id"]),
            set_name=str(data.get("set", "")),
            config_name=str(data.get("config", "")),
            profile=dict(data.get("profile") or {}),
            started=str(data.get("started", "")),
            head=data.get("head"),
            embedder=data.get("embedder"),
            limit=int(data.get("limit", RUN_LIMIT)),
            figures=RunFigures.from_json(data["figures"]),
            verdicts=tuple(ProbeVerdict.from_json(v) for v in data.get("probes", ())),
            problems=tuple(
                ProbeProblem(int(p.get("line", 0)), str(p.get("message", "")), str(p.get("source", "")))
                for p in data.get("problems", ())
            ),
            elapsed_s=float(data.get("elapsed_s", 0.0)),
            source=str(data.get("source", "")),
        )


def store_head(root) -> str | None:
    """The store's git HEAD commit (None: not a repository, or an unborn branch)."""
    try:
        return Git(root).head()
    except GitError:
        return None


def check_probe_paths(store: WorkbenchStore, probe_set: ProbeSet) -> tuple[list[EvalProbe], list[ProbeProblem], int]:
    """Probes whose targets exist (missing controls dropped), and a problem per missing memory."""
    source = probe_set.source or probe_set.name
    wanted = [p for probe in probe_set.probes for p in (*probe.targets, *probe.controls)]
    states = path_states(store, wanted)
    present = set(states)
    kept: list[EvalProbe] = []
    problems: list[ProbeProblem] = []
    skipped = 0
    for probe in probe_set.probes:
        where = source
        targets = tuple(t for t in probe.targets if t in present)
        missing = [t for t in probe.targets if t not in present]
        for path in missing:
            problems.append(ProbeProblem(probe.line, f"target {path} is not in the store (deleted or moved?)", where))
        if not targets:
            skipped += 1
            continue
        for path in targets:
            if states[path] and not (probe.scope is not None and (probe.scope.include_archived or probe.scope.as_of)):
                problems.append(
                    ProbeProblem(
                        probe.line,
                        f"target {path} is archived: outside the default scope, "
                        "so the probe cannot pass (give it a scope with include_archived)",
                        source,
                    )
                )
        lost = [c for c in probe.controls if c not in present]
        for path in lost:
            problems.append(ProbeProblem(probe.line, f"control {path} is not in the store; ignored", where))
        if missing or lost:
            probe = replace(
                probe, target=targets[0], targets=targets[1:], controls=tuple(c for c in probe.controls if c in present)
            )
        kept.append(probe)
    return kept, problems, skipped


def prepare_set(
    store: WorkbenchStore,
    probe_set: ProbeSet,
    profile: RankingProfile,
    *,
    window: int | None = None,
    with_cosines: bool = False,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> PreparedSet:
    """Read each probe's arm candidates once (`profile.fts_forms`, arm window `window` or the
    profile's). Raises Cancelled. Runs on a worker thread: it reads SQLite and embeds queries."""
    started = time.perf_counter()
    probes, problems, skipped = check_probe_paths(store, probe_set)
    window = max(window or profile.arm_window, profile.arm_window)
    asks = [(p.query, p.scope, (*p.targets, *p.controls)) for p in probes]
    try:
        queries = prepare_queries(
            store, asks, profile, window=window, with_cosines=with_cosines, cancelled=cancelled, progress=progress
        )
    except PrepareCancelled:
        raise Cancelled("cancelled while reading the store") from None
    source = probe_set.source or probe_set.name
    return PreparedSet(
        name=probe_set.name,
        source=source,
        probes=tuple(probes),
        queries=tuple(queries),
        problems=(*probe_set.problems, *problems),
        fts_forms=profile.fts_forms,
        window=window,
        lexical_key=profile.lexical_key,
        model_id=getattr(store.embedder, "model_id", None),
        skipped=skipped,
        head=store_head(store.root),
        read_s=time.perf_counter() - started,
    )


def judge_prepared(
    prepared: PreparedSet,
    profile: RankingProfile,
    *,
    limit: int = RUN_LIMIT,
    indexes: Sequence[int] | None = None,
    cancelled: Callable[[], bool] | None = None,
    progress: Progress | None = None,
) -> list[ProbeVerdict]:
    """Every probe (or those at `indexes`) ranked under `profile` and judged. Pure arithmetic."""
    if not prepared.serves(profile):
        raise ValueError(
            f"configuration {profile.name!r} needs its own reading of the store "
            f"(lexical form {profile.fts_forms}, index {profile.lexical}, arm window {profile.arm_window})"
        )
    chosen = range(len(prepared.probes)) if indexes is None else indexes
    out: list[ProbeVerdict] = []
    total = len(chosen)
    for n, i in enumerate(chosen):
        if cancelled is not None and n % 16 == 0 and cancelled():
            raise Cancelled("cancelled while ranking")
        query = prepared.queries[i]
        ranked = rerank(query, profile, limit, prepared.model_id)
        out.append(judge(prepared.probes[i], ranked.paths, trace=ranked.trace, degraded=query.degraded))
        if progress is not None and (n + 1) % 25 == 0:
            progress("ranking", n + 1, total)
    return out


def new_run_id(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond // 1000:03d}-" + secrets.token_hex(3)


def run_configuration(
    store: WorkbenchStore,
    probe_set: ProbeSet,
    config: Configuration,
    *,
    limit: int = RUN_LIMIT,
    prepared: PreparedSet | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Run:
    """Run `config` on `probe_set` (re-using `prepared` when it serves the configuration).
    Raises Cancelled. The caller records the run (`RunHistory.record`)."""
    started = time.perf_counter()
    now = datetime.now(timezone.utc)
    profile = config.profile
    if prepared is None or not prepared.serves(profile):
        prepared = prepare_set(store, probe_set, profile, progress=progress, cancelled=cancelled)
    verdicts = judge_prepared(prepared, profile, limit=limit, cancelled=cancelled, progress=progress)
    return Run(
        id=new_run_id(now),
        set_name=probe_set.name,
        config_name=config.name,
        profile=profile.to_json(),
        started=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        head=prepared.head,
        embedder=prepared.model_id,
        limit=limit,
        figures=figures(verdicts, skipped=prepared.skipped),
        verdicts=tuple(verdicts),
        problems=prepared.problems,
        elapsed_s=time.perf_counter() - started,
        source=prepared.source,
    )


def run_streamed(
    store: WorkbenchStore,
    probe_set: ProbeSet,
    config: Configuration,
    *,
    limit: int = RUN_LIMIT,
    chunk: int | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Run:
    """`run_configuration` for a very large set, in bounded memory: `chunk` probes are read from the
    store (each chunk one read transaction), ranked and judged, and their arm lists dropped before
    the next chunk, so what grows with the set is its verdicts, not every query's candidates (100,000
    probes held 1.2 GB and rising that way). Nothing is cached for another configuration: a
    comparison or the optimizer reads the store again. Progress is `("reading", done, total)`."""
    started = time.perf_counter()
    now = datetime.now(timezone.utc)
    profile = config.profile
    probes, problems, skipped = check_probe_paths(store, probe_set)
    model_id = getattr(store.embedder, "model_id", None)
    paths: dict[str, str] = {}  # one string per path across the verdicts' first pages

    def shared(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(paths.setdefault(v, v) for v in values)

    verdicts: list[ProbeVerdict] = []
    total = len(probes)
    chunk = max(1, chunk or STREAM_CHUNK)
    for start in range(0, total, chunk):
        part = probes[start : start + chunk]
        asks = [(p.query, p.scope, (*p.targets, *p.controls)) for p in part]
        try:
            queries = prepare_queries(store, asks, profile, window=profile.arm_window, cancelled=cancelled)
        except PrepareCancelled:
            raise Cancelled("cancelled while reading the store") from None
        for probe, query in zip(part, queries):
            ranked = rerank(query, profile, limit, model_id)
            verdict = judge(probe, ranked.paths, trace=ranked.trace, degraded=query.degraded)
            verdicts.append(replace(verdict, top=shared(verdict.top), inverted=shared(verdict.inverted)))
        del queries
        if progress is not None:
            progress("reading", start + len(part), total)
    return Run(
        id=new_run_id(now),
        set_name=probe_set.name,
        config_name=config.name,
        profile=profile.to_json(),
        started=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        head=store_head(store.root),
        embedder=model_id,
        limit=limit,
        figures=figures(verdicts, skipped=skipped),
        verdicts=tuple(verdicts),
        problems=(*probe_set.problems, *problems),
        elapsed_s=time.perf_counter() - started,
        source=probe_set.source or probe_set.name,
    )
