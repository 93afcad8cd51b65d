"""The leaderboard service: accept submissions, queue them, score them against the server's gold.

``Leaderboard.submit`` validates a submission completely (size, JSON, schema, metadata, names, the
benchmark, the predictions against the split's ids, the hidden-split policy) before anything is
stored, so a rejected upload leaves the store unchanged; an accepted one is stored PENDING and scored
by ``Leaderboard.process`` (the queue worker, or the CLI) under a renewed lease to FINISHED or FAILED
with a reason. A result record without inline predictions is stored FINISHED but unverified.
Everything task-specific is the task declaration's (``figbench.tasks``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from figbench_leaderboard.access.hidden_policy import (
    BudgetError,
    HiddenSplitPolicy,
    ProbeError,
    QuotaError,
    ladder_release,
    probe_check,
    record_refusal,
)
from figbench_leaderboard.access.redact import redact
from figbench_leaderboard.domain.benchmarks import Benchmark, BenchmarkRegistry, hidden_split
from figbench_leaderboard.domain.names import name_keys
from figbench_leaderboard.domain.release import gold_kind, release, revealed_at
from figbench_leaderboard.domain.submission import SubmissionError, parse_predictions
from figbench_leaderboard.scoring.gold import BuilderGoldProvider, GoldProvider
from figbench_leaderboard.scoring.intake import Limits, parse_submission
from figbench_leaderboard.store.errors import DuplicateSubmissionError, LeaseLostError, StoreError
from figbench_leaderboard.store.leases import new_owner
from figbench_leaderboard.store.sqlite import Store

if TYPE_CHECKING:
    from figbench_leaderboard.scoring.parse_worker import ParseWorker

log = logging.getLogger(__name__)

@contextmanager
def leased(store: Store, sid: str, owner: str, lease_s: float) -> Iterator[None]:
    """Renew ``owner``'s lease on ``sid`` every third of the lease while the body runs."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(lease_s / 3):
            try:
                if not store.renew(sid, owner, lease_s):
                    return
            except StoreError as e:   # disk trouble: the lease will run out and the row be recovered
                log.warning("cannot renew the lease of %s: %s", sid[:12], e)

    thread = threading.Thread(target=beat, name=f"lease-{sid[:8]}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


class Leaderboard:
    """Submissions in a :class:`Store`, scored against a :class:`GoldProvider`.

    ``policy``: the hidden-split policy of a served board (``None`` for a local store); ``parser``: the parse
    worker a served board validates big bodies in (``None``: all in this process).
    """

    parser: ParseWorker | None = None

    def __init__(self, store: Store, gold: GoldProvider | None = None, *,
                 registry: BenchmarkRegistry | None = None, limits: Limits | None = None,
                 policy: HiddenSplitPolicy | None = None) -> None:
        self.store = store
        self.gold = gold if gold is not None else BuilderGoldProvider()
        self.registry = registry or BenchmarkRegistry()
        self.limits = limits or Limits()
        self.policy = policy

    # --- messages -----------------------------------------------------------------------------
    def redact(self, message: str) -> str:
        """A message with the store's and data root's absolute paths made relative."""
        data_dir = getattr(self.gold, "data_dir", None)
        return redact(message, (self.store.folder, "<store>"), (data_dir, "<data>"))

    # --- submission ---------------------------------------------------------------------------
    def parse_submission(self, data: bytes | str | Mapping, *, submitter: str | None = None,
                         overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Validate a submission and return the row to store (raises :class:`SubmissionError`): in the parse
        worker (:attr:`parser`) when it takes this body, else here."""
        if self.parser is not None and self.parser.takes(data):
            return self.parser.parse(data, self.registry, self.limits, submitter=submitter, overrides=overrides)
        return parse_submission(data, self.registry, self.gold, self.limits, submitter=submitter,
                                overrides=overrides)

    def _name_check(self, name: str, disguised: bool) -> Callable:
        """Refuse a name that collides with a different existing one once normalised; a name that only
        became an existing one by normalisation (invisible characters, full-width forms) is refused too."""
        blind, aware = name_keys(name)

        def check(db) -> None:
            same = "" if disguised else "AND model_name != ?"
            others = [r[0] for r in db.execute(
                f"SELECT DISTINCT model_name FROM submissions WHERE (name_key = ? OR name_key2 = ?) {same} LIMIT 3",
                (blind, aware) if disguised else (blind, aware, name)).fetchall()]
            if others:
                raise SubmissionError(
                    f"model.name: {name!r} looks like the existing model {others[0]!r} (the same name once case, "
                    "accents, look-alike letters and invisible characters are set aside); use that exact name "
                    "for the same model, or a clearly different one")

        return check

    def submit(self, data: bytes | str | Mapping, *, submitter: str | None = None, client: str | None = None,
               account: str | None = None, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Validate and store a submission; returns ``{"id", "status", "verified", "benchmark"}``."""
        try:
            row = self.parse_submission(data, submitter=submitter, overrides=overrides)
        except SubmissionError as e:
            raise SubmissionError(self.redact(str(e))) from None
        n_ids = row.pop("_n_ids", 0)
        disguised = row.pop("_disguised", False)
        row["client"], row["account"] = client, account
        bench = self.registry.find(row["task"], row["dataset"], row["config"], row["split"])
        checks = [self._name_check(row["model_name"], disguised)]
        if self.policy is not None and row["verified"] and hidden_split(bench):
            # identity, quota, budget and probe guard, counted in the insert's transaction
            checks.insert(0, probe_check(self.policy, row, row["predictions"], n_ids,
                                         task=self.registry.task(bench), gold=self.gold.get(bench)))
        if hidden_split(bench):   # first: a revealed benchmark answers nothing more
            checks.insert(0, _closed_after_reveal(bench.key))

        def check(db) -> None:
            for c in checks:
                c(db)

        try:
            sid = self.store.add(row, check=check)
        except DuplicateSubmissionError as e:
            e.sha256 = row["sha256"]   # lets a client recognise a resubmission of the very same predictions
            raise
        except (ProbeError, QuotaError, BudgetError) as e:
            record_refusal(self.store, row, e)   # a refused probe answers a question too: it counts
            raise
        return {"id": sid, "status": row["status"], "verified": row["verified"],
                "benchmark": f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}"}

    # --- what may be shown --------------------------------------------------------------------
    def benchmark_of(self, row: Mapping[str, Any]) -> Benchmark | None:
        key = f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}"
        return self.registry.get(key) if self.registry.has(key) else None

    def released(self, row: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """A row as the board shows it, with ``gold`` (public/hidden); under a policy, hidden benchmarks'
        headline as the Ladder released it, without intervals, counts or mismatch flags."""
        if row is None:
            return None
        return release(row) if self.policy is not None else {**row, "gold": gold_kind(row)}

    # --- the queue ----------------------------------------------------------------------------
    def process(self, sid: str | None = None) -> dict[str, Any] | None:
        """Score one PENDING submission (``sid``, else the oldest): RUNNING (leased) -> FINISHED or FAILED.

        Store errors (disk full, read-only) are raised as :class:`StoreError` after the submission is
        failed if possible; if not, its lease runs out and any later worker or CLI call recovers it.
        """
        from figbench_leaderboard.scoring.score import mismatches

        owner = new_owner()
        sub = self.store.claim(sid, owner) if sid else self.store.claim_next(owner)
        if sub is None:
            return None
        with leased(self.store, sub["id"], owner, self.store.lease_s):
            try:
                bench = self.registry.find(sub["task"], sub["dataset"], sub["config"], sub["split"])
                task = self.registry.task(bench)
                gold = self.gold.get(bench)
                preds = parse_predictions(task, sub["predictions"], gold)
                result = task.score(preds, gold, n_resamples=self.limits.n_resamples, seed=self.limits.seed)
                flagged = mismatches(sub.get("reported_scores") or {}, result.scores)
            except Exception as e:  # the reason is shown to the submitter
                try:
                    self.store.fail(sub["id"], self.redact(f"{type(e).__name__}: {e}"), owner=owner)
                except LeaseLostError as lost:
                    log.warning("%s", lost)
                return self.store.get(sub["id"])
            ladder = (ladder_release(self.policy, task, sub["id"]) if self.policy is not None and hidden_split(bench)
                      and sub.get("verified") and revealed_at(bench) is None else None)
            try:
                self.store.finish(sub["id"], scores=result.scores, confidence_intervals=result.confidence_intervals,
                                  counts=result.counts, mismatches=flagged, owner=owner, release=ladder)
            except LeaseLostError as e:   # another scorer took it over after our lease ran out
                log.warning("%s", e)
            except StoreError as e:
                try:
                    self.store.fail(sub["id"], f"could not store the scores: {e}", owner=owner)
                except StoreError:
                    pass
                raise
        return self.store.get(sub["id"])

    def run_pending(self, limit: int | None = None) -> int:
        """Process PENDING submissions until none is left (or ``limit``); returns how many."""
        n = 0
        while limit is None or n < limit:
            if self.process() is None:
                break
            n += 1
        return n


def _closed_after_reveal(key: str) -> Callable:
    """A revealed hidden benchmark takes no more submissions (read in the insert's transaction, so a reveal made by
    another process counts at once)."""
    from figbench_leaderboard.store import reveals

    def check(db) -> None:
        when = reveals.revealed_at(db, key)
        if when is not None:
            from datetime import UTC, datetime

            raise SubmissionError(f"{key} was revealed on {datetime.fromtimestamp(when, UTC):%Y-%m-%d} (its scores "
                                  "are public in full now): it takes no more submissions")

    return check
