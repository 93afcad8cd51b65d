"""WiMCor's article classes (medium labels): from a categories file (DBpedia instance types or a TSV), or
offline from the linked articles' infobox types (an approximation of DBpedia's classes, which DBpedia maps from
the same infoboxes). See :mod:`figbench.harvest.wimcor`."""

from __future__ import annotations

import bz2
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from figbench.corpora.wimcor import MEDIUM_LABELS
from figbench.harvest import wikitext

if TYPE_CHECKING:
    from figbench.harvest import driver

#: Table 1's associations: LOCATION for these
METONYMIC = ("INSTITUTE", "TEAM", "ARTIFACT", "EVENT")
#: DBpedia ontology class -> WiMCor medium label (most specific types of the instance-types dump)
DBPEDIA_CLASSES: dict[str, str] = {
    **dict.fromkeys(("Place", "PopulatedPlace", "Settlement", "City", "Town", "Village", "Country", "Region",
                     "AdministrativeRegion", "State", "Island", "Location", "CityDistrict", "Municipality",
                     "Province", "County", "Territory", "Continent", "HistoricPlace", "Locality"), "LOCATION"),
    **dict.fromkeys(("EducationalInstitution", "University", "College", "School", "Library", "Museum", "Hospital",
                     "ResearchInstitute", "Institution", "Organisation", "Company", "Broadcaster", "Newspaper"),
                    "INSTITUTE"),
    **dict.fromkeys(("SportsTeam", "SoccerClub", "HockeyTeam", "BasketballTeam", "BaseballTeam",
                     "AmericanFootballTeam", "CricketTeam", "RugbyClub", "SportsClub", "CanadianFootballTeam",
                     "HandballTeam", "VolleyballTeam", "NationalSoccerClub"), "TEAM"),
    **dict.fromkeys(("Building", "ArchitecturalStructure", "Stadium", "Airport", "Station", "RailwayStation",
                     "Bridge", "Castle", "Church", "Tower", "Observatory", "Venue", "Arena", "Theatre", "Prison",
                     "Mine", "Dam", "Lighthouse", "Park", "ShoppingMall", "Hotel", "MilitaryStructure",
                     "Infrastructure", "Ship", "Artifact"), "ARTIFACT"),
    **dict.fromkeys(("Event", "FilmFestival", "Festival", "MusicFestival", "SportsEvent", "SocietalEvent",
                     "Convention", "Election", "Olympics", "Race", "Tournament", "Battle", "MilitaryConflict"),
                    "EVENT"),
}
#: the offline class source (no categories file): infobox type -> medium label
INFOBOX_CLASSES = "wimcor_en_infobox_classes.txt"
_RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def _resource_title(term: str) -> str | None:
    if not (term.startswith("<") and term.endswith(">")):
        return None
    uri = term[1:-1]
    name = uri.rsplit("/resource/", 1)[-1] if "/resource/" in uri else None
    return wikitext.normalize_title(unquote(name)) if name else None


def _open_text(path: Path):
    return bz2.open(path, "rt", encoding="utf-8") if path.suffix == ".bz2" else open(path, encoding="utf-8")


def iter_categories(path: str | Path) -> Iterator[tuple[str, str]]:
    """(title, medium label) pairs of a categories file (see the module docstring); bad lines raise naming the line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"categories file {path} does not exist")
    rdf = any(s in (".ttl", ".nt") for s in path.suffixes)
    with _open_text(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            if rdf:
                terms = line.split()
                if len(terms) < 3 or terms[1] != _RDF_TYPE:
                    continue  # other predicates (e.g. owl:Thing lines of other dumps)
                title = _resource_title(terms[0])
                cls = terms[2].strip("<>").rsplit("/", 1)[-1]
                if title is None:
                    raise ValueError(f"{path}: line {lineno}: subject {terms[0]!r} is not a DBpedia resource URI")
                medium = DBPEDIA_CLASSES.get(cls)
            else:
                title, sep, cls = line.partition("\t")
                if not sep or not title.strip() or not cls.strip():
                    raise ValueError(f"{path}: line {lineno}: expected 'title<TAB>CLASS', got {line[:80]!r}")
                cls = cls.strip()
                medium = cls.upper() if cls.upper() in MEDIUM_LABELS else DBPEDIA_CLASSES.get(cls)
                if medium is None:
                    raise ValueError(f"{path}: line {lineno}: unknown class {cls!r} (a WiMCor medium label "
                                     f"{', '.join(MEDIUM_LABELS)} or a DBpedia class of DBPEDIA_CLASSES)")
                title = wikitext.normalize_title(title)
            if medium:
                yield title, medium


def categories_for(path: str | Path, titles: set[str]) -> dict[str, str]:
    """Medium label of each of ``titles`` found in the categories file (the first line of a title wins)."""
    out: dict[str, str] = {}
    for title, medium in iter_categories(path):
        if title in titles and title not in out:
            out[title] = medium
    return out


def infobox_class(text: str, classes: dict[str, str]) -> tuple[str, str] | None:
    """(infobox type, label) of the first infobox type of an article's lead that ``classes`` maps, or None."""
    from figbench.harvest.wec import _lead, may_have_infobox

    lead = _lead(text)
    if not may_have_infobox(lead):
        return None
    return next(((t, classes[t]) for t in wikitext.infobox_types(wikitext.parse(lead)) if t in classes), None)


def typed_classes(run: driver.Run, titles: set[str]) -> tuple[dict[str, str], Counter]:
    """Class of each of ``titles`` from the scan's infobox types (no categories file), and the classes counted by
    infobox type."""
    classes: dict[str, str] = {}
    by_type: Counter = Counter()
    for o in run.outputs("scan"):
        for t in titles & o["typed"].keys():
            if t not in classes:
                kind, classes[t] = o["typed"][t]
                by_type[f"{kind}\t{classes[t]}"] += 1
    return classes, by_type


def card_section(report: dict) -> str:
    if report["categories_file"] is None:
        used = "\n".join(f"| {k.split(chr(9))[0]} | {k.split(chr(9))[1]} | {n:,} |"
                         for k, n in report["classes_by_infobox"].items())
        return (f"## Categories\n\nNo categories file: classes from the dump itself, the infobox types of the linked "
                f"articles ({report['classes_found']:,} of the disambiguation pages' articles have one of the list's "
                "types), an approximation of DBpedia's classes (which DBpedia maps from the same infoboxes; "
                "pass --categories for DBpedia's own). Associations (Table 1): "
                + ", ".join(f"LOCATION-for-{m}" for m in METONYMIC) + ".\n\n| infobox type | class | articles |\n"
                "|---|---|---|\n" + used + "\n\nThe whole list:\n\n| infobox type | class |\n|---|---|\n"
                + "\n".join(f"| {k} | {v} |" for k, v in report["infobox_classes"].items()) + "\n")
    return (f"## Categories\n\nFile `{report['categories_file']}`: {report['classes_found']:,} of the disambiguation "
            "pages' articles have a class. Associations (Table 1): "
            + ", ".join(f"LOCATION-for-{m}" for m in METONYMIC) + ". DBpedia classes map to medium labels:\n\n"
            + "\n".join(f"- {m}: " + ", ".join(c for c, v in DBPEDIA_CLASSES.items() if v == m)
                        for m in MEDIUM_LABELS) + "\n")
