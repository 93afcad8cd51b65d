"""Issue 32's "done when", from the distribution: the probing attack over real HTTP against a board served by the
installed wheel (``figbench[board]`` in a fresh venv, run in a folder outside the checkout), on a hidden
benchmark made and tokened with the installed maintainer commands. The attacker is the in-process test's
(``tests/ladder_attack.py``); here its submissions go through the board's public Gradio API, each token from its
own 127.x.y.z address per round.

``.ci/run`` points ``FIGBENCH_SMOKE_DIR`` at the wheel smoke's folder, whose ``space-venv`` is that fresh
``[board]`` install of this checkout's wheel; without it the test builds the wheel and installs it itself
(about 3 minutes). It is in the CI stage (``make test-ci``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from figbench_leaderboard.domain.release import accuracy_bound
from figbench_leaderboard.screenshots import serving

from figbench.tasks import get_task
from tests.conftest import ROOT, shared_data_dir
from tests.http_post import call
from tests.ladder_attack import boosting_attack, majority_rate, readme_bound

LABELS = ["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"]
N = 400
BENCH = ("metonymy", "probe_wheel", "harvest", "test")
HEAD = get_task("metonymy").headline
TOKENS = 20


def _board_python(tmp: Path) -> Path:
    """The python of a fresh venv holding this checkout's wheel with the ``[board]`` extra."""
    smoke = os.environ.get("FIGBENCH_SMOKE_DIR")
    if smoke and (Path(smoke) / "space-venv" / "bin" / "python").is_file():
        return Path(smoke) / "space-venv" / "bin" / "python"
    out = subprocess.run([sys.executable, "-m", "build", "--outdir", str(tmp / "dist"), str(ROOT)],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    [wheel] = (tmp / "dist").glob("figbench-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(tmp / "venv")], check=True, timeout=300)
    python = tmp / "venv" / "bin" / "python"
    out = subprocess.run([str(python), "-m", "pip", "install", "--quiet", f"{wheel}[board]"],
                         capture_output=True, text=True, timeout=1500)
    assert out.returncode == 0, out.stderr[-5000:]
    return python


def _run(python: Path, args: list[str], cwd: Path, env: dict) -> str:
    out = subprocess.run([str(python), "-m", "figbench.cli", *args], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, (args, out.stdout[-2000:], out.stderr[-3000:])
    return out.stdout


def _submission(preds: dict, name: str) -> str:
    task, dataset, config, split = BENCH
    return json.dumps({"format": "figbench-predictions/1", "task": task, "dataset": dataset, "config": config,
                       "split": split, "model": {"name": name, "type": "other"}, "predictions": preds})


def _submit_json(url: str, text: str, token: str, source: str) -> dict:
    status, out = call(url, "submit_json", [text, ""], [("X-Figbench-Token", token)], source=source)
    assert status == 200, out
    return json.loads(out)


def _released(url: str, sid: str, source: str, timeout_s: float = 120) -> dict:
    """The submission as the board's status API releases it, once scored."""
    deadline = time.monotonic() + timeout_s
    while True:
        status, out = call(url, "submission_status", [sid], source=source)
        assert status == 200, out
        sub = json.loads(out)["submission"]
        if sub["status"] in ("FINISHED", "FAILED") or time.monotonic() > deadline:
            return sub
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.ci_stage
def test_probing_a_board_served_from_the_wheel_recovers_no_more_than_the_readme_bound(tmp_path):
    budget, eta, bits = readme_bound()
    python = _board_python(tmp_path)
    work = tmp_path / "board"          # the maintainer's folder: outside the checkout
    work.mkdir()
    assert ROOT not in work.resolve().parents
    env = {**os.environ, "PYTHONPATH": "", "GRADIO_ANALYTICS_ENABLED": "False"}
    data = shared_data_dir()
    if data:
        env["FIGBENCH_DATA_DIR"] = str(data)   # the linkage audit reads public WiMCor
    # the installed package, not the checkout, and its release rule is the README's
    probe = ("import json, figbench, figbench_leaderboard as lb; "
             "from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy as P; p = P(); "
             "print(json.dumps([figbench.__file__, lb.__file__, p.daily_budget, p.ladder_eta, p.daily_quota]))")
    where = json.loads(subprocess.run([str(python), "-c", probe], cwd=work, env=env, capture_output=True, text=True,
                                      timeout=120, check=True).stdout)
    assert all(Path(f).resolve().is_relative_to(python.parent.parent.resolve()) for f in where[:2]), where
    assert where[2:4] == [budget, eta]
    quota = where[4]

    rng = np.random.default_rng(7)
    gold = {f"x{i:03d}": LABELS[int(rng.integers(len(LABELS)))] for i in range(N)}
    rows = [{"id": i, "text": f"Sentence {n} about place {n}.", "pmw": f"place{n}", "pmw_start": 0, "pmw_end": 5,
             "medium": lab, "coarse": "metonymic"} for n, (i, lab) in enumerate(gold.items())]
    (work / "split.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    task, dataset, config, split = BENCH
    _run(python, ["leaderboard", "hidden", "add", "--private", "private", "--task", task, "--dataset", dataset,
                  "--config", config, "--split", split, "--label", "Probe wheel (hidden)",
                  "--data-files", "split.jsonl", "--audit-corpora", "wimcor", "--inputs-out", "release"], work, env)
    assert "medium" not in (work / "release" / "inputs.jsonl").read_text()
    tokens = [_run(python, ["leaderboard", "tokens", "issue", "--store", "store", "--label", f"attacker {k}"],
                   work, env).split()[0] for k in range(TOKENS)]

    with serving(work / "store", args=["--private", str(work / "private")], env=env, cwd=work,
                 python=python) as srv:
        url = srv["url"]
        # (a) a self-made token from a fresh address is refused, in one line, and nothing is stored
        refused = _submit_json(url, _submission(dict.fromkeys(gold, "TEAM"), "self-made"),
                               "self-made-token-000000", "127.0.99.1")
        assert refused["ok"] is False and "\n" not in refused["error"], refused
        assert "unknown submitter token" in refused["error"], refused

        # (b) 20 issued tokens, each round from fresh addresses, for a whole day
        def submit(preds: dict, k: int, round_: int) -> float | None:
            source = f"127.0.{k + 1}.{round_ + 1}"
            reply = _submit_json(url, _submission(preds, f"atk-{k}-{round_}"), tokens[k], source)
            if not reply["ok"]:
                assert "over all submitters" in reply["error"], reply   # the budget, nothing else
                return None
            sub = _released(url, reply["submission"]["id"], source)
            assert sub["status"] == "FINISHED", sub
            assert set(sub["scores"]) == {HEAD} and not sub["confidence_intervals"] and not sub["mismatches"], sub
            return sub["scores"][HEAD]

        started = time.monotonic()
        attack = boosting_attack(list(gold), LABELS, TOKENS, quota, submit)
        late = _submit_json(url, _submission(dict.fromkeys(gold, "EVENT"), "late"), tokens[0], "127.0.98.1")
        seconds = time.monotonic() - started
    assert attack.sent == budget, attack.sent
    stored = json.loads(_run(python, ["leaderboard", "list", "--store", "store", "--json"], work, env))
    assert sorted(r["model_name"] for r in stored) == sorted(f"atk-{k}-{r}" for k in range(TOKENS)
                                                             for r in range(quota) if k + TOKENS * r < budget)
    assert {r["status"] for r in stored} == {"FINISHED"}
    assert late["ok"] is False and "over all submitters" in late["error"], late
    assert all(abs(v / eta - round(v / eta)) < 1e-9 for v in attack.released)
    accuracy, majority = attack.accuracy(gold), majority_rate(gold)
    bound = accuracy_bound(bits, N)
    print(f"\nover HTTP from the wheel: {attack.sent} submissions accepted in {seconds:.0f} s; recovered-label "
          f"accuracy {accuracy:.4f}, majority {majority:.4f}, README bound majority + {bound:.4f} = "
          f"{majority + bound:.4f}")
    assert accuracy <= majority + bound
    assert accuracy <= majority + 0.10, (accuracy, majority)
