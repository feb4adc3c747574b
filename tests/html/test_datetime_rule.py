"""The `<time datetime>` / `memhtml-due` grammar (spec §2.3 and §8 item 9)."""

from __future__ import annotations

import pytest

from memhtml_desktop.html.datetime_rule import is_valid_datetime


@pytest.mark.parametrize(
    "value",
    [
        "2026-07-28",
        "2026-07-28 14:03Z",
        "2026-07-28T14:03:60+0530",
        "2024-02-29",
        "2026-07-28T14:03+02:00",
        "2026-08-02T14:03:11Z",
        "2026-08-02T14:03:11.123456Z",
        "2026-08-02T23:59",
        "0100-01-01",
        "2000-02-29",
        "9999-12-31",
    ],
)
def test_accepted(value: str) -> None:
    assert is_valid_datetime(value)


@pytest.mark.parametrize(
    "value",
    [
        "2026-07",
        "2026-W31",
        "2026-8-9",
        "2025-02-29",
        "1900-02-29",
        "2026-07-28T24:00",
        "2026-07-28t14:03Z",
        "2026-07-28T14:03:11-07",
        "+2026-07-28",
        "14:03",
        "P3D",
        "2026",
        "0099-01-01",  # Date.UTC maps years 0-99 to the 1900s
        "0000-01-01",
        "2026-13-45",
        "2026-00-10",
        "2026-04-31",
        "2026-07-28T14:03:61",
        "2026-07-28\n",  # JS `$` does not match before a trailing newline
        "\u0662\u0660\u0662\u0666-07-28",  # Arabic-Indic digits are not JS \d
        "",
        " 2026-07-28",
    ],
)
def test_rejected(value: str) -> None:
    assert not is_valid_datetime(value)
