"""Wikitext, parsed with :mod:`mwparserfromhell`: paragraphs with their links, infoboxes, disambiguation.

:func:`blocks` walks a page's parse tree and yields :class:`Block` s: ``prose`` paragraphs (plain
text, split at blank lines, with each internal link's anchor span; a link trail such as
``[[war]]s`` belongs to the anchor, as MediaWiki renders it), ``list`` items, and the links found in
metadata (``table``, ``template``, ``file`` captions, ``ref`` erences, other markup) whose text is
not kept: the harvesters count those links in their filters instead of using them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

#: Formatting tags whose contents are running text.
INLINE_TAGS = frozenset({"b", "i", "u", "s", "em", "strong", "small", "big", "sup", "sub", "span", "font", "abbr",
                         "center", "div", "blockquote", "poem", "nowiki", "p", "q", "cite", "del", "ins", "mark",
                         "tt", "var", "kbd", "samp", "dfn", "strike"})
LIST_TAGS = frozenset({"li", "dt", "dd"})
#: Tags whose contents are not running text (their links are metadata).
DROPPED_TAGS = frozenset({"ref", "references", "math", "chem", "code", "pre", "syntaxhighlight", "source", "score",
                          "timeline", "gallery", "imagemap", "graph", "mapframe", "templatedata", "includeonly",
                          "noinclude", "onlyinclude", "hiero", "ce"})
#: Namespace prefixes that are never articles (the dump's own names are added by the caller).
BASE_NAMESPACES = frozenset({"file", "image", "media", "category", "template", "wikipedia", "wp", "help", "portal",
                             "user", "talk", "special", "module", "draft", "mediawiki", "wiktionary", "wikt",
                             "s", "q", "n", "b", "v", "voy", "d", "c", "commons", "meta", "m", "species", "mw"})
#: Wikipedia language codes (interlanguage links, in any case: ``[[En:Help:Editing]]``); other short lower-case
#: prefixes count as interlanguage links too, capitalised ones as titles (``[[Re:Zero]]``)
LANGUAGE_CODES = frozenset(
    "en de fr es it nl pl pt ru ja zh sv uk ar fa ca no nn fi cs hu ko id tr ro vi he da bg sr sk eo lt et sl hr el ms "
    "simple ceb war arz hy be kk az ur uz ta hi bn th ka la gl eu cy ga sq mk bs is lv af sw tl".split())
#: Namespace prefixes whose links carry a caption (its links are metadata of kind ``file``).
FILE_NAMESPACES = frozenset({"file", "image", "media", "файл", "картинка"})
#: Template names (lower case) that mark a disambiguation page (English defaults; a parameter).
DISAMBIGUATION_TEMPLATES = frozenset({
    "disambiguation", "disambig", "dab", "disamb", "hndis", "geodis", "hospital disambiguation",
    "school disambiguation", "place name disambiguation", "letter-number combination disambiguation",
    "roaddis", "numberdis", "mathdab", "airport disambiguation", "call sign disambiguation",
    "species latin name disambiguation", "caselaw disambiguation", "genus disambiguation", "disambiguation cleanup",
})


def normalize_title(title: str) -> str:
    """A link target or page title as MediaWiki resolves it: no ``#section``, ``_`` as space, first letter upper."""
    t = title.split("#", 1)[0].replace("_", " ").replace("\u200e", "").strip()
    t = " ".join(t.split())
    if t.startswith(":"):
        t = t[1:].strip()
    return t[:1].upper() + t[1:]


def template_name(name: str) -> str:
    """A template's name in lower case, spaces for underscores, without a ``Template:`` prefix or comments."""
    n = " ".join(name.replace("_", " ").split()).lower()
    if n.startswith("template:"):
        n = n[9:].strip()
    return n


@dataclass(slots=True)
class Link:
    """An internal link: the normalized target title and the anchor's span in its block's text."""

    target: str
    anchor: str
    start: int
    end: int


@dataclass(slots=True)
class Block:
    """A paragraph (``prose``), a list item (``list``) or metadata (``table``, ``template``, ``file``, ``ref``,
    ``markup``) with its internal links."""

    kind: str
    text: str = ""
    links: list[Link] = field(default_factory=list)


def parse(text: str):
    import mwparserfromhell

    return mwparserfromhell.parse(text, skip_style_tags=False)


def infobox_types(code) -> list[str]:
    """Infobox types of a page (``{{Infobox civilian attack|...}}`` -> ``civilian attack``), top level first."""
    out = []
    for tpl in code.ifilter_templates(recursive=True):
        name = template_name(str(tpl.name).split("<!--", 1)[0])
        if name.startswith("infobox"):
            kind = name[7:].strip(" _-:")
            if kind:
                out.append(kind)
    return out


def is_disambiguation(code, templates: Iterable[str] = DISAMBIGUATION_TEMPLATES) -> bool:
    """True when the page uses a disambiguation template (top level)."""
    names = set(templates)
    return any(template_name(str(t.name)) in names for t in code.ifilter_templates(recursive=False))


def links_of(code, namespaces: frozenset[str] = BASE_NAMESPACES) -> Iterator[str]:
    """Normalized article targets of every internal link in ``code`` (templates and tables included)."""
    for link in code.ifilter_wikilinks(recursive=True):
        target = _article_target(str(link.title), namespaces)
        if target:
            yield target


def _prefix(title: str) -> str | None:
    t = title.strip().lstrip(":")
    return t.split(":", 1)[0].strip().lower() if ":" in t else None


def _article_target(title: str, namespaces: frozenset[str]) -> str | None:
    prefix = _prefix(title)
    raw = title.strip().split(":", 1)[0]
    if prefix is not None and (prefix in namespaces or prefix in LANGUAGE_CODES or
                               (len(raw) <= 3 and raw.isalpha() and raw.islower())):
        return None  # namespace, interwiki or interlanguage link ([[de:Foo]]; not [[Re:Zero]])
    t = normalize_title(title)
    return t or None


class _Walker:
    def __init__(self, namespaces: frozenset[str]):
        self.namespaces = namespaces
        self.out: list[Block] = []
        self._reset("prose")

    def _reset(self, kind: str) -> None:
        self.kind = kind
        self.parts: list[str] = []
        self.size = 0
        self.links: list[Link] = []
        self.trail = False
        self.newline = False  # a single newline seen: a space in running text

    def flush(self, next_kind: str = "prose") -> None:
        text = "".join(self.parts)
        stripped = text.strip()
        if stripped:
            lead = len(text) - len(text.lstrip())
            links = [Link(k.target, k.anchor, k.start - lead, k.end - lead) for k in self.links]
            self.out.append(Block(self.kind, stripped, [k for k in links if 0 <= k.start < k.end <= len(stripped)]))
        self._reset(next_kind)

    def _append(self, s: str) -> None:
        if self.newline:
            self.newline = False
            self.parts.append(" ")
            self.size += 1
        elif self.trail and self.links and s[:1].isalpha():
            n = 0
            while n < len(s) and s[n].isalpha():
                n += 1
            last = self.links[-1]
            last.anchor += s[:n]
            last.end += n
        self.trail = False
        self.parts.append(s)
        self.size += len(s)

    def text(self, s: str) -> None:
        for i, piece in enumerate(s.split("\n")):
            if i:
                self.trail = False
                if self.kind == "list" or self.newline:
                    self.flush()  # end of a list item, or a blank line: end of the paragraph
                else:
                    self.newline = True
            if piece.strip():
                self._append(piece)
            elif piece and not self.newline and self.parts:
                self._append(piece)

    def metadata(self, kind: str, code) -> None:
        links = [Link(t, "", 0, 0) for t in links_of(code, self.namespaces)]
        if links:
            self.out.append(Block(kind, "", links))

    def walk(self, nodes) -> None:
        from mwparserfromhell import nodes as N
        from mwparserfromhell.wikicode import Wikicode

        for node in nodes:
            if isinstance(node, N.Text):
                self.text(str(node.value))
            elif isinstance(node, N.Wikilink):
                self.link(node)
            elif isinstance(node, N.Tag):
                self.tag(node)
            elif isinstance(node, N.Template):
                self.metadata("template", Wikicode([node]))
            elif isinstance(node, N.Heading):
                self.flush()
            elif isinstance(node, N.HTMLEntity):
                self._append(node.normalize())
            elif isinstance(node, N.ExternalLink):
                if node.title is not None:
                    self._append(node.title.strip_code())
            # comments, arguments: nothing

    def link(self, node) -> None:
        title = str(node.title)
        prefix = _prefix(title)
        if prefix in FILE_NAMESPACES or (prefix is not None and prefix in self.namespaces and
                                         prefix not in ("category",) and node.text is not None):
            if node.text is not None:
                self.metadata("file", node.text)
            return
        target = _article_target(title, self.namespaces)
        if target is None:
            return
        anchor = node.text.strip_code().strip() if node.text is not None else str(node.title).strip().lstrip(":")
        anchor = " ".join(anchor.split())
        if not anchor:
            return
        start = self.size
        self._append(anchor)
        self.links.append(Link(target, anchor, start, self.size))
        self.trail = True

    def tag(self, node) -> None:
        name = str(node.tag).lower()
        if name in LIST_TAGS and node.wiki_markup:
            self.flush("list")
            return
        if name == "table":
            self.metadata("table", node.contents)
            return
        if name in ("br", "hr"):
            if name == "hr":
                self.flush()
            else:
                self._append(" ")
            return
        if name in DROPPED_TAGS:
            if node.contents is not None and name != "nowiki":
                self.metadata("ref" if name in ("ref", "references") else "markup", node.contents)
            return
        if node.contents is not None and (name in INLINE_TAGS or node.wiki_markup):
            self.walk(node.contents.nodes)
        elif node.contents is not None:
            self.metadata("markup", node.contents)


def blocks(code, namespaces: Iterable[str] = ()) -> list[Block]:
    """The blocks of a page, in order (see the module docstring)."""
    w = _Walker(BASE_NAMESPACES | {n.lower() for n in namespaces if n})
    w.walk(code.nodes)
    w.flush()
    return w.out
