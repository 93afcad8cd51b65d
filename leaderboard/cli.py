"""``figbench submit`` and ``figbench leaderboard list|serve|export|work|screenshots`` (light imports only)."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    from figbench_leaderboard.access.pacing import SHARE as PACER_SHARE
    from figbench_leaderboard.access.pacing import TARPIT_S

    sp = sub.add_parser("submit", help="submit a result record or predictions file to a leaderboard",
                        description="Submit RESULTS_OR_PREDICTIONS to a local store folder or a running Space URL. "
                                    "For a local store the submission is scored at once; if a server is scoring it, "
                                    "the command waits for its final status (--timeout).")
    sp.add_argument("path", metavar="RESULTS_OR_PREDICTIONS", nargs="?",
                    help="a JSON file, or a folder: every *.json in it")
    sp.add_argument("--from-lm-eval", metavar="DIR", default=None,
                    help="lm-evaluation-harness output (--output_path of a --log_samples run of figbench's tasks): "
                         "one predictions file per benchmark, written to DIR/figbench-predictions/ and submitted")
    sp.add_argument("--from-mteb", metavar="DIR", default=None,
                    help="MTEB output of figbench's tasks: refused with the reason (MTEB keeps aggregate scores, "
                         "not the predictions the board scores; see figbench.harnesses.mteb_tasks)")
    sp.add_argument("--model-name", default=None, help="--from-lm-eval: the model's name on the board "
                                                        "(default: lm-eval's model_name)")
    sp.add_argument("--to", required=True, metavar="STORE_OR_URL", help="store folder, or http(s):// Space URL")
    sp.add_argument("--submitter", default=None, help="a name shown with the submission (a label: limits and name "
                                                       "ownership go by your token or Hugging Face account)")
    sp.add_argument("--token", default=None, metavar="TOKEN",
                    help="submitter token (to a URL by default $FIGBENCH_SUBMIT_TOKEN, else the token file, made on "
                         "first use; to a local store only when given); the model names you submit first belong to it")
    sp.add_argument("--token-file", default=None, metavar="PATH",
                    help="read the submitter token from PATH (default ~/.config/figbench/submit-token)")
    sp.add_argument("--hf-token", nargs="?", const="", default=None, metavar="HF_TOKEN",
                    help="Space with Hugging Face sign-in: submit as the account of this access token (no value: "
                         "$HF_TOKEN or the token saved by `hf auth login`)")
    sp.add_argument("--no-score", action="store_true", help="local store: leave it PENDING for the queue worker")
    sp.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                    help="how long to wait for the final status (default 600)")
    sp.add_argument("--wait", action="store_true", help="Space URL: also wait for the final status")
    sp.add_argument("--gold-json", default=None,
                    help="local store: gold labels from this JSON file instead of the builders")
    sp.add_argument("--data-dir", default=None,
                    help="local store: data root of the corpora, or roots separated by os.pathsep "
                         "(default $FIGBENCH_DATA_DIR)")
    sp.set_defaults(func=_submit)

    lp = sub.add_parser("leaderboard", help="list, serve or export a leaderboard store",
                        description="Work with a leaderboard store (a folder holding leaderboard.sqlite, or hf://datasets/ORG/NAME).")
    lp.set_defaults(_parser=lp)
    lsub = lp.add_subparsers(dest="leaderboard_command", metavar="SUBCOMMAND")

    ls = lsub.add_parser("list", help="stored submissions with status and scores")
    ls.add_argument("--store", required=True)
    ls.add_argument("--status", choices=("PENDING", "RUNNING", "FINISHED", "FAILED"))
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.add_argument("--quarantined", action="store_true",
                    help="only the malformed rows every read skips (id, status, model, what is wrong)")
    ls.set_defaults(func=_list)

    sv = lsub.add_parser("serve", help="serve the Gradio leaderboard (and its queue worker)")
    sv.add_argument("--store", required=True)
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=7860)
    sv.add_argument("--gold-json", default=None, help="gold labels from this JSON file instead of the builders")
    sv.add_argument("--data-dir", default=None,
                    help="data root of the corpora, or roots separated by os.pathsep (default $FIGBENCH_DATA_DIR)")
    sv.add_argument("--max-upload-mb", type=float, default=10.0)
    sv.add_argument("--rate-limit", type=int, default=20, help="submissions per identity per hour")
    sv.add_argument("--board-cpu-s", type=float, default=1.0, metavar="SECONDS",
                    help="CPU seconds of validation and request parsing for all senders together in any 10 s; "
                         "past it submission bodies are answered 429 unread (default 1: a tenth of a core)")
    sv.add_argument("--big-body-share", type=_share, default=PACER_SHARE, metavar="FRACTION",
                    help="the server's event loop share for request bodies of 256 KB or more, let in one at a time: "
                         "after each the next waits (1 - share) / share times as long as it was held "
                         f"(default {PACER_SHARE:g}; 1: no pause)")
    sv.add_argument("--tarpit-s", type=_seconds, default=TARPIT_S, metavar="SECONDS",
                    help="each 429 answer (a sender over its limits, the body unread) is held this long before it "
                         f"is sent, so such a sender retries at most once per this (default {TARPIT_S:g}; 0: none)")
    sv.add_argument("--private", default=None, metavar="DIR",
                    help="the private store of hidden benchmarks (default $FIGBENCH_PRIVATE_DIR)")
    sv.add_argument("--hidden-quota", type=int, default=5,
                    help="submissions per identity per hidden benchmark per 24 h; 0: no quota")
    sv.add_argument("--min-changed", type=int, default=10,
                    help="a hidden-benchmark submission must change the scored outcome of at least this many items "
                         "(and 1%% of the split) relative to the same identity's earlier ones; 0: off")
    sv.add_argument("--hidden-budget", type=int, default=30,
                    help="submissions per hidden benchmark per 24 h over all identities (bounds what probing "
                         "learns; see leaderboard/README.md); 0: no budget")
    sv.add_argument("--ladder-eta", type=float, default=0.01,
                    help="the Ladder's step: a hidden score is released only this much above the identity's best")
    sv.add_argument("--min-account-age-days", type=float, default=0.0, metavar="DAYS",
                    help="hidden benchmarks: Hugging Face accounts at least this old (the Hub's createdAt; refused "
                         "when the Hub does not confirm it); 0: no minimum")
    sv.add_argument("--hidden-accounts", default=None, metavar="FILE",
                    help="only these Hugging Face accounts (one per line) may submit to hidden benchmarks")
    sv.set_defaults(func=_serve)

    ex = lsub.add_parser("export", help="write the whole board as a Parquet/JSON dataset")
    ex.add_argument("--store", required=True)
    ex.add_argument("--to", required=True, metavar="DIR")
    ex.add_argument("--format", choices=("parquet", "json", "both"), default="both")
    ex.add_argument("--exact", action="store_true",
                    help="exact scores and mismatches on hidden benchmarks too (default: as the board releases them)")
    ex.set_defaults(func=_export)

    wk = lsub.add_parser("work", help="score PENDING submissions (the queue worker, in the foreground)")
    wk.add_argument("--store", required=True)
    wk.add_argument("--gold-json", default=None)
    wk.add_argument("--data-dir", default=None)
    wk.set_defaults(func=_work)

    sh = lsub.add_parser("screenshots", help="serve a store and take the README's screenshots in Chromium",
                         description="Serve STORE on a free localhost port and write overview.png, task_tab.png, "
                                     "plot.png, form.png, form_error.png and queue.png to --out "
                                     "(Debian chromium + Playwright).")
    sh.add_argument("--store", required=True)
    sh.add_argument("--out", required=True, metavar="DIR")
    sh.add_argument("--gold-json", default=None)
    sh.add_argument("--data-dir", default=None)
    sh.add_argument("--chromium", default="/usr/bin/chromium")
    sh.set_defaults(func=_screenshots)

    from figbench_leaderboard.maintainer import register as register_maintainer

    register_maintainer(lsub)

    from figbench_leaderboard.space import register as register_space

    register_space(lsub)


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds, 0 or more")
    return value


def _share(text: str) -> float:
    """An argparse type: a fraction in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in (0, 1]")
    return value


def _open_store(spec: str):
    from figbench_leaderboard.store.hub import open_store

    return open_store(spec)


def _gold(args):
    from figbench_leaderboard.scoring.gold import BuilderGoldProvider, JsonGoldProvider, ServerGold, private_store

    public = JsonGoldProvider(args.gold_json) if args.gold_json else BuilderGoldProvider(args.data_dir)
    return ServerGold(public, private_store(getattr(args, "private", None)))


def _submit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from figbench_leaderboard.client import submit, submit_many

    hf_token = args.hf_token
    if hf_token == "":
        from huggingface_hub import get_token

        hf_token = get_token()
        if not hf_token:
            raise ValueError("--hf-token: no Hugging Face token found ($HF_TOKEN, or `hf auth login`)")
    kwargs = dict(submitter=args.submitter, process=not args.no_score, gold_json=args.gold_json,
                  data_dir=args.data_dir, timeout_s=args.timeout, wait=True if args.wait else None,
                  token=args.token, token_path=args.token_file, hf_token=hf_token)
    path = _harness_predictions(args) if args.from_lm_eval or args.from_mteb else args.path
    if path is None:
        raise ValueError("figbench submit: give RESULTS_OR_PREDICTIONS, --from-lm-eval DIR or --from-mteb DIR")
    if Path(path).is_dir():
        files = sorted(Path(path).glob("*.json"))
        if not files:
            raise FileNotFoundError(f"{path}: no *.json files to submit")
        outs = submit_many(files, args.to, **kwargs)
        print(json.dumps(outs, indent=2, ensure_ascii=False))
        for o in outs:
            if o["status"] in ("REFUSED", "FAILED") or o.get("timed_out"):
                why = o.get("error") or o.get("reason") or f"still {o['status']} after {args.timeout:g} s"
                print(f"figbench: {o['path']}: {o['status']}: {why}", file=sys.stderr)
        return 0 if all(o["status"] not in ("REFUSED", "FAILED") and not o.get("timed_out") for o in outs) else 1
    out = submit(path, args.to, **kwargs)
    print(json.dumps(out, indent=2, ensure_ascii=False))
    if out.get("timed_out"):
        print(f"figbench: submission {out['id'][:12]} is still {out['status']} after {args.timeout:g} s; "
              f"follow it with: figbench leaderboard list --store {args.to}", file=sys.stderr)
        return 1
    return 0 if out.get("status") != "FAILED" else 1


def _harness_predictions(args: argparse.Namespace) -> str:
    """--from-lm-eval / --from-mteb: the harness's output as predictions files; returns their folder."""
    if args.path or (args.from_lm_eval and args.from_mteb):
        raise ValueError("figbench submit: give one of RESULTS_OR_PREDICTIONS, --from-lm-eval DIR, --from-mteb DIR")
    if args.from_mteb:
        from figbench.harnesses.mteb_tasks import submissions_from_mteb

        submissions_from_mteb(args.from_mteb)   # raises: why MTEB's output cannot be scored by the board
    from pathlib import Path

    from figbench.harnesses.lm_eval import model_of, submissions

    model = model_of(args.from_lm_eval)
    if args.model_name:
        model["name"] = args.model_name
    out = Path(args.from_lm_eval) / "figbench-predictions"
    out.mkdir(exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    for sub in submissions(args.from_lm_eval, args.data_dir, model):
        name = "_".join((sub["task"], sub["dataset"], sub["config"], sub["split"]))
        (out / f"{name}.json").write_text(json.dumps(sub, ensure_ascii=False), encoding="utf-8")
        print(f"figbench: {out / name}.json: {sub['task']}/{sub['dataset']}/{sub['config']}/{sub['split']} "
              f"from lm-evaluation-harness", file=sys.stderr)
    return str(out)


def _list(args: argparse.Namespace) -> int:
    store = _open_store(args.store)
    try:
        store.recover_expired()
    except ValueError:   # a read-only store can still be listed
        pass
    from figbench_leaderboard.domain.release import release

    if args.quarantined:
        bad = [r for r in store.quarantined() if args.status in (None, r["status"])]
        if args.json:
            print(json.dumps(bad, indent=2, ensure_ascii=False))
        for r in [] if args.json else bad:
            print(f"{r['id']}  {r['status']:8s}  {r['model_name']}  {r['problem']}")
        return 0
    rows = [release(r) for r in store.list(status=args.status)]   # hidden benchmarks as released
    if args.json:
        keep = ("id", "status", "reason", "task", "dataset", "config", "split", "model_name", "model_revision",
                "model_type", "model_parameters", "submitter", "verified", "gold", "scores", "confidence_intervals",
                "mismatches", "created_at", "updated_at")
        print(json.dumps([{k: r.get(k) for k in keep} for r in rows], indent=2, ensure_ascii=False))
        return 0
    from figbench.tasks import TASKS

    for r in rows:
        task = TASKS.get(r["task"])
        head = task.headline if task is not None else None
        val = (r.get("scores") or {}).get(head) if head else None
        val_s = f"{head}={100 * val:.{1 if r['gold'] == 'hidden' else 2}f}" if val is not None else ""
        print(f"{r['id'][:12]}  {r['status']:8s}  {r['task']}/{r['dataset']}/{r['config']}/{r['split']}  "
              f"{r['model_name']}@{r['model_revision'] or '-'}  {r['gold']}  {val_s}  {r['reason'] or ''}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
    from figbench_leaderboard.ui.app import serve, serving_line

    accounts = None
    if args.hidden_accounts:
        from pathlib import Path

        accounts = frozenset(x.strip() for x in Path(args.hidden_accounts).read_text("utf-8").splitlines()
                             if x.strip() and not x.startswith("#"))
    policy = HiddenSplitPolicy(daily_quota=args.hidden_quota, min_changed=args.min_changed,
                               min_changed_fraction=0.01 if args.min_changed > 0 else 0.0,
                               daily_budget=args.hidden_budget, ladder_eta=args.ladder_eta, hf_accounts=accounts,
                               min_account_age_days=args.min_account_age_days)
    demo, _ = serve(args.store, host=args.host, port=args.port, gold=_gold(args), max_upload_mb=args.max_upload_mb,
                    rate_limit=args.rate_limit, policy=policy, private_dir=args.private,
                    board_cpu_s=args.board_cpu_s, big_body_share=args.big_body_share, tarpit_s=args.tarpit_s,
                    block=False)
    print(serving_line(args.host, args.port), flush=True)   # launch() has returned: the board answers
    demo.block_thread()
    return 0


def _export(args: argparse.Namespace) -> int:
    from figbench_leaderboard.export import export_board

    written = export_board(_open_store(args.store), args.to, fmt=args.format, exact=args.exact)
    for p in written:
        print(p)
    return 0


def _work(args: argparse.Namespace) -> int:
    from figbench_leaderboard.scoring.board import Leaderboard

    board = Leaderboard(_open_store(args.store), _gold(args))
    recovered = board.store.recover_expired()
    if recovered:
        print(f"recovered {recovered} submission(s) whose scorer stopped", file=sys.stderr)
    n = board.run_pending()
    print(f"processed {n} submission(s)", file=sys.stderr)
    return 0


def _screenshots(args: argparse.Namespace) -> int:
    from figbench_leaderboard.screenshots import take_screenshots

    for p in take_screenshots(args.store, args.out, gold_json=args.gold_json, data_dir=args.data_dir,
                              chromium=args.chromium):
        print(p)
    return 0
