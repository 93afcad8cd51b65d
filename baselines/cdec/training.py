"""``figbench baseline cdec --train-only``: train the method's model(s) and save them to ``--save-model``
without evaluating (the bi-encoder or its WiSE-FT mix, the cross-encoder on the filter's training pairs, WEC's
pairwise MLP)."""

from __future__ import annotations

import argparse

from figbench_baselines.cdec.pipeline import _train_candidates
from figbench_baselines.cdec.steps.pipeline_defaults import Method, method


def train_only(args: argparse.Namespace) -> dict:
    """Train the method's model(s) and save them to ``--save-model`` without evaluating; returns the train info."""
    if not args.save_model:
        raise ValueError("--train-only needs --save-model DIR (where to put the trained model)")
    m = method(args.method)
    if m.trains is None:
        raise ValueError(f"--train-only: method {m.name!r} trains nothing")
    return {m.trains: _TRAINERS[m.trains](args, m)}


def _train_biencoder(args, m: Method) -> dict:
    from figbench_baselines.cdec.models.biencoder import _trained_biencoder

    if getattr(args, "biencoder_wise_ft", False):
        from figbench_baselines.cdec.models.wise_ft import wise_ft_from_args

        return wise_ft_from_args(args)
    if args.no_train_biencoder or args.biencoder:
        raise ValueError(f"--train-only with {m.name} trains a bi-encoder; drop --no-train-biencoder/--biencoder")
    return _trained_biencoder(args)["info"]


def _train_crossencoder(args, m: Method) -> dict:
    from figbench_baselines.cdec.models.crossencoder import train_from_args

    if args.load_model:
        raise ValueError("--train-only and --load-model exclude each other")
    return train_from_args(args, lambda r: _train_candidates(r, args))[2]


def _train_wec_pairwise(args, m: Method) -> dict:
    from figbench_baselines.cdec.models.wec_pairwise import _train_mlp
    from figbench_baselines.cdec.steps.pipeline_defaults import setting
    from figbench_baselines.common.encoder import load_tokenizer_and_model

    seed_everything_args(args)
    tokenizer, encoder = load_tokenizer_and_model(args.model)
    enc_kw = dict(batch_size=args.encode_batch_size, max_length=setting(args, "max_length"),
                  context_words=setting(args, "context_words"))
    return _train_mlp(args, encoder, tokenizer, enc_kw, args.model)[1]


_TRAINERS = {"biencoder": _train_biencoder, "crossencoder": _train_crossencoder, "wec_pairwise": _train_wec_pairwise}


def seed_everything_args(args) -> None:
    from figbench_baselines.cdec.steps.encoding import seed_everything

    seed_everything(args.seed)

