"""The frame key (`domain/tests/frame.test.ts` cases and the guards)."""

from __future__ import annotations

import pytest

from memhtml_desktop.html.frame import frame_key_of


@pytest.mark.parametrize(
    ("gist", "key"),
    [
        ("The capital of India is New Delhi.", "the capital of india is"),
        ("The Capital of India  is\u00a0X", "the capital of india is"),
        ("Water is wet.", None),  # a two-token frame is ordinary prose
        ("The answer to it is one two three four five six seven", None),  # 7-token value
        ("The answer to it is one two three four five six", "the answer to it is"),
        ("No linking token here at all", None),
        ("", None),
        ("Mississippi barges often pass south", None),  # \b: "is"/"as" inside words do not link
        ("the default isolation level is serializable", "the default isolation level is"),
    ],
)
def test_frame_key(gist: str, key: str | None) -> None:
    assert frame_key_of(gist) == key
