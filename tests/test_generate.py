"""``figbench generate``: the ECB+META metaphoric-paraphrasing pipeline (issue 24).

End to end against a scripted OpenAI-compatible server on 127.0.0.1 (:mod:`tests.llm_server`: real HTTP, 429s,
a timeout, malformed and prose answers) and a tiny randomly initialised GPT-2 for the local path, on the
ECB+ mini fixture: paraphrased, cached, resumed after kill -9, re-tagged, built as a Hub-layout folder,
loaded with plain ``datasets.load_dataset``, scored by the lemma baseline. The review app is tested in the
browser by ``test_generate_browser.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.figbench_run import run_figbench
from tests.llm_server import ScriptedLLM

ECB_MINI = Path(__file__).parent / "fixtures" / "ecbplus" / "mini"
FIGBENCH = [sys.executable, "-m", "figbench.cli"]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
       "OMP_NUM_THREADS": "1"}
FIG3 = "A Vancouver man has been charged with first-degree murder after a killing at an office party."


def generate_cmd(out: Path, url: str | None, split: str = "train", *extra: str, model: str = "scripted") -> list[str]:
    cmd = [*FIGBENCH, "generate", "metaphors", "--dataset", "ecbplus", "--config", "events", "--split", split,
           "--data-dir", str(ECB_MINI), "--option", "strict_release=False", "--style", "multi",
           "--llm-model", model, "--out", str(out), "--no-progress"]
    if url:
        cmd += ["--llm-endpoint", url, "--timeout", "1", "--backoff", "0.05"]
    return cmd + list(extra)


def run_cli(cmd: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    """A ``[*FIGBENCH, ...]`` command run in this process (:mod:`tests.figbench_run`: the same ``main``, without
    a fresh interpreter's imports); any other command as a subprocess. The kill -9 test below spawns its run."""
    if cmd[:len(FIGBENCH)] == FIGBENCH:
        return run_figbench(cmd[len(FIGBENCH):])
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=timeout)


def report(out: Path) -> dict:
    return json.loads((out / "generation" / "report.json").read_text())


# --------------------------------------------------------------------------------------------------------
# parts


def test_prompts_are_fig2_with_only_the_placeholders_filled():
    from figbench.generate.prompts import PROMPTS, render

    single = render("single", "A man was charged .", ["charged"])
    multi = render("multi", "A man was charged .", ["charged"])
    assert single.startswith("You are a metaphor expert. Your task is to transform specific words")
    assert "These metaphors can only be single-word replacements." in single
    assert "Create 5 distinct multi-word metaphors for each word in the list." in multi
    assert '"""A man was charged ."""' in single and '"""["charged"]"""' in single
    assert 'The "Metaphoric Sentence" (the sentence with metaphors incorporated).' in multi
    assert single.replace("single-word", "multi-word") == multi
    assert all("{sentence}" in p and "{trigger_list}" in p for p in PROMPTS.values())
    with pytest.raises(ValueError, match="--style"):
        render("triple", "x", [])


def test_answers_are_repaired_or_rejected():
    from figbench.generate.answers import AnswerError, parse_answer

    ok = parse_answer('{"Original Sentence": "a", "Original Word List": ["x"], "Metaphoric Word List": ["y"], '
                      '"Metaphoric Sentence": "b"}')
    assert ok["metaphoric_sentence"] == "b" and ok["metaphoric_words"] == ["y"] and not ok["repaired"]
    fenced = parse_answer('Sure!\n```json\n{"original word list": ["x"], "metaphoric_word_list": ["y"],\n'
                          '"Metaphoric Sentence": "b",}\n```')
    assert fenced["repaired"] and fenced["metaphoric_words"] == ["y"]
    single_quoted = parse_answer("{'Metaphoric Sentence': 'b', 'Metaphoric Word List': {'x': 'y'}}")
    assert single_quoted["metaphoric_words"] == ["y"]
    for bad, msg in (("I would use a storm.", "no JSON object"), ("", "empty"),
                     ('{"Original Sentence": "a"}', "Metaphoric Sentence")):
        with pytest.raises(AnswerError, match=msg):
            parse_answer(bad)


def test_retag_fig3_single_and_multi():
    from figbench.generate.retag import retag, tokenize

    fig3 = tokenize(FIG3)
    triggers = [("charged", 5, 6), ("killing", 13, 14), ("party", 17, 18)]
    assert [fig3[s] for _, s, _ in triggers] == ["charged", "killing", "party"]
    single = tokenize("A Vancouver man has been implicated with first-degree murder after a slaying at an office "
                      "soirée.")
    tags = retag(fig3, triggers, single, style="single")
    assert [" ".join(single[t.start:t.end]) for t in tags] == ["implicated", "slaying", "soirée"]
    assert not any(t.flagged for t in tags)
    multi = tokenize("A Vancouver man has been ensnared in the web of the law with first-degree murder after "
                     "extinguishing the candle of life at a conclave of festive hearts.")
    words = {"charged": "ensnared in the web of the law", "killing": "extinguishing the candle of life",
             "party": "conclave of festive hearts"}
    tags = retag(fig3, triggers, multi, words, style="multi")
    assert [" ".join(multi[t.start:t.end]) for t in tags] == list(words.values())
    blind = retag(fig3, triggers, multi, style="multi")  # no word list: "a killing at an office party"
    assert " ".join(multi[blind[0].start:blind[0].end]) == "ensnared in the web of the law"
    assert blind[2].flagged or " ".join(multi[blind[2].start:blind[2].end]) == "conclave of festive hearts"
    gone = retag(fig3, triggers, tokenize("A Vancouver man has been with first-degree murder after a at an office ."))
    assert gone[0].start is None and "missing" in gone[0].flags


def test_disk_cache_keys_torn_tail_and_bad_lines(tmp_path):
    from figbench.llm import DiskCache

    k = DiskCache.key("openai-chat", "m", "p", {"temperature": 0.7}, 0)
    assert k != DiskCache.key("openai-chat", "m", "p", {"temperature": 0.7}, 1)
    assert k != DiskCache.key("openai-chat", "m", "p", {"temperature": 0.0}, 0)
    assert k != DiskCache.key("transformers", "m", "p", {"temperature": 0.7}, 0)
    path = tmp_path / "c.jsonl"
    c = DiskCache(path)
    c.put(k, {"text": "ü"})
    with path.open("a") as f:
        f.write('{"key": "torn", "te')  # a run killed mid-write
    c2 = DiskCache(path)
    assert c2.get(k)["text"] == "ü" and c2.torn_lines == 1
    c2.put("k2", {"text": "x"})
    assert [json.loads(line)["key"] for line in path.read_text().splitlines()] == [k, "k2"]
    path.write_text('not json\n{"key": "a"}\n')
    with pytest.raises(ValueError, match="line 1"):
        DiskCache(path)


def test_endpoint_client_retries_and_clear_errors():
    import socket

    from figbench.llm import ChatEndpoint, LLMEndpointError, LLMRetriesExhausted

    prompt = 'x """A b ."""\n"""["b"]"""'
    with ScriptedLLM({"A b": ["429", "500", "timeout", "json"]}, delay=1.5) as srv:
        got = ChatEndpoint(srv.url, "m", timeout=0.5, retries=4, backoff=0.01).complete(prompt, temperature=0.7)
        assert got.attempts == 4 and json.loads(got.text)["Metaphoric Word List"] == ["danced with fate"]
        assert got.prompt_tokens > 0 and got.completion_tokens > 0
        assert srv.requests[0]["temperature"] == 0.7 and srv.requests[0]["model"] == "m"
    with ScriptedLLM({"A b": ["429"]}) as srv:
        t0 = time.perf_counter()
        with pytest.raises(LLMRetriesExhausted, match="gave up after 3 attempts; last: HTTP 429"):
            ChatEndpoint(srv.url, "m", retries=2, backoff=0.01).complete(prompt)
        assert time.perf_counter() - t0 < 5
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LLMEndpointError, match=f"127.0.0.1:{port}.*refused"):
        ChatEndpoint(f"http://127.0.0.1:{port}/v1", "m").complete(prompt)
    with pytest.raises(LLMEndpointError, match="http"):
        ChatEndpoint("127.0.0.1:8000", "m")


# --------------------------------------------------------------------------------------------------------
# the command end to end


def test_generate_end_to_end_with_retries_repairs_and_a_rerun_for_free(tmp_path):
    import datasets

    out = tmp_path / "meta train"  # a space in the path
    script = {"Tara Reid": ["429", "timeout", "fenced"], "Actress": ["prose", "json"]}
    with ScriptedLLM(script, delay=2.0) as srv:
        r = run_cli(generate_cmd(out, srv.url, "train", "--price-input", "30", "--price-output", "60"))
        assert r.returncode == 0, r.stderr
        assert len(srv.requests) == 5  # 429 + timeout + fenced answer; prose + answer
        rep = report(out)["run"]
        assert rep["sentences"] == 2 and rep["failed"] == 0 and rep["repaired"] == 1
        assert rep["requests"] == 3 and rep["http_attempts"] == 5 and rep["samples"] == 3
        assert rep["tokens"]["prompt"] > 0 and rep["cost_usd"] > 0 and rep["paper_cost_usd"] == 18.0
        assert "cost $" in r.stdout and "about $18" in r.stdout
        again = run_cli(generate_cmd(out, srv.url, "train"))
        assert again.returncode == 0 and len(srv.requests) == 5  # everything from the cache
        assert report(out)["run"]["cache_hits"] == 3 and report(out)["run"]["requests"] == 0
    ds = datasets.load_dataset(str(out))
    assert list(ds) == ["train"]
    rows = {r["mention_id"]: r for r in ds["train"]}
    assert set(rows) == {"1_1ecb_2", "1_1ecb_6", "1_1ecbplus_2"}
    assert rows["1_1ecb_2"]["cluster_id"] == rows["1_1ecbplus_2"]["cluster_id"] == "ACT001"
    assert rows["1_1ecb_2"]["text"] == "stormed the gates of" and rows["1_1ecb_2"]["original_text"] == "checked into"
    assert rows["1_1ecbplus_2"]["text"] == "sails into"
    for r in rows.values():
        assert " ".join(r["sentence"][r["token_start"]:r["token_end"]]) == r["text"]
        assert r["context"][r["context_start"]:r["context_end"]] == r["sentence"][r["token_start"]:r["token_end"]]
    card = (out / "README.md").read_text()
    assert "config_name: meta_m" in card and "temperature 0.7" in card and "mentions: 3 of 3" in card
    src = json.loads((out / "generation" / "settings.json").read_text())
    assert src["model"] == "scripted" and src["style"] == "multi"


def test_lemma_baseline_scores_a_generated_corpus(tmp_path):
    import pyarrow.parquet as pq
    from figbench_baselines.cdec.pipeline import default_args, run

    import datasets
    from figbench.results import validate_result

    out = tmp_path / "lemma_run"
    with ScriptedLLM() as srv:
        assert run_cli(generate_cmd(out, srv.url, "validation")).returncode == 0
    from figbench.generate.build import build, save_correction

    save_correction(out, "2_1ecb_2", action="accept", qc="valid")  # what the review app's Accept writes
    assert build(out)["qc"] == {"judged": 1, "valid": 1, "share_valid": 1.0}
    rows = datasets.load_dataset(str(out), split="validation").to_list()
    args = default_args(dataset="ecbmeta", config="meta_m", split="validation", method="lh", n_resamples=0,
                        within="topic")
    args.train_rows = pq.read_table(out / "generation" / "source.parquet").to_pylist()
    rec = run(args, rows=rows)
    validate_result(rec)
    # "fired" -> "cast out" in both documents: the same head lemma links the two mentions of cluster ACT200
    assert rec["counts"]["mentions"] == 2 and rec["counts"]["candidate_pairs"] == 1
    assert rec["scores"]["conll_f1"] == pytest.approx(1.0)


def test_killed_run_resumes_from_the_cache(tmp_path):
    out = tmp_path / "killed_run"
    with ScriptedLLM(slow=1.5) as srv:
        cmd = generate_cmd(out, srv.url, "validation", "--concurrency", "1", "--timeout", "30")
        proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cache = out / "generation" / "cache.jsonl"
        deadline = time.time() + 120
        while not (cache.is_file() and cache.read_text().count("\n") >= 1):
            assert time.time() < deadline and proc.poll() is None, "the run ended before its first answer"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert not (out / "data").exists()  # killed before the build
        assert srv.max_inflight == 1  # --concurrency 1
        while srv.inflight:   # the killed run's open request is still being answered (slow server)
            assert time.time() < deadline, "the server never finished the killed run's request"
            time.sleep(0.05)
        srv.max_inflight = 0
        first = [b["messages"][0]["content"] for b in srv.requests]
        r = run_cli(generate_cmd(out, srv.url, "validation", "--concurrency", "1", "--timeout", "30"))
        assert r.returncode == 0, r.stderr
        prompts = [b["messages"][0]["content"] for b in srv.requests]
        cached_prompt = json.loads(cache.read_text().splitlines()[0])
        assert len(set(prompts)) == 2  # two sentences
        assert report(out)["run"]["cache_hits"] == 1 and report(out)["run"]["requests"] == 1
        # the rerun asked only for the sentence not cached before the kill
        new = prompts[len(first):]
        cached_sentence = {"2_1ecb#0": "The 76ers fired", "2_2ecb#0": "Cheeks was fired"}[cached_prompt["unit"]]
        assert len(new) == 1 and cached_sentence not in new[0]
        assert srv.max_inflight == 1  # the rerun too


def test_concurrency_is_bounded(tmp_path):
    with ScriptedLLM(slow=1.0) as srv:
        r = run_cli(generate_cmd(tmp_path / "conc_run", srv.url, "validation", "--concurrency", "2",
                                 "--timeout", "30"))
        assert r.returncode == 0, r.stderr
        assert srv.max_inflight == 2 and len(srv.requests) == 2


def test_prose_answers_are_counted_and_listed_never_dropped(tmp_path):
    import datasets

    out = tmp_path / "prose_run"
    with ScriptedLLM({"76ers": ["prose"]}) as srv:
        r = run_cli(generate_cmd(out, srv.url, "validation", "--json-retries", "2"))
    assert r.returncode == 0, r.stderr
    rep = report(out)
    assert rep["run"]["failed"] == 1 and rep["run"]["samples"] == 4  # 3 tries for the failing sentence
    fail = rep["run"]["failures"][0]
    assert fail["sentence"] == "2_1ecb#0" and fail["kind"] == "not_json" and len(fail["reasons"]) == 3
    assert "no JSON object" in fail["reasons"][0] and "storm" in fail["last_answer"]
    assert rep["build"]["dropped"]["failed_sentence"] == ["2_1ecb_2"]
    assert "failed 2_1ecb#0: not_json" in r.stderr
    assert [x["mention_id"] for x in datasets.load_dataset(str(out), split="validation")] == ["2_2ecb_2"]
    assert "1 failed after retries" in (out / "README.md").read_text()


def test_clear_errors(tmp_path):
    import socket

    r = run_cli([*FIGBENCH, "generate", "metaphors", "--dataset", "ecbplus", "--config", "documents", "--split",
                 "train", "--data-dir", str(ECB_MINI), "--option", "strict_release=False", "--style", "single",
                 "--llm-model", "m", "--llm-endpoint", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "d")])
    assert r.returncode == 1 and "has no trigger spans" in r.stderr and "token_start" in r.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = run_cli(generate_cmd(tmp_path / "e", f"http://127.0.0.1:{port}/v1"))
    assert r.returncode == 1 and "connection refused" in r.stderr and f"127.0.0.1:{port}" in r.stderr
    assert "Traceback" not in r.stderr
    with ScriptedLLM() as srv:
        assert run_cli(generate_cmd(tmp_path / "f", srv.url)).returncode == 0
        r = run_cli(generate_cmd(tmp_path / "f", srv.url, "train", "--style", "single"))
    assert r.returncode == 1 and "other settings (style" in r.stderr
    r = run_cli([*FIGBENCH, "generate", "build", str(tmp_path / "nothing")])
    assert r.returncode == 1 and "figbench generate metaphors" in r.stderr


@pytest.fixture(scope="module")
def tiny_gpt(tmp_path_factory):
    """A 2-layer GPT-2 with random weights and the offline MiniLM tokenizer, saved to a folder."""
    import torch
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    path = tmp_path_factory.mktemp("tiny_gpt")
    tok = AutoTokenizer.from_pretrained(default_model_path())
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=len(tok), n_positions=1024, n_embd=32, n_layer=2, n_head=2,
                     bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id)
    GPT2LMHeadModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


def test_local_transformers_model_path(tmp_path, tiny_gpt):
    out = tmp_path / "local"
    cmd = generate_cmd(out, None, "validation", "--max-tokens", "12", "--json-retries", "1", model=tiny_gpt)
    r = run_cli(cmd)
    assert r.returncode == 1 and "nothing usable was generated" in r.stderr, r.stderr
    rep = report(out)
    # a random model answers noise, never JSON: every sentence is a listed failure, nothing is dropped silently
    assert rep["run"]["sentences"] == 2 and rep["run"]["failed"] == 2 and rep["run"]["requests"] == 4
    assert rep["run"]["tokens"]["completion"] > 0
    assert sorted(rep["build"]["dropped"]["failed_sentence"]) == ["2_1ecb_2", "2_2ecb_2"]
    settings = json.loads((out / "generation" / "settings.json").read_text())
    assert settings["backend"] == "transformers" and settings["model"] == Path(tiny_gpt).name
    cached = [json.loads(line) for line in (out / "generation" / "cache.jsonl").read_text().splitlines()]
    r2 = run_cli(cmd)
    assert r2.returncode == 1 and report(out)["run"]["requests"] == 0 and report(out)["run"]["cache_hits"] == 4
    assert [c["text"] for c in cached] == [json.loads(line)["text"] for line in
                                           (out / "generation" / "cache.jsonl").read_text().splitlines()]


def test_wec_eng_context_relative_offsets_and_a_mention_across_sentences(tmp_path):
    """WEC-Eng rows give context-relative offsets: the sentence is found around the mention; a mention that
    crosses a sentence break is reported (no span on one sentence), not dropped silently."""
    import pyarrow.parquet as pq

    import datasets
    from figbench.generate.source import sentence_span, units_of

    wec = Path(__file__).parent / "fixtures" / "wec_eng" / "original"
    out = tmp_path / "wec_run"
    with ScriptedLLM() as srv:
        r = run_cli([*FIGBENCH, "generate", "metaphors", "--dataset", "wec_eng", "--split", "validation",
                     "--data-dir", str(wec), "--style", "single", "--llm-endpoint", srv.url, "--llm-model", "s",
                     "--out", str(out), "--no-progress"])
    assert r.returncode == 0, r.stderr
    rows = datasets.load_dataset(str(out), split="validation").to_list()
    source = {s["mention_id"]: s for s in pq.read_table(out / "generation" / "source.parquet").to_pylist()}
    assert len(rows) == len(source) == 4
    for row in rows:
        assert row["cluster_id"] == source[row["mention_id"]]["cluster_id"]
        assert row["context"][row["context_start"]:row["context_end"]] == \
            row["sentence"][row["token_start"]:row["token_end"]] == row["text"].split()
        assert row["original_text"] == source[row["mention_id"]]["text"]
    one = dict(next(iter(source.values())))
    s, e, off = sentence_span(one)
    assert one["sentence"][s:e] == one["context"][one["context_start"]:one["context_end"]]
    cut = {**one, "mention_id": "across", "sentence": one["sentence"][: s + 1]}  # the sentence ends inside it
    if e - s == 1:
        cut["sentence"] = one["sentence"][:s]
    units, skipped = units_of([one, cut], "wec")
    assert skipped == ["across"] and [m for u in units for m, *_ in u.triggers] == [one["mention_id"]]


def test_corrections_file_errors_name_the_file_and_mention(tmp_path):
    from figbench.generate.build import load_corrections, save_correction

    out = tmp_path / "corr"
    assert load_corrections(out) == {}
    save_correction(out, "m:1 ü", action="move", start=1, end=3)
    save_correction(out, "m:1 ü", qc="invalid")  # a later judgement keeps the earlier decision
    assert load_corrections(out) == {"m:1 ü": {"action": "move", "start": 1, "end": 3, "qc": "invalid"}}
    with pytest.raises(ValueError, match="corrections.json: mention 'x': a moved span needs integer start < end"):
        save_correction(out, "x", action="move", start=3, end=3)
    assert "x" not in load_corrections(out)  # the refused decision never reached the file
    path = out / "generation" / "corrections.json"
    path.write_text(json.dumps({"mentions": {"y": {"action": "delete"}}}))
    with pytest.raises(ValueError, match="corrections.json: mention 'y': action must be one of"):
        load_corrections(out)
    path.write_text("{")
    with pytest.raises(ValueError, match="corrections.json: corrections is not valid JSON"):
        load_corrections(out)
    r = run_cli([*FIGBENCH, "generate", "review", str(tmp_path / "nothing")])
    assert r.returncode == 1 and "no re-tagger proposals" in r.stderr


def test_local_model_batches_and_json_prefix(tiny_gpt):
    from figbench.llm import JSON_PREFIX, CausalLM

    lm = CausalLM(tiny_gpt, label="tiny")
    one, two = lm.complete_many(["A man was charged .", "Cheeks was fired by the 76ers on Saturday ."],
                                max_tokens=4, seed=1, prefix=JSON_PREFIX)
    assert lm.name == "tiny" and not lm.chat  # the MiniLM tokenizer has no chat template: the prompt as it is
    assert one.text.startswith(JSON_PREFIX) and two.text.startswith(JSON_PREFIX)
    assert 1 <= one.completion_tokens <= 4 and one.prompt_tokens < two.prompt_tokens  # padding is not counted
    alone = lm.complete("A man was charged .", max_tokens=4, seed=1, json_mode=True)
    assert alone.text.startswith(JSON_PREFIX) and alone.prompt_tokens == one.prompt_tokens


def test_prefill_inputs_and_the_json_stop(tiny_gpt):
    """--prefill inputs: figbench writes Fig. 2's first two keys (filled with the prompt's own inputs) and opens the
    metaphoric word list; a row stops once its JSON closes to the asked depth (brackets in strings do not count)."""
    from figbench.generate.prompts import ANSWER_KEYS, prefill
    from figbench.generate.run import Settings, _complete_batch
    from figbench.generate.source import Unit
    from figbench.llm import CausalLM, _json_stop, json_close

    pre = prefill("inputs", 'He said "no" .', ["said"])
    done = json.loads(pre + '"a [bracket] word"], "' + ANSWER_KEYS[3] + '": "x"}')
    assert list(done) == list(ANSWER_KEYS) and done[ANSWER_KEYS[0]] == 'He said "no" .'
    assert json_close(pre, len(pre), 1) is None and json_close(pre + '"b]"', len(pre), 1) is None
    assert json_close(pre + '"b"]', len(pre), 1) == len(pre) + 4
    assert json_close(pre + '"b"]}', len(pre), 0) == len(pre) + 5
    with pytest.raises(ValueError, match="--prefill must be one of none, key, inputs"):
        prefill("all", "s", [])
    lm = CausalLM(tiny_gpt, label="tiny")
    ids = lm.tokenizer(['{ "a" : [ "}" ] }', '{ "a" : [ "}"'], return_tensors="pt", padding=True,
                       add_special_tokens=False)["input_ids"]
    assert _json_stop(lm.tokenizer, 0, ["", ""], lambda t, i: json_close(t, i, 0))(ids, None).tolist()[0] is True
    assert _json_stop(lm.tokenizer, 0, [""], lambda t, i: json_close(t, i, 1))(ids[1:], None).tolist() == [False]
    unit = Unit("k", "d", 0, ["A", "man", "was", "charged", "."], [("m1", 3, 4, "charged")])
    s = Settings("multi", max_tokens=6, prefill="inputs")
    (got,) = _complete_batch(lm, s, [(unit, "A man was charged .", "0" * 64)])
    assert got.text.startswith(s.prefix(unit)) and 1 <= got.completion_tokens <= 12


class _Scripted:
    """A local model's two --prefill inputs steps, scripted: the word list it writes, then its sentence and
    what it keeps writing after the sentence's closing quote (as SmolLM2-135M did)."""

    backend, name = "transformers", "scripted"

    def __init__(self, steps: list[str]):
        self.steps, self.calls = list(steps), []

    def complete_many(self, prompts, *, prefix, **kw):
        from figbench.llm import Completion

        self.calls.append(kw)
        text = self.steps.pop(0)
        return [Completion(pre + text, 10, 5) for pre in prefix]


def test_prefill_inputs_stops_at_the_sentences_closing_quote(tiny_gpt):
    """The second step stops where the model's "Metaphoric Sentence" string closes (an escaped quote does not
    close it) and figbench closes the object, said in the answer; the stop is part of the cache key."""
    from figbench.generate.answers import parse_answer
    from figbench.generate.prompts import ANSWER_KEYS
    from figbench.generate.run import Settings, _complete_batch, _record
    from figbench.generate.source import Unit
    from figbench.llm import CausalLM, _json_stop, string_close

    assert string_close('"ab', 1) is None and string_close('"a\\"b', 1) is None
    assert string_close('"a\\"b" x', 1) == 6 and string_close('"a\\\\" x', 1) == 5
    lm = CausalLM(tiny_gpt, label="tiny")
    ids = lm.tokenizer(['a " b', 'a b'], return_tensors="pt", padding=True, add_special_tokens=False)["input_ids"]
    assert _json_stop(lm.tokenizer, 0, ['"', '"'], string_close)(ids, None).tolist() == [True, False]

    unit = Unit("k", "d", 0, ["A", "man", "was", "charged", "."], [("m1", 3, 4, "charged")])
    s = Settings("multi", max_tokens=60, prefill="inputs")
    rambling = 'A man was \\"hammered\\" ." , "Metaphoric Sentence": "A man was hammered'
    client = _Scripted(['"hammered"], "Metaphoric', rambling])
    (got,) = _complete_batch(client, s, [(unit, "prompt", "0" * 64)])
    assert client.calls[1].get("stop_at_string_close") is True and got.completion_tokens == 10
    assert got.appended == "}" and got.text.endswith('\\"hammered\\" ."}')
    answer = json.loads(got.text)
    assert list(answer) == list(ANSWER_KEYS) and answer[ANSWER_KEYS[3]] == 'A man was "hammered" .'
    assert parse_answer(got.text)["metaphoric_sentence"] == 'A man was "hammered" .'
    assert _record(got, unit, 0)["figbench_appended"] == "}"
    # a sentence never closed is kept as the model wrote it: not JSON, nothing appended
    (open_,) = _complete_batch(_Scripted(['"hammered"]', "A man was hammered"]), s, [(unit, "p", "0" * 64)])
    assert open_.appended == "" and not open_.text.endswith("}") and "figbench_appended" not in _record(open_, unit, 0)
    assert s.params(unit)["sentence_stop"] == "string_close"
    assert "sentence_stop" not in Settings("multi", prefill="key").params(unit)
