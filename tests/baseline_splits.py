"""Small in-memory splits shaped like the figbench builders' (columns and ClassLabel features), for
running the baselines without the corpora: ``use_fixture_splits(monkeypatch)`` makes every baseline
load these through :func:`figbench_baselines.common.splits.load_splits`. Each corpus picks its own in
``tests/fixtures/<corpus>/cases.py`` (``splits``); the builders of those splits are here."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import datasets

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TAGS = ["O", "B-METAPHOR", "I-METAPHOR"]
NLI = ["entailment", "neutral", "contradiction"]
MEDIUM = ["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"]


def detection_split(prefix: str, n: int, seed: int, lang: str, source: str = "xnli_dev") -> datasets.Dataset:
    """Sentences whose metaphor words are tagged B- (I- for a following "idea") most of the time; seeds
    other than 1 (test) also use two words training never has."""
    rng = random.Random(seed)
    literal = ["the", "house", "was", "old", "and", "we", "walked", "home", "slowly", "today"]
    metaphors = ["glowing", "attacked", "bright", "drowning"] + (["sharp", "bitter"] if seed != 1 else [])
    rows = []
    for i in range(n):
        toks, tags = [], []
        for _ in range(rng.randint(4, 9)):
            if rng.random() < 0.25:
                toks.append(rng.choice(metaphors))
                tags.append(1 if rng.random() < 0.8 else 0)
                if rng.random() < 0.2:
                    toks.append("idea")
                    tags.append(2)
            else:
                toks.append(rng.choice(literal))
                tags.append(0)
        side = "prem" if i % 3 == 0 else "hyp"
        rows.append({"id": f"{prefix}-{i:05d}", "tokens": toks, "tags": tags, "lang": lang,
                     "source": f"{source}_{side}", "source_id": f"{lang}-{source}_{side}-{i:05d}"})
    features = datasets.Features({"id": datasets.Value("string"), "tokens": datasets.Sequence(datasets.Value("string")),
                                  "tags": datasets.Sequence(datasets.ClassLabel(names=TAGS)),
                                  "lang": datasets.Value("string"), "source": datasets.Value("string"),
                                  "source_id": datasets.Value("string")})
    return datasets.Dataset.from_list(rows, features=features)


def interpretation_split(split: str, n: int, seed: int) -> datasets.Dataset:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        for lang in ("en", "es"):
            rows.append({"id": f"{i}_{split}-{lang}", "language": lang, "gold_label": i % 3,
                         "premise": f"the {rng.choice(['cat', 'dog', 'sky'])} is {rng.choice(['blue', 'old'])}",
                         "hypothesis": f"it is {rng.choice(['blue', 'old', 'new'])}",
                         "metaphor_status": ["met", "no_met", "no_met", "non-relevant"][i % 4],
                         "genre": "fiction", "source": "xnli.dev", "prompt_id": str(i), "pair_id": f"{i}_{split}"})
    features = datasets.Features({"id": datasets.Value("string"), "language": datasets.Value("string"),
                                  "gold_label": datasets.ClassLabel(names=NLI),
                                  **{c: datasets.Value("string") for c in ("premise", "hypothesis", "metaphor_status",
                                                                           "genre", "source", "prompt_id", "pair_id")}})
    return datasets.Dataset.from_list(rows, features=features)


def wimcor_split(split: str, n: int, seed: int) -> datasets.Dataset:
    rng = random.Random(seed)
    places = ["Paris", "London", "Berlin", "Madrid"]
    contexts = {"LOCATION": "We travelled to {} last summer .", "INSTITUTE": "{} announced new taxes on Monday .",
                "TEAM": "{} won the match by two goals .", "ARTIFACT": "The {} stamp was printed in 1901 .",
                "EVENT": "After {} nobody trusted the treaty ."}
    rows = []
    for i in range(n):
        medium = MEDIUM[i % len(MEDIUM)] if split == "test" else MEDIUM[rng.randrange(len(MEDIUM))]
        place = rng.choice(places)
        text = contexts[medium].format(place)
        start = text.index(place)
        rows.append({"id": f"{split}-{i}", "text": text, "pmw": place, "pmw_start": start,
                     "pmw_end": start + len(place), "coarse": 0 if medium == "LOCATION" else 1,
                     "medium": MEDIUM.index(medium), "fine": medium.lower()})
    features = datasets.Features({"id": datasets.Value("string"), "text": datasets.Value("string"),
                                  "pmw": datasets.Value("string"), "pmw_start": datasets.Value("int32"),
                                  "pmw_end": datasets.Value("int32"),
                                  "coarse": datasets.ClassLabel(names=["literal", "metonymic"]),
                                  "medium": datasets.ClassLabel(names=MEDIUM), "fine": datasets.Value("string")})
    return datasets.Dataset.from_list(rows, features=features)


PROVERBS = {"Q1": "The early bird catches the worm", "Q2": "Still waters run deep",
            "Q3": "A penny saved is a penny earned", "Q4": "Birds of a feather flock together",
            "Q5": "Actions speak louder than words", "Q6": "Every cloud has a silver lining"}
_UNSEEN_TEST = ("Q5", "Q6")
_STORIES = {
    "Q1": ["Tom woke at dawn and got the best seat at the market before anyone else arrived.",
           "She left home early every day and so she found the freshest bread in town.",
           "The first fisherman on the lake caught the most fish that morning."],
    "Q2": ["The quiet boy in class surprised everyone with a deep and wise speech.",
           "Anna rarely spoke but her paintings showed a rich inner world.",
           "The shy clerk turned out to know more law than the judges."],
    "Q3": ["Ben put a coin in his jar every week and bought a bicycle after a year.",
           "By cooking at home they saved enough money for a small boat.",
           "She kept every receipt and the savings paid for her studies."],
    "Q4": ["The chess players always sat together at the back of the cafe.",
           "Musicians in the town formed a club and met every Friday.",
           "The runners of the village trained together at sunrise."],
    "Q5": ["He never promised anything but he fixed the roof for his neighbour.",
           "Instead of talking about change she planted trees in the park.",
           "The mayor spoke a lot while the nurse quietly helped the sick."],
    "Q6": ["Losing his job let Sam start the bakery he had always dreamed of.",
           "The storm ruined the harvest but brought the village together.",
           "After the fire the family found old letters that made them laugh."],
}


def _epic_rows(ids: list[tuple[str, int]], *, pairs: bool) -> list[dict]:
    rows = []
    for pid, k in ids:
        text = _STORIES[pid][k]
        row = {"id": f"{pid}N{k + 1}", "narrative": text, "proverb": PROVERBS[pid], "proverb_id": pid}
        if pairs:
            word = text.split()[1]
            start = text.index(word)
            row["pairs"] = [
                {"pair_id": f"{pid}N{k + 1}-1", "proverb_span": PROVERBS[pid].split()[1], "proverb_start": 0,
                 "proverb_end": 3, "proverb_match": "exact", "proverb_occurrences": 1, "narrative_span": word,
                 "narrative_start": start, "narrative_end": start + len(word), "narrative_match": "exact",
                 "narrative_occurrences": 1},
                {"pair_id": f"{pid}N{k + 1}-2", "proverb_span": "zzz", "proverb_start": -1, "proverb_end": -1,
                 "proverb_match": "none", "proverb_occurrences": 0, "narrative_span": "qqq", "narrative_start": -1,
                 "narrative_end": -1, "narrative_match": "none", "narrative_occurrences": 0}]
        rows.append(row)
    return rows


def epic_splits(config: str) -> datasets.DatasetDict:
    base = {"id": datasets.Value("string"), "narrative": datasets.Value("string"),
            "proverb": datasets.Value("string"), "proverb_id": datasets.Value("string")}
    if config == "proverbs":
        rows = [{"id": pid, "proverb": text, "seen_label": i, "unseen_label": i,
                 "unseen_split": "test" if pid in _UNSEEN_TEST else "train", "num_narratives": 3}
                for i, (pid, text) in enumerate(PROVERBS.items())]
        return datasets.DatasetDict({"train": datasets.Dataset.from_list(rows)})
    if config == "unseen":
        train_ids = [(p, k) for p in PROVERBS if p not in _UNSEEN_TEST for k in range(3)]
        test_ids = [(p, k) for p in _UNSEEN_TEST for k in range(3)]
    else:
        train_ids = [(p, k) for p in PROVERBS for k in range(2)]
        test_ids = [(p, 2) for p in PROVERBS]   # no training narrative: the clean protocol refuses a shared one
    if config == "alignment":
        features = datasets.Features({**base, "pairs": datasets.List(
            {k: datasets.Value("int32" if k.endswith(("start", "end", "occurrences")) else "string")
             for k in _epic_rows([("Q1", 0)], pairs=True)[0]["pairs"][0]})})
        return datasets.DatasetDict({s: datasets.Dataset.from_list(_epic_rows(ids, pairs=True), features=features)
                                     for s, ids in (("train", train_ids), ("test", test_ids))})
    names = list(PROVERBS.values())
    features = datasets.Features({**base, "label": datasets.ClassLabel(names=names)})
    return datasets.DatasetDict({
        s: datasets.Dataset.from_list([{**r, "label": names.index(r["proverb"])} for r in _epic_rows(ids, pairs=False)],
                                      features=features)
        for s, ids in (("train", train_ids), ("test", test_ids))})


def _mentions(name: str) -> datasets.Dataset:
    return datasets.Dataset.from_list(json.loads((FIXTURES / "cdec" / f"mentions_{name}.json").read_text()))


def cdec_splits() -> datasets.DatasetDict:
    """The coreference corpora's splits (ecbplus, ecbmeta and wec_eng share them)."""
    test = _mentions("test")
    return datasets.DatasetDict({"train": _mentions("train"), "test": test, "dev_small": test})


@cache
def fixture_splits(dataset: str, config: str | None) -> datasets.DatasetDict:
    """The in-memory splits of ``dataset``/``config``, as the corpus declares them (``splits`` in
    ``tests/fixtures/<dataset>/cases.py``); KeyError for one not provided."""
    from tests.corpus_cases import corpus_splits

    return corpus_splits(dataset, config)


def use_fixture_splits(monkeypatch) -> None:
    """Make every baseline read :func:`fixture_splits` instead of the corpora."""
    from figbench_baselines.common import splits

    monkeypatch.setattr(splits, "load_splits", lambda dataset, config, data_dir=None, **options:
                        fixture_splits(dataset, config))
