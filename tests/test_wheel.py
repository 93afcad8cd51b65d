"""The distribution as a user gets it: wheel -> fresh venv outside the checkout -> Space folder -> smoke.

``.ci/run`` runs ``.ci/wheel_smoke.sh`` once and points ``FIGBENCH_SMOKE_DIR`` at its folder; without
it this test runs the script itself (a few minutes: it installs the wheel's dependencies). It is in the
CI stage (``make test-ci``, run by ``.ci/run`` after ``make test``), so ``make test`` never repeats the smoke.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, corpus_path


@pytest.mark.slow
@pytest.mark.ci_stage
def test_wheel_installs_and_space_serves_the_board(tmp_path):
    data = corpus_path("ecbplus", "ECB+").parent.parent
    done = os.environ.get("FIGBENCH_SMOKE_DIR")
    work = Path(done) if done else tmp_path / "smoke"
    if not done:
        env = {**os.environ, "FIGBENCH_DATA_DIR": str(data)}
        out = subprocess.run(["bash", str(ROOT / ".ci" / "wheel_smoke.sh"), str(work)], env=env,
                             capture_output=True, text=True, timeout=3000)
        assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-5000:])
    report = json.loads((work / "smoke_report.json").read_text())
    assert report["ok"] is True
    assert report["ecbplus_test_mentions"] == 1780
    assert 0.70 < report["submitted_conll_f1"] < 0.85
    assert report["space_start_s"] < 180
    # the Space folder: metadata, app and a requirements file installing figbench from the copied wheel
    space = work / "space"
    reqs = (space / "requirements.txt").read_text()
    wheel = next(space.glob("figbench-*.whl"))
    assert f"./{wheel.name}" in reqs
    card = (space / "README.md").read_text()
    assert "sdk: gradio" in card and "app_file: app.py" in card and "hf_oauth: true" in card
