"""Weight-space ensembling of a trained bi-encoder with the encoder it was trained from (WiSE-FT).

Wortsman et al. (2022, "Robust fine-tuning of zero-shot models") interpolate the fine-tuned weights
with the pre-trained ones, ``(1 - alpha) * theta_0 + alpha * theta_1``, to keep the pre-trained
model's robustness under distribution shift. Here ``theta_1`` is a saved triplet-trained bi-encoder
(``--biencoder DIR``) and ``theta_0`` the encoder it started from: the same model, with the marker
embeddings drawn under the same seed. ``alpha`` is chosen on held-out mentions only
(``--biencoder-select``): the one whose worst gain in KNN oracle B-cubed recall over ``theta_0`` on
unit vectors, across every selection source and every k of :data:`KS`, is largest (the target is
"no worse than the frozen encoder anywhere"); a tie keeps the smaller ``alpha``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

import torch

#: the interpolation weights tried (0, the frozen encoder itself, is the reference, not a candidate)
ALPHAS = tuple(round(0.1 * i, 1) for i in range(1, 11))
#: the neighbour counts of the KNN oracle grid, all of which the choice must serve
KS = (5, 10, 20)


def interpolate(theta0: Mapping[str, torch.Tensor], theta1: Mapping[str, torch.Tensor],
                alpha: float) -> dict[str, torch.Tensor]:
    """``(1 - alpha) * theta0 + alpha * theta1`` for every floating-point tensor (others from ``theta1``)."""
    if theta0.keys() != theta1.keys():
        missing = sorted(set(theta0) ^ set(theta1))[:3]
        raise ValueError(f"the two encoders differ in their parameters (e.g. {missing})")
    out = {}
    for name, w1 in theta1.items():
        w0 = theta0[name]
        if w0.shape != w1.shape:
            raise ValueError(f"parameter {name}: shape {tuple(w0.shape)} vs {tuple(w1.shape)}")
        out[name] = torch.lerp(w0, w1, alpha) if w1.is_floating_point() else w1.clone()
    return out


def recalls(model, sources: Sequence[tuple[str, Sequence[Mapping], Any]], *, ks: Sequence[int] = KS,
            max_length: int = 128, within: str | None = "subtopic") -> dict[str, float]:
    """KNN oracle B-cubed recall of ``model`` per ``source@k`` (sources: (name, rows, MentionTokens))."""
    from figbench_baselines.cdec.models.biencoder import oracle_recalls

    out = {}
    for name, rows, tokens in sources:
        by_k = oracle_recalls(model, tokens, rows, ks=ks, max_length=max_length, within=within,
                              desc=f"wise-ft: encode {name}")
        out.update({f"{name}@k{k}": r for k, r in by_k.items()})
    return out


def choose_alpha(history: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The history entry (``alpha``, ``worst_gain``) with the largest worst gain; the smaller alpha on a tie."""
    candidates = [h for h in history if h["alpha"] > 0]
    if not candidates:
        raise ValueError("no interpolation weight above 0 was tried")
    return max(candidates, key=lambda h: (h["worst_gain"], -h["alpha"]))


def search(model, theta0: Mapping[str, torch.Tensor], theta1: Mapping[str, torch.Tensor],
           sources: Sequence[tuple[str, Sequence[Mapping], Any]], *, alphas: Sequence[float] = ALPHAS,
           max_length: int = 128, within: str | None = "subtopic") -> dict[str, Any]:
    """Try every alpha on ``sources``; leave ``model`` at the chosen one; return the selection record."""
    model.normalize = True
    model.load_state_dict(dict(theta0))
    base = recalls(model, sources, max_length=max_length, within=within)
    history: list[dict[str, Any]] = [{"alpha": 0.0, "recall": base, "worst_gain": 0.0}]
    for alpha in alphas:
        model.load_state_dict(interpolate(theta0, theta1, alpha))
        r = recalls(model, sources, max_length=max_length, within=within)
        history.append({"alpha": float(alpha), "recall": r, "worst_gain": min(r[c] - base[c] for c in base)})
    best = choose_alpha(history)
    model.load_state_dict(interpolate(theta0, theta1, best["alpha"]))
    return {"method": "WiSE-FT weight interpolation (Wortsman et al. 2022) with the untrained encoder",
            "criterion": f"largest worst gain in KNN oracle B-cubed recall over alpha 0 (the untrained encoder on "
                         f"unit vectors), across every selection source and k in {list(KS)}, within "
                         f"{within or 'split'}; the smaller alpha on a tie",
            "alpha": best["alpha"], "worst_gain": best["worst_gain"], "history": history}


def wise_ft_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """``--train-only --biencoder DIR --biencoder-wise-ft --biencoder-select S --save-model OUT``: interpolate
    the bi-encoder in DIR with its untrained encoder, choose alpha on S, save to OUT; returns the train info."""
    import time

    from figbench_baselines.cdec.models.biencoder import load_biencoder, selection_sets
    from figbench_baselines.cdec.steps.artifacts import load_component, save_component
    from figbench_baselines.cdec.steps.encoding import MentionTokens, seed_everything
    from figbench_baselines.common.encoder import model_display_name

    given = getattr(args, "select_sets", None)  # (name, rows) pairs given programmatically (tests)
    if not args.biencoder or not (args.biencoder_select or given) or not args.save_model:
        raise ValueError("--biencoder-wise-ft needs --biencoder DIR (the trained encoder), --biencoder-select "
                         "(where alpha is chosen) and --save-model DIR")
    t0 = time.perf_counter()
    theta1, tinfo = load_component(args.biencoder, "biencoder")
    if "wise_ft" in tinfo:
        raise ValueError(f"{args.biencoder} is already interpolated; pass the trained encoder's folder")
    model_arg = tinfo.get("model_arg")
    if args.model is not None and model_display_name(args.model) != tinfo.get("model"):
        raise ValueError(f"{args.biencoder} holds a bi-encoder on {tinfo.get('model')!r}, not on "
                         f"{model_display_name(args.model)!r}")
    seed_everything(int(tinfo.get("seed", 0)))  # the marker embeddings the training started from
    tokenizer, model = load_biencoder(model_arg)
    theta0 = {k: v.detach().clone() for k, v in model.state_dict().items()}
    context_words, max_length = int(tinfo["context_words"]), int(tinfo["max_length"])
    sources = [(name, rows, MentionTokens(tokenizer, rows, context_words=context_words, desc=f"tokenise {name}"))
               for name, rows in (given or selection_sets(args.biencoder_select, args))]
    selection = search(model, theta0, theta1, sources, max_length=max_length, within=args.knn_within)
    info = {**{k: v for k, v in tinfo.items() if k not in ("hardware", "packages", "saved_at", "weights_sha256")},
            "normalize": True,
            "wise_ft": {**selection, "trained_from": str(args.biencoder),
                        "trained_weights_sha256": tinfo.get("weights_sha256"),
                        "trained_hardware": tinfo.get("hardware"),  # where theta_1 was trained
                        "selection_split": args.biencoder_select or "given rows",
                        "seconds": time.perf_counter() - t0}}
    save_component(args.save_model, "biencoder", model.state_dict(), info)
    return info
