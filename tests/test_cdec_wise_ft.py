"""WiSE-FT for the bi-encoder (``baselines/cdec/models/wise_ft.py``) and the frozen encoder on unit vectors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from figbench_baselines.cdec.models import wise_ft
from figbench_baselines.cdec.pipeline import run
from figbench_baselines.cdec.training import train_only

from figbench.results import validate_result
from tests.cdec_args import cdec_args as _args


def test_interpolate_is_the_weighted_mean_of_every_float_tensor():
    gen = torch.Generator().manual_seed(3)
    t0 = {"w": torch.randn(4, 3, generator=gen), "b": torch.randn(3, generator=gen), "ids": torch.arange(5)}
    t1 = {"w": torch.randn(4, 3, generator=gen), "b": torch.randn(3, generator=gen), "ids": torch.arange(5) * 2}
    for alpha in (0.0, 0.3, 1.0):
        out = wise_ft.interpolate(t0, t1, alpha)
        for name in ("w", "b"):  # against NumPy, not torch.lerp
            want = (1 - alpha) * t0[name].numpy().astype(np.float64) + alpha * t1[name].numpy().astype(np.float64)
            assert np.allclose(out[name].numpy(), want, atol=1e-6)
        assert torch.equal(out["ids"], t1["ids"])  # integer buffers are the trained model's, never averaged
    with pytest.raises(ValueError, match="differ in their parameters"):
        wise_ft.interpolate(t0, {"w": t1["w"], "b": t1["b"]}, 0.5)
    with pytest.raises(ValueError, match="parameter w: shape"):
        wise_ft.interpolate(t0, {**t1, "w": torch.zeros(3, 4)}, 0.5)


def test_choose_alpha_maximises_the_worst_gain_never_picks_the_frozen_encoder():
    history = [{"alpha": 0.0, "worst_gain": 0.0}, {"alpha": 0.2, "worst_gain": -0.01},
               {"alpha": 0.6, "worst_gain": 0.004}, {"alpha": 0.8, "worst_gain": 0.004},
               {"alpha": 1.0, "worst_gain": -0.03}]
    assert wise_ft.choose_alpha(history)["alpha"] == 0.6  # a tie keeps the smaller alpha
    # every trained mix worse than the frozen encoder somewhere: the least bad one, not alpha 0
    assert wise_ft.choose_alpha([history[0], history[1], history[4]])["alpha"] == 0.2
    with pytest.raises(ValueError, match="no interpolation weight"):
        wise_ft.choose_alpha(history[:1])


def test_wise_ft_saves_the_chosen_mix_and_its_recall_is_what_selection_measured(rows, train_rows, tiny_bert,
                                                                                 tmp_path):
    from figbench_baselines.cdec.models.biencoder import load_biencoder
    from figbench_baselines.cdec.steps.artifacts import load_component
    from figbench_baselines.cdec.steps.encoding import seed_everything

    trained, mixed = tmp_path / "be", tmp_path / "wise"
    train_only(_args(train_rows, method="knn_oracle", model=tiny_bert, k=2, batch_size=2, biencoder_epochs=1,
                     biencoder_normalize=True, margin=0.3, save_model=str(trained), seed=5))
    args = _args(train_rows, method="knn_oracle", biencoder=str(trained), biencoder_wise_ft=True,
                 save_model=str(mixed), knn_within="topic")
    args.select_sets = [("held-out", rows)]
    info = train_only(args)["biencoder"]
    sel = info["wise_ft"]
    assert [h["alpha"] for h in sel["history"]] == [0.0, *wise_ft.ALPHAS]
    assert sel["alpha"] == wise_ft.choose_alpha(sel["history"])["alpha"]
    assert info["normalize"] is True and info["seed"] == 5

    state0, _ = load_component(trained, "biencoder")
    state, saved = load_component(mixed, "biencoder")
    assert saved["wise_ft"]["trained_weights_sha256"] == json.loads((trained / "train_info.json").read_text())[
        "weights_sha256"]
    seed_everything(5)  # the untrained encoder, rebuilt here as the training built it
    _, frozen = load_biencoder(tiny_bert)
    want = {k: (1 - sel["alpha"]) * v + sel["alpha"] * state0[k] for k, v in frozen.state_dict().items()
            if v.is_floating_point()}
    assert all(torch.allclose(state[k], w, atol=1e-6) for k, w in want.items())

    # the saved mix, evaluated like any saved bi-encoder, scores what the selection recorded for it
    chosen = next(h for h in sel["history"] if h["alpha"] == sel["alpha"])
    for k in wise_ft.KS:
        rec = run(_args(train_rows, method="knn_oracle", biencoder=str(mixed), k=k, knn_within="topic",
                        no_cache=True), rows=rows)
        validate_result(rec)
        assert rec["scores"]["bcub_recall"] == pytest.approx(chosen["recall"][f"held-out@k{k}"], abs=1e-12)
        assert rec["provenance"]["training"]["biencoder"]["wise_ft"]["alpha"] == sel["alpha"]

    again = _args(train_rows, method="knn_oracle", biencoder=str(mixed), biencoder_wise_ft=True,
                  save_model=str(tmp_path / "twice"))
    again.select_sets = [("held-out", rows)]
    with pytest.raises(ValueError, match="already interpolated"):
        train_only(again)


@pytest.mark.parametrize("missing", ["biencoder", "select", "save_model"])
def test_wise_ft_names_what_it_needs(train_rows, tmp_path, missing):
    kw = {"biencoder": str(tmp_path / "be"), "biencoder_select": "validation", "save_model": str(tmp_path / "w")}
    kw[{"select": "biencoder_select"}.get(missing, missing)] = None
    named = {"biencoder": "--biencoder DIR", "select": "--biencoder-select", "save_model": "--save-model DIR"}
    with pytest.raises(ValueError, match=f"needs .*{named[missing]}"):
        train_only(_args(train_rows, method="knn_oracle", biencoder_wise_ft=True, **kw))


def test_frozen_encoder_honours_biencoder_normalize(rows, train_rows, tiny_bert):
    """--no-train-biencoder --biencoder-normalize: unit vectors (cosine ranking), and the record says so."""
    from figbench_baselines.cdec.models.biencoder import get_embeddings

    plain, info = get_embeddings(rows, _args(train_rows, method="knn_oracle", model=tiny_bert,
                                             no_train_biencoder=True, no_cache=True))
    unit, info_n = get_embeddings(rows, _args(train_rows, method="knn_oracle", model=tiny_bert,
                                              no_train_biencoder=True, biencoder_normalize=True, no_cache=True))
    assert not np.allclose(np.linalg.norm(plain, axis=1), 1.0, atol=1e-3)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-5)
    assert np.allclose(unit, plain / np.linalg.norm(plain, axis=1, keepdims=True), atol=1e-5)
    assert info_n.get("biencoder_normalize") is True and "biencoder_normalize" not in info


def test_wise_ft_outside_train_only_is_refused(tmp_path, capsys):
    """--biencoder-wise-ft only writes a model: in an evaluation run it would be ignored, so it is an error."""
    from figbench.cli import main

    rc = main(["baseline", "cdec", "--dataset", "ecbplus", "--method", "knn_oracle", "--biencoder-wise-ft",
               "--biencoder", str(tmp_path / "be"), "--out", str(tmp_path / "r.json")])
    assert rc == 1 and "--biencoder-wise-ft writes a model: use it with --train-only" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
