"""``figbench generate`` against answers a real model gives (issue 35): word lists that differ from the span
the alignment finds are flagged (never a reason to clear a flag), an untouched trigger is flagged, an answer
too long for its sentence or in another script is a named failure, valid JSON with other keys is
``wrong_keys``, a dead endpoint stops the run after a few failures in a row with a non-zero exit, and a
folder without any usable mention gets no dataset card."""

from __future__ import annotations

import json

import pytest

from tests.llm_server import ScriptedLLM
from tests.test_generate import FIG3, generate_cmd, report, run_cli

TRIGGERS = [("charged", 5, 6), ("killing", 13, 14), ("party", 17, 18)]
MULTI = ("A Vancouver man has been ensnared in the web of the law with first-degree murder after extinguishing the "
         "candle of life at a conclave of festive hearts.")
SPANS = {"charged": "ensnared in the web of the law", "killing": "extinguishing the candle of life",
         "party": "conclave of festive hearts"}


def _tags(para: str, words: dict[str, str] | None):
    from figbench.generate.retag import retag, tokenize

    fig3, p = tokenize(FIG3), tokenize(para)
    tags = retag(fig3, TRIGGERS, p, words, style="multi")
    return {t.mention_id: (" ".join(p[t.start:t.end]) if t.start is not None else None, t.flags) for t in tags}


def test_a_word_list_entry_that_differs_from_the_aligned_span_is_flagged_and_clears_no_flag():
    """The flagging rule of the word-list variants: the released span as the list -> its spans, flagged where the
    alignment alone found another span; an entry elsewhere, or a dropped last token -> that entry's span, flagged
    ``word_differs``; a first word inside the aligned stretch names part of it -> the stretch; every flag of the
    run without a list stays."""
    blind = _tags(MULTI, None)
    same = _tags(MULTI, SPANS)
    assert {m: s for m, (s, _) in same.items()} == SPANS
    # flagged exactly where the alignment alone put the span elsewhere ("killing" and "party" share a stretch)
    assert {m: "word_differs" in f for m, (_, f) in same.items()} == {m: blind[m][0] != w for m, w in SPANS.items()}
    assert same["charged"] == (SPANS["charged"], [])
    first = _tags(MULTI, {m: w.split()[0] for m, w in SPANS.items()})
    assert first["charged"] == (SPANS["charged"], [])  # "ensnared" starts the aligned stretch: the stretch
    assert first["killing"][0] == "extinguishing" and {"word_differs", "word_elsewhere"} <= set(first["killing"][1])
    assert first["party"][0] == "conclave" and "word_differs" in first["party"][1]
    dropped = _tags(MULTI, {m: " ".join(w.split()[:-1]) for m, w in SPANS.items()})
    assert dropped["party"][0] == "conclave of festive" and "word_differs" in dropped["party"][1]
    for variant in (same, first, dropped):
        for m, (_, flags) in blind.items():
            assert set(flags) - {"missing"} <= set(variant[m][1]), (m, flags, variant[m])


def test_the_word_list_rule_on_hand_made_cases():
    """Lemma look-up, a fragment extended to its stretch, a match that answers the edge doubts, a single-word
    metaphor never extended."""
    from figbench.generate.retag import retag, tokenize

    # a base-form entry is found by lemmas and is exactly the aligned span: no flag
    base = _tags(MULTI, {"charged": "ensnare in the web of the law"})
    assert base["charged"] == (SPANS["charged"], [])
    tags = retag(tokenize(FIG3), TRIGGERS, tokenize(MULTI), {"charged": "ensnare in the web of the law"}, "multi")
    assert tags[0].how == "word_list_lemma_confirms"
    # one word or a phrase ending with a function word, strictly inside the stretch: the stretch from the entry on
    snuff = ("A Vancouver man has been charged with first-degree murder after a snuffing out of a life at an office "
             "party.")
    assert _tags(snuff, None)["killing"] == ("snuffing out of a life", [])
    for entry in ("snuffing", "snuffing out of"):
        assert _tags(snuff, {"killing": entry})["killing"] == ("snuffing out of a life", [])
    # a fragment after the stretch's start: the span differs from the aligned one, so it is flagged
    assert _tags(MULTI, {"charged": "web"})["charged"] == ("web of the law", ["word_differs"])
    # a phrase ending with a content word inside the stretch is taken as the model's span, flagged
    assert _tags(MULTI, {"charged": "web of the law"})["charged"] == ("web of the law", ["word_differs"])
    # an entry of two or more words that is exactly the aligned span answers the edge doubts; "shared" stays
    with_hearts = MULTI.replace("conclave of festive", "conclave with festive")
    assert _tags(with_hearts, None)["party"] == ("festive hearts", ["shared", "extra_words", "weak_boundary"])
    assert _tags(with_hearts, {"party": "festive hearts"})["party"] == ("festive hearts", ["shared"])
    # a one-word entry equal to the span may name only the head of the metaphor: its doubts stay
    gathering = ("A Vancouver man has been charged with first-degree murder after a snuffing out of the candle at a "
                 "gathering.")
    assert _tags(gathering, None)["party"] == ("gathering", ["extra_words", "weak_boundary"])
    assert _tags(gathering, {"party": "gathering"})["party"] == ("gathering", ["extra_words", "weak_boundary"])
    # one-word metaphors (style single): a one-word entry is complete, never extended to a longer stretch
    single = retag(tokenize(FIG3), TRIGGERS, tokenize(MULTI), {"charged": "ensnared"}, "single")
    assert (single[0].start, single[0].end) == (5, 6) and "word_differs" in single[0].flags


def test_an_untouched_trigger_and_a_rewritten_sentence_are_flagged():
    appended = _tags("A Vancouver man has been charged ensnared in the web of the law with first-degree murder "
                     "after a killing at an office party.", {"charged": SPANS["charged"]})
    assert "untouched" in appended["killing"][1] and "untouched" in appended["party"][1]
    assert appended["charged"][0] == SPANS["charged"]
    assert "untouched" in _tags("A Vancouver man has been charged ensnared in the web of the law with first-degree "
                                "murder after a killing at an office party.", None)["charged"][1]
    other = _tags("Police in the city said on Tuesday that the suspect was ensnared after a conclave of hearts.", None)
    assert all("rewritten" in f for _, f in other.values())
    assert all("rewritten" not in f and "untouched" not in f for _, f in _tags(MULTI, SPANS).values())


def test_answers_too_long_in_another_script_or_with_other_keys_are_named_failures():
    from figbench.generate.answers import AnswerError, check_answer, check_raw_length, parse_answer
    from figbench.generate.retag import tokenize

    tokens = tokenize(FIG3)

    def kind(raw: str) -> str:
        with pytest.raises(AnswerError) as e:
            check_raw_length(raw, FIG3, 3)
            check_answer(parse_answer(raw), raw, FIG3, tokens, 3, tokenize)
        return e.value.kind

    ok = json.dumps({"Metaphoric Sentence": MULTI, "Metaphoric Word List": list(SPANS.values())})
    check_answer(parse_answer(ok), ok, FIG3, tokens, 3, tokenize)
    assert kind(json.dumps({"Metaphoric Sentence": MULTI + " and so on" * 100_000})) == "too_long"
    assert kind(json.dumps({"Metaphoric Sentence": MULTI + " and so on" * 30})) == "too_long"  # parsed, then bounded
    assert kind(json.dumps({"Metaphoric Sentence": "Ванкуверский мужчина обвинён в убийстве после вечеринки."})) \
        == "wrong_script"
    assert kind(json.dumps({"sentence": MULTI, "metaphors": ["x"]})) == "wrong_keys"
    assert kind("I would use a storm.") == "not_json" and kind(" ") == "empty"


def test_misbehaving_model_answers_are_failures_or_flags_end_to_end(tmp_path):
    out = tmp_path / "bad"
    script = {"76ers": ["wrongkeys", "huge", "cyrillic"], "Cheeks": ["appended"]}
    with ScriptedLLM(script) as srv:
        r = run_cli(generate_cmd(out, srv.url, "validation", "--json-retries", "2"))
    assert r.returncode == 0, r.stderr  # one sentence is usable
    run = report(out)["run"]
    fail = run["failures"][0]
    assert fail["sentence"] == "2_1ecb#0" and fail["kind"] == "wrong_script"
    assert [r.split(":")[0] for r in fail["reasons"]] == ["wrong_keys", "too_long", "wrong_script"]
    assert run["failure_kinds"] == {"wrong_script": 1} and len(fail["last_answer"]) <= 300
    proposals = [json.loads(line) for line in (out / "generation" / "retag.jsonl").read_text().splitlines()]
    cheeks = next(p for p in proposals if p["status"] == "ok")
    assert "untouched" in cheeks["flags"]


def test_a_dead_endpoint_stops_early_exits_non_zero_counts_attempts_and_writes_no_card(tmp_path):
    import datasets

    out = tmp_path / "dead"
    with ScriptedLLM({"76ers": ["500"], "Cheeks": ["500"]}) as srv:
        r = run_cli(generate_cmd(out, srv.url, "validation", "--retries", "2", "--concurrency", "1",
                                 "--max-endpoint-failures", "1"))
        assert r.returncode == 1
        assert "stopped after 1 requests in a row failed at the endpoint" in r.stderr and "rerun" in r.stderr
        assert len(srv.requests) == 3  # one sentence, 1 + 2 retries; the other never asked
        port = srv.server.server_address[1]
    run = report(out)["run"]
    assert run["http_attempts"] == 3 and run["requests"] == 1 and run["ok"] == 0
    assert run["failure_kinds"] == {"endpoint": 1, "not_requested": 1}
    assert "answers requested 1 (3 HTTP attempts)" in r.stdout
    assert not (out / "README.md").exists() and not list((out / "data").glob("*.parquet"))
    with ScriptedLLM(port=port) as srv:  # the endpoint is back: the same command resumes and finishes
        r = run_cli(generate_cmd(out, srv.url, "validation", "--retries", "2", "--concurrency", "1",
                                 "--max-endpoint-failures", "1"))
    assert r.returncode == 0, r.stderr
    assert len(datasets.load_dataset(str(out), split="validation")) == 2 and (out / "README.md").is_file()


def test_nothing_usable_exits_non_zero_without_a_card(tmp_path):
    out = tmp_path / "prose"
    with ScriptedLLM({"76ers": ["prose"], "Cheeks": ["prose"]}) as srv:
        r = run_cli(generate_cmd(out, srv.url, "validation", "--json-retries", "0"))
    assert r.returncode == 1 and "nothing usable was generated" in r.stderr and "not_json 2" in r.stderr
    assert not (out / "README.md").exists() and (out / "generation" / "report.json").is_file()


def test_cache_only_requests_nothing_and_names_what_was_not_asked(tmp_path):
    out = tmp_path / "cached"
    with ScriptedLLM({"76ers": ["prose"]}) as srv:
        assert run_cli(generate_cmd(out, srv.url, "validation", "--json-retries", "0")).returncode == 0
        n = len(srv.requests)
        r = run_cli(generate_cmd(out, srv.url, "validation", "--json-retries", "1", "--cache-only"))
        assert len(srv.requests) == n  # nothing asked
    assert r.returncode == 0, r.stderr
    run = report(out)["run"]
    assert run["requests"] == 0 and run["cache_only"] and run["failure_kinds"] == {"not_requested": 1}
    assert "no cached answer (--cache-only)" in run["failures"][0]["reasons"][-1]
