"""``python -m figbench_baselines.cdec.compare drop A.json B.json``: the paired robustness drop of two cdec
records (:mod:`figbench_baselines.cdec.steps.compare`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from figbench_baselines.cdec.steps import compare


def main(argv: list[str] | None = None) -> int:
    from figbench.results import read_result

    p = argparse.ArgumentParser(prog="python -m figbench_baselines.cdec.compare", description=compare.__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("drop",))
    p.add_argument("a", help="record on the original data (e.g. ECB+ test)")
    p.add_argument("b", help="record of the same system on the paraphrased data (e.g. ECB+META_m test)")
    p.add_argument("--metric", default="conll_f1")
    p.add_argument("--n-resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    rec_a, rec_b = read_result(a.a), read_result(a.b)
    out = compare.records_drop(rec_a, rec_b, metric=a.metric, n_resamples=a.n_resamples, seed=a.seed)
    ci = out["confidence_interval"]

    def name(r: Mapping[str, Any]) -> str:
        return f"{r['dataset']}/{r['config']}/{r['split']}"

    print(f"{rec_a.get('method', '')}: {name(rec_a)} {100 * out['a']:.1f} - {name(rec_b)} {100 * out['b']:.1f} = "
          f"{100 * out['drop']:.1f} [{100 * ci['low']:.1f}, {100 * ci['high']:.1f}] "
          f"({out['units']} {out['unit']}, {a.n_resamples} resamples)" + (f"; {ci['warning']}" if ci.get("warning")
                                                                           else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
