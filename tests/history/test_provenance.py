"""A memory's provenance follows its real moves, and only those (history/provenance.py).

Real repositories, three git identities. `git log --follow` looked for an added file's source among
every file of the tree: a memory written from a template was traced into another memory's history,
its author and date given as the new memory's. Each case here fails on that.
"""

from __future__ import annotations

from pathlib import Path

from history.support import AGENT, AGENT_AUTHOR, PERSON, PERSON_AUTHOR, git, isolate, seed
from memhtml_desktop.history.provenance import provenance_of
from memhtml_desktop.write.git import Git

MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
CAROL = {
    "GIT_AUTHOR_NAME": "Carol Archivist",
    "GIT_AUTHOR_EMAIL": "carol@example.invalid",
    "GIT_COMMITTER_NAME": "Carol Archivist",
    "GIT_COMMITTER_EMAIL": "carol@example.invalid",
}


def _commit(root: Path, message: str, who: dict) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, who=who)
    return git(root, "rev-parse", "HEAD").strip()


def test_an_archived_memory_is_traced_through_its_moves_to_its_writer(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    root = seed(tmp_path)
    written = git(root, "rev-parse", "HEAD").strip()
    target = root / MEMORY
    target.write_text(target.read_text().replace("</article>", "<p>Checked again in March.</p></article>"))
    edited = _commit(root, "agent: a line on the ALB delay", AGENT)
    archived_at = "archive/2026/" + MEMORY
    (root / archived_at).parent.mkdir(parents=True, exist_ok=True)
    git(root, "mv", MEMORY, archived_at)
    archived = _commit(root, "archive: the ALB delay", CAROL)
    restored_at = "areas/oncall/alb-deregistration-delay.html"
    git(root, "mv", archived_at, restored_at)
    restored = _commit(root, "restore: the ALB delay, under on-call", PERSON)

    found = provenance_of(Git(root), restored_at)

    assert found.written is not None and found.written.commit == written
    assert found.written.author == PERSON_AUTHOR
    assert [t.commit for t in found.since] == [restored, archived, edited]
    assert found.since[-1].author == AGENT_AUTHOR and found.total == 4


def test_a_memory_written_from_a_template_is_not_given_the_templates_history(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    root = seed(tmp_path)
    source = (root / MEMORY).read_text()
    copy = "resources/infra/staging-alb-deregistration-delay-is-120-seconds.html"
    (root / copy).write_text(source.replace("prod", "staging"))  # a near-copy, nothing removed
    wrote = _commit(root, "agent: staging's ALB delay", AGENT)

    found = provenance_of(Git(root), copy)

    assert found.written is not None and found.written.commit == wrote, found
    assert found.written.author == AGENT_AUTHOR and found.total == 1 and found.since == ()
    # and the original keeps its own
    assert provenance_of(Git(root), MEMORY).written.author == PERSON_AUTHOR


def test_a_move_and_a_copy_in_one_commit_follow_the_move(tmp_path, monkeypatch):
    """The commit that archives a memory also writes a near-copy of it: the archived file follows
    its move; the copy is written by that commit."""
    isolate(monkeypatch, tmp_path)
    root = seed(tmp_path)
    written = git(root, "rev-parse", "HEAD").strip()
    archived_at = "archive/2026/" + MEMORY
    (root / archived_at).parent.mkdir(parents=True, exist_ok=True)
    git(root, "mv", MEMORY, archived_at)
    copy = "resources/infra/prod-alb-deregistration-delay-is-300-seconds.html"
    (root / copy).write_text((root / archived_at).read_text().replace("120", "300"))
    both = _commit(root, "correct: the ALB delay is 300 s", CAROL)

    moved = provenance_of(Git(root), archived_at)
    assert moved.written.commit == written and [t.commit for t in moved.since] == [both]
    fresh = provenance_of(Git(root), copy)
    assert fresh.written.commit == both and fresh.total == 1
