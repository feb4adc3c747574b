"""Real question→answer text from documentation that ships in Debian and PyPI packages.

The sources of `bench/realtext_build.py`, one `Source` each: a package pinned by version, the files
in it whose sections are questions and answers (`faq`), the files of the same documentation whose
sections become distractors (`docs`), and the reader of that format. Every reader turns a file
into a flat list of `Section`s: a heading and the blocks of text under it up to the next heading
(nested sections are their own `Section`s), so one segmentation serves POD, Texinfo's info files,
reStructuredText, HTML (Sphinx, DocBook, docutils, hand-written) and zsh's plain-text FAQ.

A section of a `faq` file is a question when its heading reads as one (`is_question`); its answer is
its own text. Every other section of the documentation, and of the FAQ files, is distractor
material. Sets and what they hold are listed in `SETS`; `heldout` is the issue's held-out set (the
Python and Debian FAQs): build it to report figures, never to tune.
"""

from __future__ import annotations

import gzip
import html as htmlmod
import re
from dataclasses import dataclass, field
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser


@dataclass(frozen=True)
class Section:
    heading: str
    level: int
    blocks: tuple[str, ...]
    file: str

    @property
    def text(self) -> str:
        return "\n\n".join(self.blocks)


@dataclass(frozen=True)
class Source:
    """One package's part of a set: `kind` deb or pypi, the pinned version, globs inside it."""

    kind: str
    package: str
    version: str
    reader: str
    faq: tuple[str, ...]
    docs: tuple[str, ...] = ()
    skip: str = ""  # a regular expression: docs files whose name matches are not read


@dataclass(frozen=True)
class SetSpec:
    name: str
    summary: str
    sources: tuple[Source, ...]
    distractors: int  # distractor memories sampled into the store
    heldout: bool = False
    notes: tuple[str, ...] = field(default=())


SETS: dict[str, SetSpec] = {
    s.name: s
    for s in (
        SetSpec(
            "perl",
            "perlfaq1-9 (perl-doc): questions about Perl, answered by its FAQ",
            (
                Source(
                    "deb",
                    "perl-doc",
                    "5.36.0-7+deb12u3",
                    "pod",
                    faq=("usr/share/perl/5.36.0/pod/perlfaq[1-9].pod",),
                    docs=("usr/share/perl/5.36.0/pod/perl*.pod",),
                    skip=r"^perl(faq\d?|toc|\d+delta|delta|hist|artistic|gpl|cn|jp|ko|tw)\.pod$",
                ),
            ),
            distractors=5000,
        ),
        SetSpec(
            "pylibs",
            "FAQs of five Python libraries: SQLAlchemy, lxml (Debian docs), Django, Celery, docutils (PyPI sdists)",
            (
                Source(
                    "deb",
                    "python-sqlalchemy-doc",
                    "1.4.46+ds1-1",
                    "html",
                    faq=("usr/share/doc/python-sqlalchemy-doc/html/faq/*.html",),
                    docs=(
                        "usr/share/doc/python-sqlalchemy-doc/html/orm/*.html",
                        "usr/share/doc/python-sqlalchemy-doc/html/core/*.html",
                    ),
                ),
                Source(
                    "deb",
                    "python-lxml-doc",
                    "4.9.2-1",
                    "html",
                    faq=("usr/share/doc/python-lxml/html/FAQ.html",),
                    docs=("usr/share/doc/python-lxml/html/*.html",),
                ),
                Source(
                    "pypi",
                    "Django",
                    "5.1.4",
                    "rst",
                    faq=("docs/faq/*.txt",),
                    docs=("docs/topics/*.txt", "docs/topics/*/*.txt", "docs/howto/*.txt"),
                ),
                Source(
                    "pypi",
                    "celery",
                    "5.4.0",
                    "rst",
                    faq=("docs/faq.rst",),
                    docs=("docs/userguide/*.rst", "docs/getting-started/*.rst"),
                ),
                Source(
                    "pypi",
                    "docutils",
                    "0.21.2",
                    "rst",
                    faq=("FAQ.txt",),
                    docs=("docs/user/*.txt", "docs/ref/rst/*.txt"),
                ),
            ),
            distractors=4000,
        ),
        SetSpec(
            "tools",
            "FAQs of three tools: fetchmail, zsh, R (Debian packages)",
            (
                Source(
                    "deb",
                    "fetchmail",
                    "6.4.37-1",
                    "html",
                    faq=("usr/share/doc/fetchmail/fetchmail-FAQ.html",),
                    docs=(
                        "usr/share/doc/fetchmail/fetchmail-features.html",
                        "usr/share/doc/fetchmail/design-notes.html",
                    ),
                ),
                Source("deb", "zsh-common", "5.9-4", "zshfaq", faq=("usr/share/doc/zsh-common/FAQ.gz",)),
                Source("deb", "zsh-doc", "5.9-4", "html", faq=(), docs=("usr/share/doc/zsh-common/html/*.html",)),
                Source(
                    "deb",
                    "r-doc-info",
                    "4.2.2.20221110-2",
                    "info",
                    faq=("usr/share/info/R-FAQ.info.gz",),
                    docs=(
                        "usr/share/info/R-intro.info.gz",
                        "usr/share/info/R-admin.info.gz",
                        "usr/share/info/R-data.info.gz",
                        "usr/share/info/R-lang.info.gz",
                        "usr/share/info/R-exts.info*.gz",
                        "usr/share/info/R-ints.info.gz",
                    ),
                ),
            ),
            distractors=5200,
        ),
        SetSpec(
            "heldout",
            "HELD OUT (report only, never tune): the Python FAQ and the Debian FAQ",
            (
                Source(
                    "deb",
                    "python3.11-doc",
                    "3.11.2-6+deb12u8",
                    "html",
                    faq=("usr/share/doc/python3.11/html/faq/*.html",),
                    docs=(
                        "usr/share/doc/python3.11/html/library/*.html",
                        "usr/share/doc/python3.11/html/tutorial/*.html",
                        "usr/share/doc/python3.11/html/howto/*.html",
                        "usr/share/doc/python3.11/html/reference/*.html",
                        "usr/share/doc/python3.11/html/using/*.html",
                        "usr/share/doc/python3.11/html/extending/*.html",
                    ),
                ),
                Source("deb", "debian-faq", "11.1", "html", faq=("usr/share/doc/debian/FAQ/*.en.html",)),
                Source(
                    "deb",
                    "debian-reference-en",
                    "2.100",
                    "html",
                    faq=(),
                    docs=("usr/share/debian-reference/*.en.html",),
                ),
            ),
            distractors=5900,
            heldout=True,
        ),
    )
}


# -- questions ------------------------------------------------------------------------------------

_NUMBERING = re.compile(r"^\s*(?:[A-Z]?\d+(?:\.\d+)*\.?|[A-Z]\d+\.)\s+")
_STARTS = (
    "how ",
    "why ",
    "what ",
    "when ",
    "where ",
    "which ",
    "who ",
    "can ",
    "is ",
    "are ",
    "does ",
    "do ",
    "should ",
    "i ",
    "i'm ",
    "i’m ",
    "i've ",
    "i’ve ",
    "my ",
    "will ",
    "could ",
    "would ",
    "has ",
    "have ",
)


def clean_heading(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace("¶", " ")).strip()
    return _NUMBERING.sub("", text).strip()


def is_question(heading: str) -> bool:
    h = heading.strip()
    if len(h.split()) < 3:
        return False
    return h.endswith("?") or h.lower().startswith(_STARTS)


# -- readers --------------------------------------------------------------------------------------


def _text_of(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def _flush(out: list[Section], heading: str | None, level: int, blocks: list[str], file: str) -> None:
    kept = tuple(b for b in (re.sub(r"[ \t]+", " ", x).strip() for x in blocks) if b)
    if heading is not None or kept:
        out.append(Section(clean_heading(heading or ""), level, kept, file))


_POD_CODES = re.compile(r"[BICFLSEXZ]<<+\s(.*?)\s>>+|[BICFLSXZ]<([^<>]*)>|E<([^<>]*)>", re.S)


def _pod_inline(text: str) -> str:
    def sub(m: re.Match) -> str:
        if m.group(0)[0] in "XZ":
            return ""
        if m.group(3) is not None:
            return {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}.get(m.group(3), "")
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        if m.group(0).startswith("L<"):
            inner = inner.split("|", 1)[0]
            inner = inner.split("/", 1)[0] if not inner.startswith("http") else inner
        return inner

    for _ in range(4):
        new = _POD_CODES.sub(sub, text)
        if new == text:
            break
        text = new
    return text


def read_pod(path: Path) -> list[Section]:
    out: list[Section] = []
    heading, level, blocks = None, 1, []
    skipping = False
    for para in re.split(r"\n\s*\n", _text_of(path)):
        if not para.strip():
            continue
        if para.startswith("="):
            command, _, rest = para.partition(" ")
            rest = rest.strip()
            if command in ("=begin", "=for"):
                skipping = command == "=begin"
                continue
            if command == "=end":
                skipping = False
                continue
            if command.startswith("=head") or (command == "=item" and rest and not rest.strip("*0123456789. ") == ""):
                if command == "=item" and len(rest) < 3:
                    continue
                _flush(out, heading, level, blocks, path.name)
                heading = _pod_inline(rest.replace("\n", " "))
                level = int(command[5]) if command.startswith("=head") else 5
                blocks = []
            continue
        if skipping:
            continue
        if para[0] in " \t":
            blocks.append(para.rstrip())
        else:
            blocks.append(_pod_inline(para.replace("\n", " ")))
    _flush(out, heading, level, blocks, path.name)
    return out


_RST_UNDER = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")


def read_rst(path: Path) -> list[Section]:
    lines = _text_of(path).splitlines()
    out: list[Section] = []
    heading, level, blocks, para = None, 1, [], []
    levels: list[str] = []
    in_directive = False
    i = 0

    def end_para() -> None:
        if para:
            blocks.append(" ".join(x.strip() for x in para))
            para.clear()

    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line.strip()
            and _RST_UNDER.match(nxt)
            and len(nxt.strip()) >= len(line.strip()) - 1
            and not line.startswith(" ")
        ):
            end_para()
            _flush(out, heading, level, blocks, path.name)
            char = nxt.strip()[0]
            if char not in levels:
                levels.append(char)
            heading, level, blocks = line.strip(), levels.index(char) + 1, []
            i += 2
            continue
        if _RST_UNDER.match(line):  # an overline
            i += 1
            continue
        if line.startswith(".. "):
            end_para()
            in_directive = not line.startswith(".. code") and "::" in line
            if line.startswith(".. code") or line.rstrip().endswith("::") and "code" in line:
                in_directive = False
            i += 1
            continue
        if not line.strip():
            end_para()
            i += 1
            continue
        if in_directive and line.startswith(" "):
            i += 1
            continue
        in_directive = False
        text = re.sub(r":[a-z:]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", line)
        text = re.sub(r"`([^`<]*?)(?:\s*<[^>]*>)?`_*", r"\1", text).replace("``", "")
        para.append(text)
        i += 1
    end_para()
    _flush(out, heading, level, blocks, path.name)
    return out


_INFO_HEAD = re.compile(r"^(\d+(?:\.\d+)*)\s+(.+)$")


def read_info(path: Path) -> list[Section]:
    out: list[Section] = []
    heading, level, blocks, para = None, 1, [], []
    for node in _text_of(path).split("\x1f"):
        lines = node.lstrip("\n").splitlines()
        if lines and lines[0].startswith("File:"):
            lines = lines[1:]
        i = 0
        while i < len(lines):
            line = lines[i]
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if line.strip() and re.match(r"^[=\-*.]{3,}\s*$", nxt) and abs(len(nxt.strip()) - len(line.strip())) <= 1:
                if para:
                    blocks.append(" ".join(para))
                    para = []
                _flush(out, heading, level, blocks, path.name)
                m = _INFO_HEAD.match(line.strip())
                heading = m.group(2) if m else line.strip()
                level = len(m.group(1).split(".")) if m else 1
                blocks = []
                i += 2
                continue
            if line.startswith("* Menu:") or line.startswith("Tag Table:"):
                break
            if not line.strip():
                if para:
                    blocks.append(" ".join(para))
                    para = []
            elif not line.startswith("* "):
                para.append(line.strip())
            i += 1
        if para:
            blocks.append(" ".join(para))
            para = []
    _flush(out, heading, level, blocks, path.name)
    return out


_ZSH_Q = re.compile(r"^(\d+\.\d+):\s+(.*)$")


def read_zshfaq(path: Path) -> list[Section]:
    out: list[Section] = []
    heading, blocks, para = None, [], []
    for line in _text_of(path).splitlines():
        m = _ZSH_Q.match(line)
        if m:
            if para:
                blocks.append(" ".join(para))
            _flush(out, heading, 2, blocks, path.name)
            heading, blocks, para = m.group(2), [], []
            continue
        if re.match(r"^Chapter \d+:", line):
            if para:
                blocks.append(" ".join(para))
            _flush(out, heading, 2, blocks, path.name)
            heading, blocks, para = None, [], []
            continue
        if not line.strip():
            if para:
                blocks.append(" ".join(para))
                para = []
        else:
            para.append(line.strip())
    if para:
        blocks.append(" ".join(para))
    _flush(out, heading, 2, blocks, path.name)
    return out


_BLOCKS = {"p", "pre", "li", "dd", "dt", "blockquote", "td", "th"}
_HEADS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_MAIN = ("div[role=main]", "div.body", "div.document", "div.chapter", "div.section", "main", "body")
_INNER = ", ".join(sorted(_BLOCKS | set(_HEADS)))
_SKIP = {"nav", "script", "style", "header", "footer"}


def read_html(path: Path) -> list[Section]:
    tree = LexborHTMLParser(_text_of(path))
    root = None
    for selector in _MAIN:
        root = tree.css_first(selector)
        if root is not None:
            break
    if root is None:
        return []
    for node in root.css("a.headerlink, div.navheader, div.navfooter, div.sphinxsidebar, div.related, div.toc"):
        node.decompose()
    out: list[Section] = []
    heading, level, blocks = None, 1, []

    def walk(node) -> None:
        nonlocal heading, level, blocks
        tag = node.tag
        if tag in _SKIP:
            return
        if tag in _HEADS:
            _flush(out, heading, level, blocks, path.name)
            heading, level, blocks = node.text(separator=" "), _HEADS[tag], []
            return
        if tag in _BLOCKS and len(node.css(_INNER)) <= 1:  # css() lists the node itself
            text = node.text(separator="" if tag == "pre" else " ")
            blocks.append(text if tag == "pre" else re.sub(r"\s+", " ", text))
            return
        child = node.child
        while child is not None:
            if child.tag != "-text":
                walk(child)
            elif child.parent is not None and child.parent.tag in ("div", "section", "body") and child.text().strip():
                blocks.append(re.sub(r"\s+", " ", child.text()))
            child = child.next

    walk(root)
    _flush(out, heading, level, blocks, path.name)
    return [Section(htmlmod.unescape(s.heading), s.level, s.blocks, s.file) for s in out]


READERS = {"pod": read_pod, "rst": read_rst, "info": read_info, "zshfaq": read_zshfaq, "html": read_html}
