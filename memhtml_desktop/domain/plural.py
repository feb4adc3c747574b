"""A count and its noun, agreeing: "1 memory", "2 memories", "1,284 probes", "0 hits".

The one helper for every count-and-noun string of the window and the command line (issue 41 found
"1 memory in scope hold" and "1 probes moved", each written by hand with the plural always on).
English only: `noun` is the singular; the plural is regular unless given ("-y" after a consonant
makes "-ies", "-s", "-x", "-ch", "-sh" take "-es"). `verb` agrees with the count too: `counted(1,
"memory", verb=("holds", "hold"))` is "1 memory holds".
"""

from __future__ import annotations

_VOWELS = "aeiou"


def plural_of(noun: str) -> str:
    """The regular English plural of `noun` (its last word: "index line" -> "index lines")."""
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in _VOWELS:
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def noun_for(n: int, noun: str, plural: str | None = None) -> str:
    """`noun` as a count of `n` takes it: singular for exactly 1 (and -1), else the plural."""
    return noun if abs(n) == 1 else (plural or plural_of(noun))


def counted(n: int, noun: str, plural: str | None = None, *, verb: tuple[str, str] | None = None) -> str:
    """ "1 memory", "1,284 memories"; with `verb=(singular, plural)`, the verb agreeing after it."""
    text = f"{n:,} {noun_for(n, noun, plural)}"
    if verb is not None:
        text += " " + (verb[0] if abs(n) == 1 else verb[1])
    return text
