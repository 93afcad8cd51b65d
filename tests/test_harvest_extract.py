"""Issue 31: the WEC extract stage's work is linear in a paragraph's links (the paragraph is kept once, its
checks run once) and a paragraph the boilerplate filter drops is never tokenized."""

from __future__ import annotations

import pytest

from figbench.harvest import dump, synthetic, wec

EVENT = "1999 Zorn earthquake"


def _extract(tmp_path, text: str, opts: wec.WecOptions | None = None) -> dict:
    path = tmp_path / "xxwiki-pages-articles.xml"
    synthetic.write_dump(path, [(1, EVENT, "{{Infobox earthquake}} A quake.", None), (2, "Chronicle", text, None)])
    shared = wec.Shared(opts or wec.WecOptions(), {}, {}, aliases={EVENT: EVENT})
    payload, stats = wec.extract(dump.Partition(str(path)), shared)
    return payload


def test_a_paragraph_is_kept_once_for_all_its_mentions(tmp_path):
    n = 300
    text = " ".join(f"On day {i} [[{EVENT}|the quake number {i}]] struck." for i in range(n))
    payload = _extract(tmp_path, text)
    assert len(payload["mentions"]) == n
    (para,) = payload["paragraphs"]
    assert all(m["para"] == 0 and "tokens" not in m for m in payload["mentions"])
    tokens = para["tokens"]
    for i, m in enumerate(payload["mentions"]):
        assert " ".join(tokens[m["span"][0]:m["span"][1]]) == f"the quake number {i}" == m["tokens_str"]
    assert para["boilerplate"] is False and len(tokens) == para["n_tokens"]


def test_a_boilerplate_paragraph_is_not_tokenized(tmp_path):
    junk = "{" * 3000  # unclosed: text for the parser, 3,000 one-character tokens for spaCy (quadratic: ~2.5 s)
    text = f"The [[{EVENT}|great quake]] of the year was felt in every town of the land. {junk}"
    payload = _extract(tmp_path, text)
    (para,) = payload["paragraphs"]
    assert para["boilerplate"] is True and para["tokens"] is None and para["n_tokens"] >= 5
    off = wec.WecOptions(filters=tuple(f for f in wec.FILTERS if f != "boilerplate"))
    (para,) = _extract(tmp_path, text, off)["paragraphs"]
    assert para["boilerplate"] is True and para["tokens"] is not None and para["n_tokens"] == len(para["tokens"])


def test_filters_read_the_shared_paragraph(tmp_path):
    """The filters and the records see each mention's paragraph: the same counts and records as before the
    paragraph was shared."""
    text = (f"The [[{EVENT}|great quake]] hit. Then [[{EVENT}|1999]] and [[{EVENT}|the tremor]] followed; "
            f"the [[{EVENT}|aftershock]] came last of all in the night.\n\nShort [[{EVENT}|quake]].\n\n"
            f"Markup {{{{{{ [[{EVENT}|the big quake]] made it into the text of this paragraph anyway.")
    payload = _extract(tmp_path, text)
    opts = wec.WecOptions(min_cluster_size=1, filters=tuple(f for f in wec.FILTERS if f != "split_leakage"))
    events = {EVENT: (1, "earthquake")}
    splits, report = wec.apply_filters(payload["mentions"], payload["paragraphs"], opts, events, lambda a: "")
    assert report["removed"]["context"] == 1 and report["removed"]["boilerplate"] == 1
    assert report["removed"]["named_entity"] == 1 and sum(report["kept"].values()) == 3
    rows = [wec.to_record(m, payload["paragraphs"], events, {"earthquake": "EVENT_UNK"})
            for s in splits.values() for m in s]
    contexts = {p["id"]: p["tokens"] for p in payload["paragraphs"]}
    for r in rows:
        context = contexts[r["context_id"]]
        assert context[r["tokens_number"][0]:r["tokens_number"][-1] + 1] == r["tokens_str"].split()


def _written_bytes(tmp_path, n: int) -> int:
    """Bytes of the split and paragraph files for ``n`` kept links in one paragraph."""
    text = " ".join(f"On day {i} [[{EVENT}|the quake number {i}]] struck." for i in range(n))
    payload = _extract(tmp_path / f"d{n}", text)
    opts = wec.WecOptions(min_cluster_size=1, filters=("context", "boilerplate"))
    events = {EVENT: (1, "earthquake")}
    splits, report = wec.apply_filters(payload["mentions"], payload["paragraphs"], opts, events, lambda a: "")
    assert sum(report["kept"].values()) == n
    out = tmp_path / f"o{n}"
    out.mkdir()
    wec.write_splits(out, splits, payload["paragraphs"], events, {"earthquake": "EVENT_UNK"})
    return sum(f.stat().st_size for f in out.iterdir())


def test_the_output_is_linear_in_a_paragraphs_links(tmp_path):
    """Each paragraph is written once: 3x the links, about 3x the bytes (repeating the paragraph in every record,
    the release's layout, gives about 9x: 300 links wrote 6.2 MB, 900 links 55 MB, 8.9x)."""
    (tmp_path / "d300").mkdir(), (tmp_path / "d900").mkdir()
    small, big = _written_bytes(tmp_path, 300), _written_bytes(tmp_path, 900)
    assert 2.5 < big / small < 3.5, (small, big)
    print(f"300 links: {small:,} bytes; 900 links: {big:,} bytes ({big / small:.2f}x)")
    (contexts,) = [p for p in (tmp_path / "o300").iterdir() if p.name == "Event_gold_mention_contexts.json"]
    assert contexts.read_text().count('"day", "299"') == 1


def test_ner_labels_of_one_batched_pass_are_those_of_one_call_per_mention(tmp_path):
    """extract tags the distinct span texts in one ``nlp.pipe`` pass (900 links in a paragraph: 7.5 s -> 2 s); each
    mention gets the label that tagging its text alone gives (the rule: one entity, the whole span)."""
    ner = wec.ner_pipeline(None, "en")
    if ner is None:
        pytest.skip("no spaCy English NER model installed")
    anchors = ["Barack Obama", "Paris", "1999", "the great quake", "World War II", "January 5", "Paris",
               "the French Revolution", "Tokyo and Osaka", " Berlin ", "quake"]
    text = " ".join(f"In {i} there was [[{EVENT}|{a}]] again." for i, a in enumerate(anchors))
    mentions = _extract(tmp_path, text)["mentions"]
    assert [m["tokens_str"] for m in mentions] == [a.strip() for a in anchors]

    def alone(span: str) -> str:
        ents = ner(span).ents
        return ents[0].label_ if len(ents) == 1 and ents[0].text == span.strip() else ""
    expected = [alone(m["tokens_str"]) for m in mentions]
    assert [m["ner"] for m in mentions] == expected
    assert {"PERSON", "GPE", "DATE"} <= set(expected)   # the check is not vacuous
