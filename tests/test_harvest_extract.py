"""Issue 31: the WEC extract stage's work is linear in a paragraph's links (the paragraph is kept once, its
checks run once) and a paragraph the boilerplate filter drops is never tokenized."""

from __future__ import annotations

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
    for r in rows:
        assert r["mention_context"][r["tokens_number"][0]:r["tokens_number"][-1] + 1] == r["tokens_str"].split()
