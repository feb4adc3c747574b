"""What the text of a write may hold, and how big the file it makes may be.

memhtml writes whatever it is given. Three things it lets through do harm here:

* a control character (ESC, BEL, an OSC sequence's C1 introducer, NUL): written raw into a title it
  lands in the commit subject, and `git log` in a terminal then runs it (clears the screen, retitles
  the window, beeps); NUL cannot even be passed to git as an argument. Tab, line feed and carriage
  return are whitespace, not controls, and stay allowed;
* an unpaired surrogate (a JSON `\\ud800` escape): it is not Unicode text and cannot be written as UTF-8;
* a file over the index's size limit (8 MB, `index/scanner.MAX_FILE_BYTES`): committed with
  `"ok": true`, it would then be refused by this app's reader and index forever.

Each is refused before anything is written, with one sentence naming the field and the character.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from memhtml_desktop.index.curation import MAX_FILE_BYTES
from memhtml_desktop.write.errors import InvalidMemory

# C0 controls but tab, LF, CR; DEL; the C1 controls (U+0080-U+009F: U+009B is CSI, U+009D is OSC).
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
SURROGATE = re.compile("[\ud800-\udfff]")
NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x1B: "ESC", 0x7F: "DEL", 0x9B: "CSI", 0x9D: "OSC"}


def character_name(ch: str) -> str:
    """`U+001B ESC`: the code point and its usual name."""
    code = ord(ch)
    name = NAMES.get(code) or unicodedata.name(ch, "")
    return f"U+{code:04X} {name}".rstrip() if name else f"U+{code:04X}"


def text_problem(value: str) -> str | None:
    """Why `value` cannot be written (a control character, an unpaired surrogate), or None."""
    bad = SURROGATE.search(value)
    if bad is not None:
        return f"holds an unpaired surrogate ({character_name(bad.group())}), which is not Unicode text"
    bad = CONTROL.search(value)
    if bad is not None:
        return f"holds a control character ({character_name(bad.group())}), which a memory never needs"
    return None


def check_texts(**fields: str | Iterable[str] | None) -> None:
    """Refuse the first field (by keyword name, `_` read as a space) whose text cannot be written."""
    for name, value in fields.items():
        values = [value] if isinstance(value, str) else list(value or ())
        for text in values:
            problem = text_problem(text) if isinstance(text, str) else None
            if problem:
                raise InvalidMemory(f"the {name.replace('_', ' ')} {problem}: remove it and try again")


def check_size(text: str) -> None:
    """Refuse a file the index and the reader would refuse (over `MAX_FILE_BYTES`)."""
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise InvalidMemory(
            f"the memory would be {size / 1_048_576:.1f} MB, over the {MAX_FILE_BYTES // 1_048_576} MB a memory "
            "file may be (the index and the reader skip larger files): shorten it or split it"
        )
