"""Dumps in the real MediaWiki export format, for tests and the scale benchmark.

:func:`write_dump` writes pages as ``pages-articles`` (one bz2 stream, or plain XML) or as
``pages-articles-multistream`` (bz2 streams of ``pages_per_stream`` pages plus the
``-multistream-index`` file of ``offset:page_id:title`` lines), as Wikimedia publishes them.
:func:`synthetic_pages` makes distinct-but-templated English pages for the harvesters: event
articles with infoboxes and many backlinks (anchors that name the event, a date, a place; links in
tables, lists, templates, file captions, via redirects), disambiguation pages with metonymic pairs
(a town, its university, its football club, its festival, plus a polysemous namesake) whose articles
link to each other, and filler articles; :func:`categories_tsv` gives the classes of those articles.
"""

from __future__ import annotations

import bz2
import random
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from xml.sax.saxutils import escape

NS = [(-2, "Media"), (-1, "Special"), (0, ""), (1, "Talk"), (2, "User"), (4, "Wikipedia"), (6, "File"),
      (10, "Template"), (14, "Category"), (100, "Portal")]


def header(dbname: str = "enwiki", lang: str = "en") -> str:
    nss = "\n".join(f'      <namespace key="{k}" case="first-letter">{escape(n)}</namespace>' if n else
                    f'      <namespace key="{k}" case="first-letter" />' for k, n in NS)
    return (f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" '
            f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="http://www.mediawiki.org/xml/export-0.10/ '
            f'http://www.mediawiki.org/xml/export-0.10.xsd" version="0.10" xml:lang="{lang}">\n'
            f"  <siteinfo>\n    <sitename>Wikipedia</sitename>\n    <dbname>{dbname}</dbname>\n"
            f"    <base>https://{lang}.wikipedia.org/wiki/Main_Page</base>\n"
            f"    <generator>MediaWiki 1.42.0-wmf.1</generator>\n    <case>first-letter</case>\n"
            f"    <namespaces>\n{nss}\n    </namespaces>\n  </siteinfo>\n")


FOOTER = "</mediawiki>\n"


def page_xml(pid: int, title: str, text: str, *, ns: int = 0, redirect: str | None = None) -> str:
    red = f'    <redirect title="{escape(redirect, {chr(34): "&quot;"})}" />\n' if redirect else ""
    return (f"  <page>\n    <title>{escape(title)}</title>\n    <ns>{ns}</ns>\n    <id>{pid}</id>\n{red}"
            f"    <revision>\n      <id>{pid * 10}</id>\n      <timestamp>2024-06-01T00:00:00Z</timestamp>\n"
            f"      <contributor>\n        <username>Synth</username>\n        <id>1</id>\n      </contributor>\n"
            f"      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
            f'      <text bytes="{len(text.encode())}" xml:space="preserve">{escape(text)}</text>\n'
            f"    </revision>\n  </page>\n")


Page = tuple[int, str, str, str | None]  # id, title, text, redirect


def _compress(chunk: list[Page]) -> bytes:
    return bz2.compress("".join(page_xml(p, t, x, redirect=r) for p, t, x, r in chunk).encode("utf-8"), 9)


def write_dump(path: str | Path, pages: Iterable[Page], *, multistream: bool = True, pages_per_stream: int = 100,
               dbname: str = "enwiki", processes: int = 1) -> list[Path]:
    """Write ``pages`` as a dump at ``path``; the files written (the dump, and its index when multistream).

    ``path`` ending in ``.xml`` writes plain XML; else bz2 (one stream, or multistream with an index named
    like Wikimedia's: ``X-multistream.xml.bz2`` -> ``X-multistream-index.txt.bz2``).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if str(path).endswith(".xml"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(header(dbname))
            for p, t, x, r in pages:
                f.write(page_xml(p, t, x, redirect=r))
            f.write(FOOTER)
        return [path]
    if not multistream:
        with bz2.open(path, "wt", encoding="utf-8") as f:
            f.write(header(dbname))
            for p, t, x, r in pages:
                f.write(page_xml(p, t, x, redirect=r))
            f.write(FOOTER)
        return [path]
    if "multistream" not in path.name:
        raise ValueError(f"{path}: a multistream dump's name holds 'multistream' (the index is found by it)")
    index = path.with_name(path.name.replace("multistream", "multistream-index", 1).replace(".xml", ".txt", 1))
    with open(path, "wb") as f, bz2.open(index, "wt", encoding="utf-8") as idx:
        f.write(bz2.compress(header(dbname).encode("utf-8"), 9))

        def put(chunk: list[Page], data: bytes) -> None:
            offset = f.tell()
            idx.write("".join(f"{offset}:{p}:{t}\n" for p, t, _, _ in chunk))
            f.write(data)

        if processes <= 1:
            for chunk in _chunks(pages, pages_per_stream):
                put(chunk, _compress(chunk))
        else:  # compress streams in parallel, a bounded number in flight (memory stays flat)
            with ProcessPoolExecutor(processes) as pool:
                flight: deque = deque()
                for chunk in _chunks(pages, pages_per_stream):
                    flight.append((chunk, pool.submit(_compress, chunk)))
                    if len(flight) >= 4 * processes:
                        c, fut = flight.popleft()
                        put(c, fut.result())
                while flight:
                    c, fut = flight.popleft()
                    put(c, fut.result())
        f.write(bz2.compress(FOOTER.encode("utf-8"), 9))
    return [path, index]


def _chunks(pages: Iterable[Page], n: int) -> Iterator[list[Page]]:
    chunk: list[Page] = []
    for p in pages:
        chunk.append(p)
        if len(chunk) == n:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


WORDS = ("river valley council museum harbour railway market province station annual season league record "
         "north south eastern western century ancient modern festival historic local region central royal "
         "island coast mountain bridge castle church library college garden tower square street village town "
         "report government army navy election treaty company industry farmers workers students artists "
         "writers officials residents visitors engineers scholars merchants pilots sailors soldiers").split()
EVENT_KINDS = (("earthquake", "earthquake", "the quake", "tremor"), ("civilian attack", "bombing", "the attack",
                                                                    "blast"),
               ("festival", "festival", "the festival", "celebrations"), ("flood", "flood", "the floods", "deluge"),
               ("airliner accident", "crash", "the crash", "accident"))


def _sentence(rng: random.Random, n: int = 12) -> str:
    w = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(w).capitalize() + "."


def _para(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(_sentence(rng, rng.randint(8, 18)) for _ in range(sentences))


def town(i: int) -> str:
    """The name of synthetic town ``i`` (letters only, distinct)."""
    a, b = divmod(i, 26 * 26)
    return "Ka" + "bcdfghjklmnprstvz"[a % 17] + "abcdefghijklmnopqrstuvwxyz"[b // 26] + \
        "aeiou"[b % 5] + "lmnrs"[(b // 5) % 5] + ("" if a < 17 else str(a // 17))


def synthetic_pages(n_events: int = 5, backlinks: int = 12, n_towns: int = 3, filler: int = 20,
                    seed: int = 0, filler_paragraphs: int = 6) -> Iterator[Page]:
    """Pages for the harvesters (see the module docstring); ids ascend from 1, every title distinct."""
    rng = random.Random(seed)
    pid = 0

    def nxt() -> int:
        nonlocal pid
        pid += 1
        return pid

    towns = [town(i) for i in range(max(n_towns, 1))]
    for t in towns:
        yield nxt(), t, ("{{Infobox settlement|name=" + t + "|country=[[Synthland]]}}\n'''" + t + "''' is a town. "
                         + f"It is home to [[{t} University]], the football club [[{t} FC]] and the "
                         + f"[[{t} Festival]]. " + _para(rng, 2) + "\n\n" + _para(rng)), None
        yield nxt(), f"{t} University", ("{{Infobox university|name=x}}\n'''" + t + " University''' is a university "
                                         f"in [[{t}]]. " + _para(rng, 2)), None
        yield nxt(), f"{t} FC", (f"{{{{Infobox football club}}}}\n'''{t} FC''' is a club based in [[{t}]]. "
                                 + _para(rng, 2)), None
        yield nxt(), f"{t} Festival", (f"{{{{Infobox festival}}}}\nThe '''{t} Festival''' is held in [[{t}]]. "
                                       + _para(rng, 2)), None
        yield nxt(), f"{t} (band)", "{{Infobox musical artist}}\n'''" + t + "''' is a band. " + _para(rng, 2), None
        yield nxt(), f"{t} (disambiguation)", (f"'''{t}''' may refer to:\n\n* [[{t}]], a town\n"
                                                f"* [[{t} University]], a university\n* [[{t} FC]], a football club\n"
                                                f"* [[{t} Festival]], a festival\n* [[{t} (band)]], a band\n\n"
                                                "{{disambiguation}}"), None
        yield nxt(), f"Univ. of {t}", f"#REDIRECT [[{t} University]]", f"{t} University"
    events = []
    for e in range(n_events):
        kind, noun, short, other = EVENT_KINDS[e % len(EVENT_KINDS)]
        place = towns[e % len(towns)]
        title = f"{2000 + e} {place} {noun}"
        events.append((title, noun, short, other, place, 2000 + e))
        box = f"{{{{Infobox {kind}\n| name = {title}\n| date = {2000 + e}\n| location = [[{place}]]\n}}}}"
        yield nxt(), title, (box + f"\nThe '''{title}''' was a {noun} in [[{place}]]. " + _para(rng, 3)), None
        yield nxt(), f"{title} (redirect)", f"#REDIRECT [[{title}]]", title
    for b in range(backlinks):
        paras = []
        for title, noun, short, other, place, year in events:
            style = 0 if b % 3 == 0 else b % 8  # the title as anchor most often, as on Wikipedia
            if style == 0:
                link = f"[[{title}]]"
            elif style == 1:
                link = f"[[{title}|{short}]]"
            elif style == 2:
                link = f"[[{title}|{other}]]"
            elif style == 3:
                link = f"[[{title}|{year}]]"  # a date: the named-entity filter's
            elif style == 4:
                link = f"[[{title}|{place}]]"  # a place: the named-entity filter's (gazetteer)
            elif style == 5:
                link = f"[[{title} (redirect)|the {noun}]]"
            elif style == 6:
                link = f"[[{title}|{noun}]]s"  # link trail
            else:
                link = f"[[{title}|the great {noun}]]"
            paras.append(f"{_sentence(rng)} During {link} the {rng.choice(WORDS)} of [[{place}]] was "
                         f"damaged. {_sentence(rng)} ''[[{place} University]]'' {rng.choice(WORDS)} and "
                         f"[[{place} FC]] {rng.choice(WORDS)}. {_sentence(rng)}")
        table = (f"{{| class=\"wikitable\"\n|-\n| [[{events[0][0]}]] || 1\n|}}" if events else "")
        lst = f"* [[{events[-1][0]}]] in a list" if events else ""
        cap = f"[[File:X{b}.jpg|thumb|A view of [[{events[0][0]}|the site]]]]" if events else ""
        yield nxt(), f"Chronicle {b}", ("{{Short description|x}}\n" + "\n\n".join(paras) + "\n\n" + table + "\n"
                                        + lst + "\n" + cap + "\n\n==History==\n" + _para(rng)), None
    for k in range(filler):
        yield nxt(), f"Topic {k} {rng.choice(WORDS)} {k * 7919 % 10007}", (
            "{{Infobox person|name=x}}\n" if k % 3 == 0 else "") + "\n\n".join(
            _para(rng) for _ in range(filler_paragraphs)) + f"\n\n[[Category:Topics {k % 10}]]", None


def categories_tsv(n_towns: int = 3) -> str:
    """``title<TAB>CLASS`` lines for the towns of :func:`synthetic_pages` (the band has none: polysemous)."""
    rows = []
    for i in range(max(n_towns, 1)):
        t = town(i)
        rows += [f"{t}\tLOCATION", f"{t} University\tUniversity", f"{t} FC\tSoccerClub", f"{t} Festival\tEVENT"]
    return "# synthetic categories: title<TAB>CLASS\n" + "\n".join(rows) + "\n"


_VOCAB: list[str] = []


def _vocabulary() -> list[str]:
    """8,000 pseudo-words (syllable strings): filler text about as compressible as Wikipedia's (bz2 ~4-5x)."""
    if not _VOCAB:
        rng = random.Random(12345)
        syl = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]
        _VOCAB.extend(dict.fromkeys("".join(rng.choices(syl, k=rng.randint(1, 4))) for _ in range(12000)))
        del _VOCAB[8000:]
    return _VOCAB


#: The filler's mix (per page, from the stream's seeded draw), set from English Wikipedia's shape rather than to
#: flatter the harvesters: about 40% of articles carry an infobox in their lead (person, settlement, company,
#: album, species), about 3% are disambiguation pages, about 2% link to one of the head's event articles and about
#: 2% to one of its towns, universities or clubs (pages the WEC and WiMCor extract stages must parse); every
#: article has a lead and two sections, 4 internal links a paragraph and a category.
FILLER_INFOBOX = 0.40
FILLER_DISAMBIGUATION = 0.03
FILLER_EVENT_LINK = 0.02
FILLER_TOWN_LINK = 0.02
FILLER_INFOBOXES = ("person", "settlement", "company", "album", "species")


#: Page sizes of the real English sample (``enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2``,
#: 206 pages, measured by :func:`size_profile`): the share of redirects, and the mean and standard deviation of
#: the natural log of an article's wikitext bytes (median 38 KB; 8.2 KB of bz2 a page, redirects included).
REAL_SIZES = {"redirects": 0.485, "log_bytes_mean": 10.28, "log_bytes_sd": 1.32}
#: wikitext bytes of one filler paragraph (60 pseudo-words, 4 of them links), about
_PARAGRAPH_BYTES = 450


def size_profile(path: str | Path, prefix: str = "") -> dict[str, float]:
    """The page-size profile of a dump (as :data:`REAL_SIZES`): share of redirects among its article-namespace
    pages (those whose title starts with ``prefix``), mean and standard deviation of the log of its articles'
    wikitext bytes, and pages counted."""
    import math
    import statistics

    from figbench.harvest import dump

    sizes, redirects, n = [], 0, 0
    for part in dump.partitions(path):
        for page in dump.iter_pages(part):
            if page.ns != 0 or not page.title.startswith(prefix):
                continue
            n += 1
            if page.redirect is not None:
                redirects += 1
            else:
                sizes.append(math.log(max(len(page.text.encode("utf-8")), 1)))
    return {"redirects": round(redirects / max(n, 1), 3), "log_bytes_mean": round(statistics.fmean(sizes), 2),
            "log_bytes_sd": round(statistics.stdev(sizes), 2), "pages": n}


def _sized(rng: random.Random, paragraphs: int | None) -> tuple[int, float | None]:
    """A filler article's paragraphs and target bytes: ``(paragraphs, None)``, or (None) drawn so its bytes follow
    :data:`REAL_SIZES`."""
    if paragraphs is not None:
        return paragraphs, None
    target = rng.lognormvariate(REAL_SIZES["log_bytes_mean"], REAL_SIZES["log_bytes_sd"])
    return max(1, min(2000, round(target / _PARAGRAPH_BYTES))), target


def _filler_text(rng: random.Random, pid: int, paragraphs: int, events: list[str], towns: list[str],
                 target: float | None = None) -> str:
    vocab = _vocabulary()
    if rng.random() < FILLER_DISAMBIGUATION:
        n = 4 if target is None else max(2, min(4000, round(target / 45)))  # entries of about 45 bytes
        items = "\n".join(f"* [[Filler {pid + k} {rng.choice(WORDS)}]], a {rng.choice(WORDS)}" for k in range(1, n + 1))
        return f"'''{rng.choice(vocab).capitalize()}''' may refer to:\n\n{items}\n\n{{{{disambiguation}}}}"
    paras = []
    for k in range(paragraphs):
        words = rng.choices(vocab, k=60)
        for j in rng.sample(range(60), 4):
            words[j] = f"[[{words[j]}]]"
        paras.append(" ".join(words).capitalize() + f". Item {pid}-{k}.")
    if events and rng.random() < FILLER_EVENT_LINK:
        title = rng.choice(events)
        noun = title.rsplit(" ", 1)[-1]
        anchor = rng.choice((title, f"the {noun}", f"the {title.split()[0]} {noun}", noun))
        paras[rng.randrange(paragraphs)] += f" It was {rng.choice(WORDS)} after [[{title}|{anchor}]] in {pid}."
    if towns and rng.random() < FILLER_TOWN_LINK:
        t = rng.choice(towns)
        target = rng.choice((t, f"{t} University", f"{t} FC"))
        paras[rng.randrange(paragraphs)] += f" The {rng.choice(WORDS)} of [[{target}]] {rng.choice(WORDS)} there."
    box = ""
    if rng.random() < FILLER_INFOBOX:
        box = (f"{{{{Infobox {rng.choice(FILLER_INFOBOXES)}\n| name = {rng.choice(vocab)}\n"
               f"| place = [[{rng.choice(vocab)}]]\n}}}}\n")
    cut = max(1, paragraphs // 3)
    return (box + "\n\n".join(paras[:cut]) + "\n\n==History==\n" + "\n\n".join(paras[cut:2 * cut])
            + "\n\n==Later years==\n" + "\n\n".join(paras[2 * cut:]) + f"\n\n[[Category:Filler {pid % 97}]]")


def _filler_stream(job: tuple) -> tuple[list[tuple[int, str]], bytes]:
    """Filler pages ``first_id .. first_id + n - 1`` (distinct titles, the mix above), compressed as one stream;
    ``paragraphs`` None: the real dump's sizes (:data:`REAL_SIZES`), redirects to earlier filler articles included."""
    first_id, n, paragraphs, seed, events, towns = job
    rng = random.Random(seed * 1_000_003 + first_id)
    pages: list[Page] = []
    articles: list[str] = []
    for pid in range(first_id, first_id + n):
        title = f"Filler {pid} {rng.choice(WORDS)}"
        if paragraphs is None and articles and rng.random() < REAL_SIZES["redirects"]:
            pages.append((pid, title, f"#REDIRECT [[{rng.choice(articles)}]]", rng.choice(articles)))
            continue
        articles.append(title)
        n_paragraphs, target = _sized(rng, paragraphs)
        text = _filler_text(rng, pid, n_paragraphs, events, towns, target)
        pages.append((pid, title, text, None))
    return [(p, t) for p, t, _, _ in pages], _compress(pages)


def write_large_dump(path: str | Path, filler: int, *, paragraphs: int | None = None, processes: int = 2,
                     pages_per_stream: int = 100, seed: int = 0, **kwargs) -> list[Path]:
    """A multistream dump of :func:`synthetic_pages` (``kwargs``, no filler) plus ``filler`` templated pages
    generated and compressed in ``processes`` parallel workers (memory flat: a bounded number of streams in flight).

    ``paragraphs`` None (the default): page sizes as the real English sample's (:data:`REAL_SIZES`: about half
    redirects, article sizes log-normal around 38 KB); an int: every filler page an article of that many
    paragraphs (small, fast dumps for tests)."""
    path = Path(path)
    head = list(synthetic_pages(filler=0, seed=seed, **kwargs))
    events = [t for _, t, x, _ in head if x.startswith("{{Infobox") and "\n| date = " in x]  # the event articles
    towns = [town(i) for i in range(max(kwargs.get("n_towns", 3), 1))]
    files = write_dump(path, head, pages_per_stream=pages_per_stream)
    index = files[1]
    data = path.read_bytes()
    footer = bz2.compress(FOOTER.encode("utf-8"), 9)
    assert data.endswith(footer)
    with open(path, "r+b") as f, bz2.open(index, "at", encoding="utf-8") as idx:
        f.truncate(len(data) - len(footer))
        f.seek(0, 2)
        jobs = ((len(head) + 1 + i, min(pages_per_stream, filler - i), paragraphs, seed, events, towns)
                for i in range(0, filler, pages_per_stream))
        with ProcessPoolExecutor(max(processes, 1)) as pool:
            flight: deque = deque()

            def drain() -> None:
                titles, blob = flight.popleft().result()
                offset = f.tell()
                idx.write("".join(f"{offset}:{p}:{t}\n" for p, t in titles))
                f.write(blob)

            for job in jobs:
                flight.append(pool.submit(_filler_stream, job))
                if len(flight) >= 4 * max(processes, 1):
                    drain()
            while flight:
                drain()
        f.write(footer)
    return files
