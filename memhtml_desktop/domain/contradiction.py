"""Whether two memories contradict each other, why, and which of the two is newer.

One rule for the conflicts scan (every pair in the store) and the ranking's newer-first step (the
pairs among one query's candidates), so a pair the view lists is the pair search marks.

Two claims contradict when they put different values into one slot. A slot is found three ways:

- **the frame** (`slot`): both claims state memhtml's frame key (`html/frame.py`: "The capital of
  India is" + a value) and their values differ. memhtml only uses the key inside `apply
  --consolidate`; it finds the pair whatever the vectors say (the hash embedder does not make
  "…is Paris" and "…is Lyon" near-twins).
- **the words** (`negation`, `number`, `date`, `qualifier`, `entity`, `value`): the claims say the
  same thing in the same words except at one place, and what differs there is a negation, a number,
  a date, a variant qualifier, a name, or a value (a code identifier, a version). The words are
  aligned (a longest-common-subsequence diff of the normalised tokens), and the differing places must
  hold nothing else, which is where precision comes from: "a high-pass filter" against "a
  band-reject filter" holds the marker `reject`, but the words around it differ too (`high pass`
  against `band`), so it is not a negation; "CVE-2020-27783" added to a sentence is not a changed
  number (nothing replaced it); "Sent after the setup of every global logger" against "…every single
  task logger" differs in more than a negation.
- **the content words** (`value`): worded differently ("The capital of Peru is Lima" against "Peru
  has its capital in Cusco"), the claims share their content words but one name, number or date
  each.
- **the relation in other words** (`reworded`): "About 880,500 people live in Zaria" against "The
  population of Zaria is 980,000": short claims with a name in common (the subject), one value each
  of one kind (a number against a number, a name against a name, an identifier against an
  identifier), the value where a value stands, nothing else value-like differing, and neither claim
  the other with words added (a narrower subject, more said). Words alone
  cannot tell that from two relations of one subject ("The capital of Gambia is Banjul" against
  "Gambia lies in Africa"), so the two memories' vectors must be near-twins as well
  (`REWORDED_COSINE`, given by the caller: the conflicts scan and the newer-first step have them).
  With MiniLM that separates them on the fact stores (docs/ranking.md); the hash embedder's vectors
  of two wordings are never that close, so with it the rule flags nothing.

What is *not* a slot, so never a contradiction: a frame with no subject of its own ("This is
equivalent to …", "Sent after …", "It is located in …": documentation states those about the
heading it sits under, so two of them are about two things); values that are prose rather than a
name, a number, a date or an identifier ("every global logger" against "every task logger": that is
two statements, not two values); two values one of which contains the other ("Euro" and "the Euro").

Newer: the later of each side's time, the event time (the article's first `<time datetime>`) when
it has one, else its written time (`memhtml-created`); written time breaks a tie; a tie on both
leaves neither newer. Times are compared as text, as the index compares them, on the shorter of the
two's precision (a day against an instant compares the day).
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Callable

from memhtml_desktop.domain import text_memo
from memhtml_desktop.domain.polarity import NEGATION_MARKERS, VARIANT_QUALIFIERS, normalise
from memhtml_desktop.domain.stopwords import STOPWORD_SET

_intern = sys.intern

SLOT, NEGATION, NUMBER, DATE, QUALIFIER, ENTITY, VALUE, REWORDED = (
    "slot",
    "negation",
    "number",
    "date",
    "qualifier",
    "entity",
    "value",
    "reworded",
)
REASONS = (SLOT, NEGATION, NUMBER, DATE, QUALIFIER, ENTITY, VALUE, REWORDED)

#: Words a frame never takes its subject from: a frame starting with one states nothing of its own.
_DEICTIC = frozenset(
    "this that these those it its they them there here we you i he she which what who one see default note also".split()
)
#: Words that change with a negation and say nothing else ("does not merge" against "merges").
_AUXILIARY = frozenset(
    "do does did is are was were be been has have had will would can could should shall must may might".split()
)
_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
#: Words a variant scope is written with besides the qualifier ("…, on the beta variant only").
_SCOPE_WORDS = frozenset("on in for the a an variant variants only edition tier plan channel build release".split())
#: A written token: letters and digits, with inner `.`, `_`, `-`, `/`, `'` kept (`math.isqrt`, `Europe/Paris`, 3.8).
#: A number written with thousands separators is one token ("880,500": split at its comma, "383,400" against
#: "400,000" shared a "400" and aligned as two places, neither a number changed).
_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,])|[^\W_](?:[\w.\-/'’]*[^\W_])?(?:\(\))?", re.UNICODE)
MAX_VALUE_TOKENS = 4
MIN_SHARED = 3


@dataclass(frozen=True)
class Statement:
    """One side: its path, title, claim (gist), memhtml frame key, event time and written time."""

    path: str
    claim: str
    frame_key: str | None = None
    event_at: str | None = None
    created_at: str | None = None
    title: str = ""
    #: `blocking_keys(claim, frame_key)`, when the index already holds them (files.contradiction_keys).
    keys: tuple[str, ...] | None = None

    @property
    def when(self) -> str:
        return self.event_at or self.created_at or ""


@dataclass(frozen=True)
class Contradiction:
    """Why two claims contradict: `reason` one of REASONS, `detail` a sentence naming the values."""

    reason: str
    detail: str
    value_a: str = ""
    value_b: str = ""


@dataclass(frozen=True, slots=True)
class _Word:
    text: str  # as written
    norm: str  # lower case, apostrophes folded
    start: int


def _pieces(token: str) -> list[str]:
    """`normalise(token).split()`. An ASCII token with no apostrophe and no "cannot" in it is only
    lowered: NFC, the apostrophe fold and every contraction leave it as it is, and a token holds no
    space. That is nearly every token, and the conflicts scan reads every claim of the store
    (normalise's 18 replacements per token were two thirds of a cold scan at 20,000 memories)."""
    if token.isascii() and "'" not in token:
        lowered = token.lower()
        if "cannot" not in lowered:
            return [lowered]
    return normalise(token).split()


@text_memo.per_text
def _words(text: str) -> tuple[_Word, ...]:
    out = []
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        for piece in _pieces(token):
            norm = piece.strip(".'")
            if norm:
                out.append(_Word(_intern(token), _intern(norm), m.start()))
    return tuple(out)


def _norms(text: str) -> list[str]:
    """The `norm` of each of `_words(text)`, without making the words (what `word_keys` needs). An
    ASCII text with no apostrophe and no "cannot" is lowered whole: each token only lowers (see
    `_pieces`), lowering ASCII moves no token's bounds, and a token neither starts nor ends with
    `.` or `'`."""
    lowered = text.lower()
    if text.isascii() and "'" not in text and "cannot" not in lowered:
        return _TOKEN.findall(lowered)
    return [norm for token in _TOKEN.findall(text) for piece in _pieces(token) if (norm := piece.strip(".'"))]


_NUMERAL = re.compile(r"[+\-]?\d[\d,.:]*(?:%|ms|s|h|m|k|kb|mb|gb|tb|x)?")


def _is_number(word: str) -> bool:
    """A numeral ("800", "1,234", "3.8", "99%", "30s"), not an identifier that holds a digit ("html5", "p99")."""
    return bool(_NUMERAL.fullmatch(word))


def _is_date_word(word: str) -> bool:
    return word in _MONTHS or bool(re.fullmatch(r"\d{4}(-\d\d){0,2}|\d{1,2}(st|nd|rd|th)?", word))


def _dateish(words: set[str]) -> bool:
    """Words that write a date: each a month, a day or a year, one of them a month or a year."""
    return (
        bool(words)
        and all(_is_date_word(w) for w in words)
        and any(w in _MONTHS or re.fullmatch(r"\d{4}(-\d\d){0,2}", w) for w in words)
    )


def _atomic(words: list[_Word], claim_start: bool) -> bool:
    """A value rather than prose: at most MAX_VALUE_TOKENS words, one of them a name (capitalised
    where a sentence does not start), a number, or an identifier (`math.isqrt`, `Europe/Paris`)."""
    if not 1 <= len(words) <= MAX_VALUE_TOKENS:
        return False
    for i, w in enumerate(words):
        if _is_number(w.norm) or any(ch in w.text for ch in "._/()"):
            return True
        if w.text[:1].isupper() and not (claim_start and i == 0) and w.norm not in STOPWORD_SET:
            return True
    return False


def _content(words) -> set[str]:
    return {_intern(_stem(w.norm)) for w in words if w.norm not in STOPWORD_SET}


@text_memo.per_text
def _content_of(claim: str) -> frozenset[str]:
    return frozenset(_content(_words(claim)))


#: Claims whose content words differ by more than this cannot differ in one place of a few words.
_MAX_CONTENT_DIFFERENCE = 2 * MAX_VALUE_TOKENS + 2


@functools.lru_cache(maxsize=65536)  # a word each, not a text: the vocabulary fills it early
def _stem(word: str) -> str:
    """A crude stem, enough to see "merges", "merged" and "merge" as one word."""
    if _is_number(word) or len(word) < 5:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if word.endswith("ed"):
        return word[:-2]
    return word[:-1] if word.endswith("e") else word


_ONE_OF = re.compile(
    r"\b(?:is|are|was|were|as|be)\s+(?:a|an|one\s+of\s+the|one\s+of|among\s+the)\s+\S+(?:\s+\S+)?\s+of$"
)


def generic_frame(frame_key: str) -> bool:
    """A frame that is not one slot: it starts with a pronoun or deictic word, holds no word besides
    function words and its relation word, or names one of several ("X is a neighbour of", "X is one
    of the members of": a relation that holds many values at once, so two values are two facts)."""
    words = frame_key.split()
    if not words or words[0].strip(":,") in _DEICTIC:
        return True
    if _ONE_OF.search(frame_key):
        return True
    return len([w for w in words if w not in STOPWORD_SET]) < 2


def _value_of(claim: str, frame_key: str) -> list[_Word]:
    """The claim's words after its frame (the frame is the claim's first words, lowercased)."""
    words = _words(claim)
    frame_len = len(_words(frame_key))
    lowered = _words(claim.lower())
    if len(lowered) != len(words) and len(lowered) >= frame_len:
        # lowering split a word ("İzmir" lowers to "i̇zmir", whose combining dot is no letter): the
        # frame ends where its last word ends in the lowered claim, and the value starts there
        end = lowered[frame_len - 1].start + len(lowered[frame_len - 1].text) if frame_len else 0
        at, cut = 0, 0
        for at, ch in enumerate(claim):
            if cut >= end:
                break
            cut += len(ch.lower())
        else:
            at = len(claim)
        return [w for w in words if w.start >= at]
    return list(words[frame_len:])


def slot_value(claim: str, frame_key: str) -> str:
    """The value a claim writes into its frame, normalised (lower case, function words out)."""
    return " ".join(w.norm for w in _value_of(claim, frame_key) if w.norm not in STOPWORD_SET)


@text_memo.per_text
def word_keys(claim: str) -> frozenset[str]:
    """The claim's content words, numbers aside: what the scan's rare-word blocks are made of."""
    return frozenset(
        _intern(_stem(norm)) for norm in _norms(claim) if norm not in STOPWORD_SET and not any(map(str.isdigit, norm))
    )


def _said(words: list[_Word]) -> str:
    return " ".join(w.text for w in words)


def _frame_contradiction(a: Statement, b: Statement) -> Contradiction | None:
    if not a.frame_key or a.frame_key != b.frame_key or generic_frame(a.frame_key):
        return None
    va, vb = _value_of(a.claim, a.frame_key), _value_of(b.claim, b.frame_key)
    na, nb = [w.norm for w in va if w.norm not in STOPWORD_SET], [w.norm for w in vb if w.norm not in STOPWORD_SET]
    if not na or not nb or na == nb or _contains(na, nb) or _contains(nb, na):
        return None
    if not (_atomic(va, False) and _atomic(vb, False)):
        return None
    wa, wb = _words(a.claim), _words(b.claim)
    if labelled(a.claim) or not (has_subject(wa, len(wa) - len(va)) and has_subject(wb, len(wb) - len(vb))):
        return None  # "errors and kwargs are passed through to the IncrementalDecoder …": whose?
    frame = a.claim[: va[0].start].strip() if va else a.frame_key
    return Contradiction(SLOT, f"both fill “{frame} …”: {_said(va)} against {_said(vb)}", _said(va), _said(vb))


def _contains(outer: list[str], inner: list[str]) -> bool:
    n = len(inner)
    return any(outer[i : i + n] == inner for i in range(len(outer) - n + 1))


def _kind(only_a: list[_Word], only_b: list[_Word]) -> str | None:
    """What one differing place holds, or None when it is not a single disagreement."""
    ta, tb = {w.norm for w in only_a}, {w.norm for w in only_b}
    rest_a, rest_b = ta - NEGATION_MARKERS - _AUXILIARY, tb - NEGATION_MARKERS - _AUXILIARY
    negated_a, negated_b = bool(ta & NEGATION_MARKERS), bool(tb & NEGATION_MARKERS)
    if negated_a != negated_b and {_stem(w) for w in rest_a} == {_stem(w) for w in rest_b}:
        return NEGATION
    if (ta | tb) and (ta | tb) <= VARIANT_QUALIFIERS | _SCOPE_WORDS and (ta | tb) & VARIANT_QUALIFIERS:
        return QUALIFIER
    if not only_a or not only_b:
        return None  # something added, nothing replaced: more said, not something else
    if _dateish(ta) and _dateish(tb):
        return DATE
    nums_a, nums_b = {w for w in ta if _is_number(w)}, {w for w in tb if _is_number(w)}
    if nums_a and nums_b and nums_a != nums_b and ta - nums_a == tb - nums_b:
        return NUMBER
    if len(only_a) > MAX_VALUE_TOKENS or len(only_b) > MAX_VALUE_TOKENS:
        return None
    if (
        _atomic(only_a, False)
        and _atomic(only_b, False)
        and all(
            _named(w, False) or _is_date_word(w.norm) or (w.norm in STOPWORD_SET and w.norm not in _VERBISH)
            for w in (*only_a, *only_b)
        )
    ):
        named = any(w.text[:1].isupper() for w in (*only_a, *only_b))
        return ENTITY if named else VALUE
    return None


def _word_contradiction(a: Statement, b: Statement) -> Contradiction | None:
    wa, wb = _words(a.claim), _words(b.claim)
    if not wa or not wb or labelled(a.claim) or labelled(b.claim):
        return None
    matcher = SequenceMatcher(a=[w.norm for w in wa], b=[w.norm for w in wb], autojunk=False)
    blocks = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    shared = sum(i2 - i1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag == "equal")
    if not blocks or shared < MIN_SHARED:
        return None
    if len(blocks) == 1:
        _, i1, i2, j1, j2 = blocks[0]
        only_a, only_b = list(wa[i1:i2]), list(wb[j1:j2])
        if i1 == 0 and j1 == 0 and only_a and only_b and not _is_number(only_a[0].norm):
            return None  # the subject itself differs: two things, not two values of one
        kind = _kind(only_a, only_b)
        if kind in (ENTITY, VALUE) and not _in_value_place(wa, i1, i2):
            return None
    else:
        # a negation spread over two places ("is not sized" / "is sized" plus an inflection) or several
        # numbers changed at once: every place must hold the same kind
        kinds = {_kind(list(wa[i1:i2]), list(wb[j1:j2])) for _, i1, i2, j1, j2 in blocks}
        gaps = [wa[prev[2] : nxt[1]] for prev, nxt in zip(blocks, blocks[1:])]
        if kinds != {NEGATION} and not all(
            w.norm in STOPWORD_SET and w.norm not in _VERBISH for gap in gaps for w in gap
        ):
            return None  # places apart in the sentence: two things differ (a subject and its value)
        only_a = [w for _, i1, i2, _, _ in blocks for w in wa[i1:i2]]
        only_b = [w for _, _, _, j1, j2 in blocks for w in wb[j1:j2]]
        kind = kinds.pop() if len(kinds) == 1 and kinds != {None} and kinds <= {NUMBER, DATE} else _kind(only_a, only_b)
        if kind in (ENTITY, VALUE):
            kind = None  # several names changed: a different sentence
    if kind is None:
        return None
    start_a, end_a, start_b, end_b = blocks[0][1], blocks[-1][2], blocks[0][3], blocks[-1][4]
    if not (_about_something(wa, start_a, end_a, kind) and _about_something(wb, start_b, end_b, kind)):
        return None
    said_a, said_b = _said(only_a) or "—", _said(only_b) or "—"
    return Contradiction(kind, f"the same claim but for {kind_words(kind)}: {said_a} against {said_b}", said_a, said_b)


def _named(word: _Word, first: bool) -> bool:
    return (
        _is_number(word.norm)
        or any(ch in word.text for ch in "._/()")
        or (word.text[:1].isupper() and not first and word.norm not in STOPWORD_SET)
    )


_VERBISH = frozenset(
    "is are was were has have had will would can could should must may might keeps lies uses "
    "borders speaks runs owns leads".split()
)
_ARTICLES = frozenset(("the", "a", "an", "our", "my", "your", "their"))
#: A word after which the first word of a claim is a verb, not a subject ("Describe the …", "Defines a …").
_DETERMINERS = frozenset("the a an all any this that these those its their each every some".split())
_POSSESSIVE = re.compile(r"\w(?:['\u2019]s|s['\u2019])$")
_VAGUE = frozenset("following same above below next previous other former latter".split())


def _identifier(word: _Word) -> bool:
    return any(ch in word.text for ch in "._/()-") and any(ch.isalpha() for ch in word.text)


_LABEL = re.compile(r"^\W*(?:[\w.\-]+\s+){0,4}?[\w.\-]*:(?:\s|$)|^\s*:")


def labelled(claim: str) -> bool:
    """A documentation field ("Default: 5.0 seconds", ":Revision: …", "New in version 3.10: …")."""
    return bool(_LABEL.match(claim))


def has_subject(words: tuple[_Word, ...], start: int) -> bool:
    """The claim names what it is about before `start`: "Finland has …", "The capital of Peru is …",
    "checkout-api will retry …". Documentation's sentences about the heading they sit under do not:
    a label ("Default: …", "New in version 3.10: …"), an imperative or a verb first ("Include a …",
    "Defines a …", "Sent after …"), a pronoun or deictic ("This section …", "It is …"), a phrase
    that opens with a preposition ("For more information, see …"), "The following …"."""
    if not words or start == 0:
        return False
    first = words[0]
    if first.norm in _DEICTIC or (first.norm in STOPWORD_SET and first.norm not in _ARTICLES):
        return False
    if first.norm in _ARTICLES:
        rest = words[1:start]
        return (
            bool(rest)
            and rest[0].norm not in _VAGUE
            and rest[0].norm not in _DEICTIC
            and any(w.norm not in STOPWORD_SET for w in rest)
        )
    if _identifier(first):
        return True
    if first.text[:1].isupper() and _POSSESSIVE.search(first.text):
        return True  # "Kenya's capital is …": a possessive names its owner; a verb never takes one
    second = words[1] if len(words) > 1 else None
    if second is not None and second.norm in _DETERMINERS:
        return False  # "Describe the usual properties …", "Defines a single column …": a verb comes first
    if (
        first.text[:1].isupper()
        and second is not None
        and (
            second.norm in _VERBISH
            or (
                second.norm not in STOPWORD_SET
                and re.fullmatch(r"[a-z]{3,}(?:s|ed)", second.norm)
                and not second.norm.endswith("ss")
            )
        )
    ):
        return True
    return any(_named(w, False) for w in words[1:start])


def _about_something(words: tuple[_Word, ...], start: int, end: int, kind: str) -> bool:
    """The claim names its subject: before the differing place, or (a number, a date, a negation, a
    qualifier, which may come first: "About 511,200 people live in Rahim Yar Khan") after it."""
    if has_subject(words, start):
        return True
    return kind not in (ENTITY, VALUE) and any(_named(w, False) for w in words[end:])


def _in_value_place(words: tuple[_Word, ...], start: int, end: int) -> bool:
    """The differing place stands where a value does: after a name (the subject), with no name after
    it. "The time zone of Takatsuki is Asia/Tokyo" against "…of Ibaraki is Asia/Tokyo" differs where
    the subject stands (a name follows): two subjects, not two values."""
    after = words[end:]
    if any(_named(w, False) for w in after):
        return False
    return len([w for w in after if w.norm not in STOPWORD_SET]) <= 3


def _bag_contradiction(a: Statement, b: Statement) -> Contradiction | None:
    """Worded differently, the same content words but one value each."""
    if labelled(a.claim) or labelled(b.claim):
        return None
    wa, wb = _words(a.claim), _words(b.claim)
    ca, cb = _content_of(a.claim), _content_of(b.claim)
    only_a = [w for w in wa if w.norm not in STOPWORD_SET and _stem(w.norm) not in cb]
    only_b = [w for w in wb if w.norm not in STOPWORD_SET and _stem(w.norm) not in ca]
    if not only_a or not only_b or len(ca & cb) < 2:
        return None
    if not (_run(wa, only_a) and _run(wb, only_b)):
        return None
    if not (_atomic(only_a, only_a[0] is wa[0]) and _atomic(only_b, only_b[0] is wb[0])):
        return None
    if not all(_named(w, False) or _is_date_word(w.norm) for w in (*only_a, *only_b)):
        return None  # a common word differs too ("has … inhabitants" against "lies in …"): another relation
    if only_a[0] is wa[0] or only_b[0] is wb[0]:
        return None  # a value where the subject stands: two subjects
    for words, only in ((wa, only_a), (wb, only_b)):
        at = [i for i, w in enumerate(words) if any(w is o for o in only)]
        if not _in_value_place(words, at[0], at[-1] + 1) or not has_subject(words, at[0]):
            return None
    said_a, said_b = _said(only_a), _said(only_b)
    return Contradiction(
        VALUE, f"the same subject and relation in other words, but {said_a} against {said_b}", said_a, said_b
    )


def _run(words: tuple[_Word, ...], picked: list[_Word]) -> bool:
    """`picked` is one run of `words`, function words between them allowed."""
    at = [i for i, w in enumerate(words) if any(w is p for p in picked)]
    return all(
        words[k].norm in STOPWORD_SET and words[k].norm not in _VERBISH for k in range(at[0], at[-1] + 1) if k not in at
    )


#: The near-twin cosine a reworded pair's vectors must reach (`_reworded_contradiction`).
REWORDED_COSINE = 0.82
#: A reworded claim is a short statement: a subject, a relation and a value, not a paragraph.
_MAX_REWORDED_WORDS = 12


def _subsequence(short: list[str], long: list[str]) -> bool:
    """Every word of `short` is in `long`, in order."""
    rest = iter(long)
    return all(word in rest for word in short)


def _owner(norm: str) -> str:
    """A word without its possessive ("kenya's" is "kenya"): one subject, owned or not."""
    return norm[:-2] if norm.endswith("'s") else norm


def _value_kind(words: list[_Word]) -> str | None:
    """What one value is: a number, a date, an identifier (`Europe/Paris`, `os.path`) or a name."""
    norms = {w.norm for w in words if w.norm not in STOPWORD_SET}
    if not norms:
        return None
    if _dateish(norms):
        return DATE
    if all(_is_number(n) for n in norms):
        return NUMBER
    if any(_identifier(w) for w in words):
        return "identifier"
    if all(w.text[:1].isupper() or w.norm in STOPWORD_SET for w in words):
        return ENTITY
    return None


def _reworded_contradiction(a: Statement, b: Statement) -> Contradiction | None:
    """The lexical half of the rule for a slot's value changed in other words for its relation ("About
    880,500 people live in Zaria" against "The population of Zaria is 980,000"): short claims naming
    one subject in common and one value each, of one kind (a number against a number, a name against a
    name), nothing else value-like differing. Words alone cannot tell a reworded relation from another
    relation of the same subject ("The capital of Gambia is Banjul" against "Gambia lies in Africa"),
    so `contradiction` asks the two memories' vectors to be near-twins as well (REWORDED_COSINE)."""
    if labelled(a.claim) or labelled(b.claim):
        return None
    wa, wb = _words(a.claim), _words(b.claim)
    if not wa or not wb or len(wa) > _MAX_REWORDED_WORDS or len(wb) > _MAX_REWORDED_WORDS:
        return None
    na, nb = {_owner(w.norm) for w in wa}, {_owner(w.norm) for w in wb}
    if (na | nb) & NEGATION_MARKERS:
        return None  # a negation is the word rules' to read
    shared = [w for w in wa if _owner(w.norm) in nb and w.norm not in STOPWORD_SET]
    subject = [
        w
        for w in shared
        if _value_like(w) or (w is wa[0] and w.text[:1].isupper() and _owner(wb[0].norm) == _owner(w.norm))
    ]
    if not subject:
        return None  # no name in common: two statements about two things
    values = []
    for words, other in ((wa, nb), (wb, na)):
        # a claim's first word is a value only as a number or an identifier: capitalised, it may be
        # the sentence's start ("Prices in Croatia are paid in the Forint")
        own = [
            i
            for i, w in enumerate(words)
            if _owner(w.norm) not in other
            and w.norm not in STOPWORD_SET
            and (_value_like(w) if i else (_is_number(w.norm) or _identifier(w)))
        ]
        if not own or own[-1] - own[0] + 1 > MAX_VALUE_TOKENS or not _run(words, [words[i] for i in own]):
            return None  # no value of its own, or two of them
        span = list(words[own[0] : own[-1] + 1])
        values.append((span, own[0], own[-1] + 1))
    kind_a, kind_b = _value_kind(values[0][0]), _value_kind(values[1][0])
    if kind_a is None or kind_a != kind_b:
        return None  # a number against a name: two relations
    for words, (span, start, end) in zip((wa, wb), values):
        if kind_a in (NUMBER, DATE):  # a number may come first ("About 880,500 people live in Zaria")
            if not (has_subject(words, start) or any(_named(w, False) for w in words[end:])):
                return None
        elif not (_in_value_place(words, start, end) and has_subject(words, start)):
            return None  # a name where the subject stands ("The time zone of Bhopal is Asia/Kolkata"): two subjects
    rest_a, rest_b = (
        [_stem(_owner(w.norm)) for i, w in enumerate(words) if w.norm not in STOPWORD_SET and not start <= i < end]
        for words, (_, start, end) in zip((wa, wb), values)
    )
    if len(rest_a) != len(rest_b) and (_subsequence(rest_a, rest_b) or _subsequence(rest_b, rest_a)):
        return None  # one is the other with words added ("Abstract Base Classes for numbers, according to PEP 3141"): more said
    values = [span for span, _, _ in values]
    if any(key and _ONE_OF.search(key) for key in (a.frame_key, b.frame_key)):
        return None  # "X is a neighbour of …": one of several, a list
    said_a, said_b = _said(values[0]), _said(values[1])
    return Contradiction(
        REWORDED,
        f"the same subject in other words, one value each ({kind_words(kind_a)}): {said_a} against {said_b}",
        said_a,
        said_b,
    )


def kind_words(kind: str) -> str:
    return {
        NEGATION: "a negation",
        NUMBER: "a number",
        DATE: "a date",
        QUALIFIER: "a variant qualifier",
        ENTITY: "a name",
        VALUE: "a value",
        SLOT: "the value in one slot",
        REWORDED: "the value in one slot, reworded",
        "identifier": "an identifier",
    }[kind]


def contradiction(
    a: Statement, b: Statement, cosine: float | Callable[[], float | None] | None = None
) -> Contradiction | None:
    """Why `a` and `b` contradict, or None (see the module docstring). Symmetric up to the order of
    the values named. `cosine`, the two memories' vector similarity (or a function that computes it,
    asked only when the words pass), lets the reworded rule judge: without it that rule flags nothing."""
    if a.claim.strip().lower() == b.claim.strip().lower():
        return None
    found = _frame_contradiction(a, b)
    if found is not None:
        return found
    if len(_content_of(a.claim) ^ _content_of(b.claim)) <= _MAX_CONTENT_DIFFERENCE:
        found = _word_contradiction(a, b) or _bag_contradiction(a, b)
        if found is not None and found.reason in (ENTITY, VALUE) and a.frame_key and a.frame_key == b.frame_key:
            return None  # one frame, not one slot ("X is a neighbour of …"): two values are two facts
        if found is not None:
            return found
    if cosine is None or (a.frame_key and a.frame_key == b.frame_key):
        return None  # worded alike, the rules above had their say
    found = _reworded_contradiction(a, b)
    if found is None:
        return None
    similarity = cosine() if callable(cosine) else cosine
    return found if similarity is not None and similarity >= REWORDED_COSINE else None


def _cmp(x: str, y: str) -> int:
    n = min(len(x), len(y))
    x, y = x[:n], y[:n]
    return (x > y) - (x < y)


def newer_of(a: Statement, b: Statement) -> str | None:
    """The path of the newer side (event time, else written time; written time breaks a tie), or None."""
    order = _cmp(a.when, b.when) if a.when and b.when else 0
    if order == 0 and a.created_at and b.created_at:
        order = _cmp(a.created_at, b.created_at)
    if order == 0:
        return None
    return a.path if order > 0 else b.path


UNSETTLING_RELS = frozenset({"contradicts"})
"""Authored links between two contradicting memories that do not settle them: `contradicts` records the
disagreement, any other relation a curator chose says both hold (the conflicts view's "settled" pairs,
which search neither marks nor reorders)."""


def _value_like(word: _Word) -> bool:
    """A word a differing place can hold: a name, a number, a date word or an identifier."""
    return _named(word, False) or _is_date_word(word.norm) or _identifier(word)


def _value_runs(words: tuple[_Word, ...], like: list[bool]) -> list[tuple[int, int]]:
    """(start, end) of each run of value-like words, function words between two of them included
    ("Bosnia and Herzegovina", "5 and 10", "October 14, 2019")."""
    runs: list[tuple[int, int]] = []
    i, n = 0, len(words)
    while i < n:
        if not like[i]:
            i += 1
            continue
        end = i + 1
        while end < n:
            if like[end]:
                end += 1
                continue
            gap = end
            while gap < n and not like[gap] and words[gap].norm in STOPWORD_SET and words[gap].norm not in _VERBISH:
                gap += 1
            if gap < n and gap > end and like[gap]:
                end = gap + 1
                continue
            break
        runs.append((i, end))
        i = end
    return runs


def _places(words: tuple[_Word, ...], like: list[bool], numeric: list[bool]) -> list[tuple[int, int]]:
    """The runs of value-like words, and inside each the runs of numbers and dates ("Python 3.8":
    the differing place of "…in Python 3.8" against "…in Python 3.2" is the number alone)."""
    out = []
    for start, end in _value_runs(words, like):
        out.append((start, end))
        i = start
        while i < end:
            if not numeric[i]:
                i += 1
                continue
            j = i
            while j < end and (numeric[j] or (words[j].norm in STOPWORD_SET and j + 1 < end and numeric[j + 1])):
                j += 1
            if (i, j) != (start, end):
                out.append((i, j))
            i = j
    return out


def blocking_keys(claim: str, frame_key: str | None) -> tuple[str, ...]:
    """Keys two claims share whenever `contradiction` can flag them, so a caller comparing many
    memories (one query's pool) judges only the pairs that share one instead of every pair; the
    index keeps them per memory (`files.contradiction_keys`, migration 0012):

    - `F` the frame key (the slot rule needs one frame key, not a generic one);
    - `W` the claim's content words in order with one run of value-like words (names, numbers,
      dates, identifiers) taken out, one key per run that can be a differing place (the same claim
      but for one name, value, number or date): a run of names only where a value stands (not
      first, no name after it, at most three content words after it), a run with a number or a date
      anywhere but first (unless it starts with a number);
    - `B` the claim's content words as a set, one run taken out, for a run where a value stands and
      two or more content words remain (the same content words in other words, one value each);
    - `N` the claim's content words with negation markers, auxiliaries, variant qualifiers and the
      words a variant scope is written with taken out (the same claim but for a negation or a
      qualifier).

    A necessary condition, not the rule: pairs sharing a key are then judged by `contradiction`.
    The tests check that every pair the rule flags on the fixtures, on a fact store's query pools
    and in a fact store's whole conflicts scan shares one."""
    words = _words(claim)
    keys: list[str] = []
    if frame_key and not generic_frame(frame_key):
        keys.append("F|" + frame_key)
    stems = [None if w.norm in STOPWORD_SET else _stem(w.norm) for w in words]
    like = [_value_like(w) for w in words]
    numeric = [_is_number(w.norm) or _is_date_word(w.norm) for w in words]
    for start, end in _places(words, like, numeric):
        if start == 0 and not _is_number(words[0].norm):
            continue  # where the subject stands: a claim about something else
        value_place = start > 0 and _in_value_place(words, start, end)
        if not (any(numeric[start:end]) or value_place):
            continue
        before = " ".join(s for s in stems[:start] if s)
        after = " ".join(s for s in stems[end:] if s)
        keys.append(f"W|{before} _ {after}")
        rest = {s for s in stems[:start] + stems[end:] if s}
        if value_place and len(rest) >= 2:
            keys.append("B|" + " ".join(sorted(rest)))
    keys.append("N|" + " ".join(s for w, s in zip(words, stems) if s and w.norm not in _PLAIN))
    return tuple(dict.fromkeys(keys))


#: What the `N` key leaves out: a negation, the words that change with it, a variant qualifier and its scope.
_PLAIN = NEGATION_MARKERS | _AUXILIARY | VARIANT_QUALIFIERS | _SCOPE_WORDS

LIST_VALUES = 4
"""A frame key the store's active memories fill with more values than this is a list ("English is spoken
in …" a dozen countries), not one slot: the conflicts scan does not pair its holders by the key, and search
neither marks nor reorders a `slot` pair under it."""
