"""``figbench leaderboard hidden add|reveal|list`` and ``figbench leaderboard tokens issue|list|revoke``: the
maintainer's commands (light imports only; registered by :func:`figbench_leaderboard.cli.register`)."""

from __future__ import annotations

import argparse
import json
import sys

from figbench_leaderboard.cli import _open_store


def register(lsub: argparse._SubParsersAction) -> None:
    hd = lsub.add_parser("hidden", help="maintainer: hidden benchmarks in the server's private store",
                         description="Hidden benchmarks: gold held only in the server's private store "
                                     "($FIGBENCH_PRIVATE_DIR), inputs only for submitters.")
    hd.set_defaults(_parser=hd)
    hsub = hd.add_subparsers(dest="hidden_command", metavar="SUBCOMMAND")
    ha = hsub.add_parser("add", help="make a hidden benchmark from a never-released split",
                         description="Read a split with gold columns (a JSON/JSONL/Parquet file or a dataset "
                                     "folder, e.g. your own `figbench generate metaphors` output folder or a fresh "
                                     "harvest, or a builder's split under --data-dir), write its gold into the private "
                                     "store and its inputs (gold columns left out) to --inputs-out for submitters.")
    ha.add_argument("--private", default=None, metavar="DIR", help="the private store (default $FIGBENCH_PRIVATE_DIR)")
    ha.add_argument("--task", required=True)
    ha.add_argument("--dataset", required=True, help="the benchmark's dataset name (as submissions name it)")
    ha.add_argument("--config", required=True)
    ha.add_argument("--split", required=True)
    ha.add_argument("--label", required=True, help="the board column of the benchmark")
    ha.add_argument("--group", default="", help="benchmark group (averaged and ranked together)")
    ha.add_argument("--note", default="", help="what submitters must know (shown on the board)")
    src = ha.add_mutually_exclusive_group(required=True)
    src.add_argument("--data-files", nargs="+", metavar="FILE",
                     help="JSON/JSONL/Parquet file(s) of the split, or one dataset folder (e.g. a built "
                          "`figbench generate` output folder: its --split is read)")
    src.add_argument("--from-builder", action="store_true",
                     help="load DATASET/CONFIG/SPLIT with figbench's builder from --data-dir (a never-released split)")
    ha.add_argument("--data-dir", default=None)
    ha.add_argument("--fresh-ids", action="store_true",
                    help="replace example/mention ids by fresh opaque ones (when the source ids are public)")
    ha.add_argument("--audit-corpora", nargs="+", default=None, metavar="CORPUS",
                    help="the linkage audit reads only these public corpora (default: every corpus figbench can "
                         "load locally, from $FIGBENCH_DATA_DIR)")
    ha.add_argument("--audit-dump", default=None, metavar="DUMP",
                    help="the MediaWiki dump (path or glob) a harvested split was made from: its page text is public, "
                         "and the audit reads it too (required for a `figbench harvest` folder)")
    ha.add_argument("--inputs-out", required=True, metavar="DIR",
                    help="where to write the inputs for submitters (inputs.parquet, inputs.jsonl)")
    ha.set_defaults(func=_hidden_add)
    tk = lsub.add_parser("tokens", help="maintainer: submitter tokens (hidden benchmarks take only issued ones)",
                         description="Issue, list and revoke submitter tokens. Only their hashes are stored (in the "
                                     "store, mirrored to the Hub); a token is printed once, when it is issued.")
    tk.set_defaults(_parser=tk)
    tsub = tk.add_subparsers(dest="tokens_command", metavar="SUBCOMMAND")
    ti = tsub.add_parser("issue", help="issue a token (printed once)")
    ti.add_argument("--store", required=True)
    ti.add_argument("--label", required=True, help="whose token it is (kept with its hash)")
    ti.set_defaults(func=_tokens_issue)
    tl = tsub.add_parser("list", help="issued tokens: hash, label, issued, revoked")
    tl.add_argument("--store", required=True)
    tl.add_argument("--json", action="store_true")
    tl.set_defaults(func=_tokens_list)
    tr = tsub.add_parser("revoke", help="revoke a token (by the token, its key:... identity or 8+ hash characters)")
    tr.add_argument("--store", required=True)
    tr.add_argument("which", metavar="TOKEN_OR_HASH")
    tr.set_defaults(func=_tokens_revoke)
    hr = hsub.add_parser("reveal", help="reveal a hidden benchmark once: scores in full, submissions closed",
                         description="The maintainer's one-time reveal: from now on the benchmark's rows are released "
                                     "in full (exact scores, intervals with n_units, counts) in every view, the API, "
                                     "exports and the Hub files, and it takes no more submissions. Recorded in the "
                                     "store and mirrored to the Hub; it cannot be undone or repeated.")
    hr.add_argument("name", metavar="NAME", help="the hidden benchmark: its key (task/dataset/config/split) or label")
    hr.add_argument("--store", required=True)
    hr.add_argument("--private", default=None, metavar="DIR", help="the private store (default $FIGBENCH_PRIVATE_DIR)")
    hr.add_argument("--note", default="", help="why now (kept with the reveal)")
    hr.set_defaults(func=_hidden_reveal)
    hl = hsub.add_parser("list", help="the hidden benchmarks of the private store")
    hl.add_argument("--private", default=None, metavar="DIR")
    hl.set_defaults(func=_hidden_list)


def _hidden_add(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from figbench_leaderboard.scoring.gold import PRIVATE_ENV, PrivateGoldStore
    from figbench_leaderboard.scoring.hidden_benchmark import load_source, make_hidden

    root = args.private or os.environ.get(PRIVATE_ENV)
    if not root:
        raise ValueError(f"no private store: pass --private DIR or set {PRIVATE_ENV}")
    from figbench.tasks import Benchmark

    bench = Benchmark(args.task, args.dataset, args.config, args.split, args.label, args.group, gold="hidden",
                      note=args.note)
    harvest = next((Path(p) for p in [args.data_dir, *(args.data_files or [])]
                    if p and (Path(p) / "harvest.json").is_file()), None)
    if harvest is not None and not args.audit_dump:
        files = json.loads((harvest / "harvest.json").read_text("utf-8")).get("dump", {}).get("files")
        raise ValueError(f"{harvest}: a `figbench harvest` folder, whose page text is public: pass --audit-dump with "
                         f"the dump it read ({', '.join(files or ['its dump files'])}) so that the linkage audit "
                         "measures how derivable its gold is")
    ds = load_source(bench, data_files=args.data_files, data_dir=args.data_dir)
    out = make_hidden(PrivateGoldStore(root), bench, ds, Path(args.inputs_out), fresh_ids=args.fresh_ids,
                      report=lambda line: print(line, file=sys.stderr), audit_corpora=args.audit_corpora,
                      audit_dump=args.audit_dump)
    print(json.dumps(out, indent=2))
    return 0


def _with_store(spec: str, fn):
    store = _open_store(spec)
    try:
        return fn(store)
    finally:
        store.close()   # a Hub store pushes the change now


def _tokens_issue(args: argparse.Namespace) -> int:
    from figbench_leaderboard.store.tokens import issue

    token, identity = _with_store(args.store, lambda s: issue(s, args.label))
    print(token)
    print(f"issued {identity} for {args.label!r}: give the token above to its submitter (figbench submit --token); "
          "it is not stored and cannot be shown again", file=sys.stderr)
    return 0


def _tokens_list(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from figbench_leaderboard.store.tokens import listing

    rows = _with_store(args.store, listing)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0

    def when(t):
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M") if t else "-"

    for r in rows:
        print(f"{r['identity']}  issued {when(r['created_at'])}  revoked {when(r['revoked_at'])}  {r['label']}")
    return 0


def _tokens_revoke(args: argparse.Namespace) -> int:
    from figbench_leaderboard.store.tokens import revoke

    row = _with_store(args.store, lambda s: revoke(s, args.which))
    print(f"revoked {row['identity']} ({row['label']})")
    return 0


def _hidden_reveal(args: argparse.Namespace) -> int:
    import os

    from figbench_leaderboard.scoring.gold import PRIVATE_ENV, PrivateGoldStore
    from figbench_leaderboard.store.reveals import reveal

    root = args.private or os.environ.get(PRIVATE_ENV)
    if not root:
        raise ValueError(f"no private store: pass --private DIR or set {PRIVATE_ENV}")
    found = [b for b in PrivateGoldStore(root).benchmarks() if args.name in (b.key, b.label)]
    if not found:
        raise ValueError(f"{args.name!r}: no hidden benchmark of the private store has this key or label "
                         "(figbench leaderboard hidden list)")
    out = _with_store(args.store, lambda s: reveal(s, found[0].key, note=args.note))
    print(f"revealed {out['benchmark']}: {out['submissions']} scored submission(s) now released in full; "
          "submissions closed", file=sys.stderr)
    return 0


def _hidden_list(args: argparse.Namespace) -> int:
    import os

    from figbench_leaderboard.scoring.gold import PRIVATE_ENV, PrivateGoldStore

    root = args.private or os.environ.get(PRIVATE_ENV)
    if not root:
        raise ValueError(f"no private store: pass --private DIR or set {PRIVATE_ENV}")
    for b in PrivateGoldStore(root).benchmarks():
        print(f"{b.key}  {b.label}  (hidden)")
    return 0
