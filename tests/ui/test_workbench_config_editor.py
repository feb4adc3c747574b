"""The Configurations tab's editor shows every knob of the ranking profile, made from its schema
(`domain/knobs.py`), so a knob added to the profile appears without editing the window (issue 24).

The editor is the real widget, offscreen; the draft it makes is read back by the core's own parser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from types import SimpleNamespace

import pytest

from memhtml_desktop.domain.configs import parse_configuration, shipped
from memhtml_desktop.domain.knobs import NOT_KNOBS, knobs
from memhtml_desktop.domain.ranking import DEFAULT, HASH_MODEL, MINILM_INT8_MODEL, PROFILES, RankingProfile
from memhtml_desktop.ui.workbench import config_editor
from memhtml_desktop.ui.workbench.config_editor import ConfigEditor

PROFILE_KNOBS = sorted(f.name for f in fields(RankingProfile) if f.name not in NOT_KNOBS)


def editor(qtbot, model_id: str | None = HASH_MODEL) -> ConfigEditor:
    widget = ConfigEditor()
    qtbot.addWidget(widget)
    widget.set_configurations(SimpleNamespace(configurations=shipped(), problems=()), model_id)
    return widget


def pick(widget: ConfigEditor, name: str) -> None:
    widget.list.setCurrentRow([c.name for c in widget.configs].index(name))


def test_every_knob_of_the_profile_has_a_described_field(qtbot):
    widget = editor(qtbot)
    assert sorted(widget.fields) == PROFILE_KNOBS
    for name in ("lexical_share", "lexical", "field_weights", "question_words", "fusion", "convex_norm"):
        assert name in widget.fields  # the convex fusion's and the stemmed arm's knobs, missing before
    for knob in knobs():
        field = widget.fields[knob.name]
        assert knob.described, f"{knob.name} has no description in domain/knobs.py"
        boxes = list(field.boxes.values()) or [field.widget]
        for box in boxes:
            assert box.toolTip() and box.accessibleName(), knob.name
    assert widget.fields["field_weights"].boxes.keys() == {"title", "claim", "body"}
    assert widget.arms is widget.fields["arms"].boxes and set(widget.arms) == set(DEFAULT.arm_names)


@pytest.mark.parametrize("model_id", [HASH_MODEL, MINILM_INT8_MODEL, None])
@pytest.mark.parametrize("profile", ["memhtml", "default"])
def test_a_shipped_profile_loads_and_reads_back_unchanged(qtbot, profile, model_id):
    widget = editor(qtbot, model_id)
    pick(widget, profile)
    draft = widget.draft()
    assert draft is not None and dict(draft.knobs) == {}, widget.verdict.text()
    assert draft.profile == PROFILES[profile].__class__(
        **{**PROFILES[profile].__dict__, "name": draft.profile.name, "summary": draft.profile.summary}
    )


def _nudge(field) -> None:
    """Move one knob's field to another allowed value."""
    kind, w = field.knob.kind, field.widget
    if kind in ("arms", "fields"):
        w = next(iter(field.boxes.values()))
    if kind == "switch":
        w.setChecked(not w.isChecked())
    elif kind == "choice":
        w.setCurrentIndex((w.currentIndex() + 1) % w.count())
    else:
        step = max(w.singleStep(), 1 if kind == "whole" else 0.05)
        w.setValue(w.value() + step if w.value() + step <= w.maximum() else w.value() - step)


@pytest.mark.parametrize("name", PROFILE_KNOBS)
def test_each_field_changes_its_own_knob_and_no_other(qtbot, name):
    widget = editor(qtbot, MINILM_INT8_MODEL)
    pick(widget, "default")
    _nudge(widget.fields[name])
    draft = widget.draft()
    assert draft is not None, widget.verdict.text()
    assert list(draft.knobs) == [name], widget.verdict.text()
    # the file it would be saved as reads back to the same profile
    text = config_editor.configuration_text(draft.profile, base=DEFAULT, name=draft.name)
    assert parse_configuration(text, name=draft.name).profile == draft.profile


def test_the_lexical_share_is_this_embedders_only(qtbot):
    widget = editor(qtbot, MINILM_INT8_MODEL)
    pick(widget, "default")
    share = widget.fields["lexical_share"].widget
    assert share.value() == pytest.approx(DEFAULT.lexical_share.get(MINILM_INT8_MODEL))
    share.setValue(0.4)
    written = json.loads(config_editor.configuration_text(widget.draft().profile, base=DEFAULT, name="x"))
    table = written["lexical_share"]
    assert table[MINILM_INT8_MODEL] == 0.4 and table[HASH_MODEL] == DEFAULT.lexical_share.get(HASH_MODEL)
    share.setValue(1.5)  # held inside the core's range
    assert share.value() == 1.0


def test_a_knob_added_to_the_profile_appears_without_editing_the_window(qtbot, monkeypatch):
    @dataclass(frozen=True)
    class Tomorrow(RankingProfile):
        novel_weight: float = 0.25
        novel_switch: bool = True

    base = Tomorrow(**{f.name: getattr(DEFAULT, f.name) for f in fields(RankingProfile)})
    added = {k.name: k for k in knobs(base)}
    assert set(added) == set(PROFILE_KNOBS) | {"novel_weight", "novel_switch"}
    assert added["novel_weight"].kind == "number" and added["novel_switch"].kind == "switch"
    assert not added["novel_weight"].described and added["novel_weight"].group == "Other"
    monkeypatch.setattr(config_editor, "knobs", lambda: knobs(base))
    widget = ConfigEditor()
    qtbot.addWidget(widget)
    assert {"novel_weight", "novel_switch"} <= set(widget.fields)
    field = widget.fields["novel_weight"]
    field.load(base, HASH_MODEL)
    assert field.widget.value() == 0.25 and "not described yet" in field.widget.toolTip()
    assert widget.fields["novel_switch"].widget.text() == "Novel switch"
