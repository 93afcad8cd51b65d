"""Throughput of the cdec trainers on this machine: cross-encoder training/scoring and bi-encoder training/encoding.

    python benchmarks/bench_cdec_training.py [--model MODEL] [--pairs 48] [--threads N]

Uses real ECB+ train mentions and LH candidate pairs (FIGBENCH_DATA_DIR), the same input building
as the trainers (``MentionTokens``: dynamic padding), fp32 and bf16 autocast, and two context widths.
Prints one line per configuration; the first batch of each is a warm-up and is not timed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch


def _time(fn, n_batches: int) -> float:
    fn(0)  # warm-up
    t0 = time.perf_counter()
    for b in range(1, n_batches + 1):
        fn(b)
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=None, help="encoder (default: offline all-MiniLM-L6-v2)")
    p.add_argument("--pairs", type=int, default=48, help="timed training pairs per configuration")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--threads", type=int, default=None)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    import datasets

    datasets.disable_progress_bars()
    from figbench_baselines.cdec.models.biencoder import load_biencoder
    from figbench_baselines.cdec.models.crossencoder import load_crossencoder
    from figbench_baselines.cdec.steps.data import load_train_mentions
    from figbench_baselines.cdec.steps.encoding import MentionTokens
    from figbench_baselines.cdec.steps.filters import lh_pairs, synonymous_lemma_pairs

    rows, _ = load_train_mentions("ecbplus", None)
    pairs = lh_pairs(rows, synonymous_lemma_pairs(rows), within="subtopic")
    rng = np.random.default_rng(0)
    bs = a.batch_size
    n_batches = max(1, a.pairs // bs)
    sel = pairs[rng.choice(len(pairs), (n_batches + 1) * bs, replace=False)]
    print(f"torch threads {torch.get_num_threads()}, {len(rows)} ECB+ train mentions, {len(pairs)} LH pairs")

    tok, ce = load_crossencoder(a.model)
    opt = torch.optim.AdamW(ce.parameters(), lr=1e-5)
    for cw, ml in ((30, 256), (15, 128)):
        mt = MentionTokens(tok, rows, context_words=cw, progress=False)
        mean_len = np.mean([mt.pair_length(i, j, ml) for i, j in sel.tolist()])
        for bf16 in (False, True):
            def train_step(b, cw=cw, ml=ml, bf16=bf16, mt=mt):
                batch = mt.collate_pairs(sel[b * bs:(b + 1) * bs].tolist(), ml)
                ce.train()
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                    logits = ce(batch["input_ids"], batch["attention_mask"], batch["span_a"], batch["span_b"])
                loss = torch.nn.functional.binary_cross_entropy_with_logits(logits.float(), torch.ones(len(logits)))
                loss.backward()
                opt.step()
                opt.zero_grad()

            @torch.no_grad()
            def score_step(b, cw=cw, ml=ml, bf16=bf16, mt=mt):
                batch = mt.collate_pairs(sel[b * bs:(b + 1) * bs].tolist(), ml)
                ce.eval()
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                    ce(batch["input_ids"], batch["attention_mask"], batch["span_a"], batch["span_b"])

            tr = n_batches * bs / _time(train_step, n_batches)
            sc = n_batches * bs / _time(score_step, n_batches)
            print(f"cross-encoder  context {cw:2d} words, max {ml}, {mean_len:.0f} tokens/pair, "
                  f"{'bf16' if bf16 else 'fp32'}: train {tr:.2f} pairs/s, score {sc:.2f} pairs/s", flush=True)

    tok, be = load_biencoder(a.model)
    opt = torch.optim.AdamW(be.parameters(), lr=1e-5)
    loss_fn = torch.nn.TripletMarginLoss(margin=10)
    for cw in (30, 15):
        mt = MentionTokens(tok, rows, context_words=cw, progress=False)

        def be_step(b, mt=mt):
            idx = rng.choice(len(rows), 24, replace=False).tolist()
            batch = mt.collate_singles(idx, 128)
            be.train()
            v = be(batch["input_ids"], batch["attention_mask"], batch["span_mask"])
            loss = loss_fn(*v.chunk(3))
            loss.backward()
            opt.step()
            opt.zero_grad()

        @torch.no_grad()
        def enc_step(b, mt=mt):
            batch = mt.collate_singles(list(range(b * 64, (b + 1) * 64)), 128)
            be.eval()
            be(batch["input_ids"], batch["attention_mask"], batch["span_mask"])

        tr = n_batches * 8 / _time(be_step, n_batches)
        en = 4 * 64 / _time(enc_step, 4)
        print(f"bi-encoder     context {cw:2d} words: train {tr:.2f} triplets/s (batch 8), encode {en:.1f} mentions/s",
              flush=True)


if __name__ == "__main__":
    main()
