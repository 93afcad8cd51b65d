"""``figbench data export``: a Hub-ready folder (Parquet per config and split + dataset card).

The folder loads with plain ``datasets.load_dataset(DIR, CONFIG)``, without figbench: the card's
YAML ``configs:`` entries point at ``<config>/<split>-00000-of-00001.parquet`` through
``data_files``, and its ``dataset_info`` lists exactly the exported configs and splits.

``inputs_only``: every split leaves out the gold columns (:meth:`figbench.tasks.Task.gold_columns`) of
the tasks scored on it, or, for a split no benchmark scores, of the tasks scored on its config: what a
submitter of a hidden benchmark may be given.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from figbench.loading import builder_configs, load_dataset_builder
from figbench.paths import builder_dir

logger = logging.getLogger(__name__)

PARQUET_NAME = "{split}-00000-of-00001.parquet"


@dataclass
class ExportReport:
    """What an export wrote and what it left out."""

    folder: Path
    configs: dict[str, dict[str, int]] = field(default_factory=dict)  # config -> split -> rows
    skipped: dict[str, str] = field(default_factory=dict)  # config -> reason
    files: list[Path] = field(default_factory=list)
    pushed_to: str | None = None
    dropped: dict[str, list[str]] = field(default_factory=dict)  # config/split -> gold columns left out

    def to_dict(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "configs": self.configs, "skipped": self.skipped,
                "files": [str(p) for p in self.files], "pushed_to": self.pushed_to, "dropped": self.dropped}


def scoring_tasks(name: str, config: str, split: str) -> list:
    """The tasks with a benchmark on ``name``/``config``/``split``; for a split no benchmark scores, those
    with a benchmark on the config (their gold columns are gold there too)."""
    from figbench.tasks import benchmarks, get_task

    on_config = [b for b in benchmarks() if b.dataset == name and b.config == config]
    on_split = [b for b in on_config if b.split == split] or on_config
    return [get_task(t) for t in dict.fromkeys(b.task for b in on_split)]


def _inputs_only(ds, name: str, config: str, split: str) -> tuple[Any, list[str]]:
    """``ds`` without the gold of the tasks scored on it, and the columns left out (or rewritten)."""
    dropped: list[str] = []
    for task in scoring_tasks(name, config, split):
        before = set(ds.column_names)
        cols = [c for c in task.gold_columns() if c in before]
        ds = task.inputs_only(ds)
        dropped += [c for c in cols if c not in dropped]
    return ds, dropped


def validate_repo_id(repo_id: str) -> str:
    """``owner/name`` (or ``name``) as the Hub accepts it; ValueError otherwise."""
    from huggingface_hub.utils import HFValidationError
    from huggingface_hub.utils import validate_repo_id as _validate

    try:
        _validate(repo_id)
    except HFValidationError as e:
        raise ValueError(f"invalid --push-to-hub repository id {repo_id!r}: {e}") from e
    return repo_id


def _load_card(name: str):
    from huggingface_hub import DatasetCard

    path = builder_dir(name) / "README.md"
    if path.is_file():
        return DatasetCard.load(path)
    logger.warning("%s has no dataset card at %s; writing a minimal one", name, path)
    return DatasetCard(f"---\npretty_name: {name}\n---\n# {name}\n\nExported by figbench; no card was written yet.\n")


def _write_card(name: str, folder: Path, report: ExportReport, infos: dict, default: str | None) -> Path:
    from datasets.info import DatasetInfosDict

    card = _load_card(name)
    data = card.data
    configs = []
    for config, splits in report.configs.items():
        entry: dict[str, Any] = {
            "config_name": config,
            "data_files": [{"split": s, "path": f"{config}/{PARQUET_NAME.format(split=s)}"} for s in splits],
        }
        if config == default:
            entry["default"] = True
        configs.append(entry)
    data["configs"] = configs
    data.pop("dataset_info", None)  # replaced by the exported configs/splits only
    DatasetInfosDict(infos).to_dataset_card_data(data)
    note = ["", "## Exported files", "",
            f"Written by `figbench data export {name}`: one Parquet file per config and split.", ""]
    note += [f"- `{c}`: " + ", ".join(f"{s} ({n:,} rows)" for s, n in sp.items()) for c, sp in report.configs.items()]
    if report.skipped:
        note += ["", "Not exported:", ""] + [f"- `{c}`: {why}" for c, why in report.skipped.items()]
    card.text = card.text.rstrip() + "\n" + "\n".join(note) + "\n"
    out = folder / "README.md"
    card.save(out)
    return out


def export_dataset(name: str, config: str | None = None, to: str | Path = "", *, data_dir: str | None = None,
                   cache_dir: str | None = None, overwrite: bool = True, inputs_only: bool = False,
                   **config_kwargs: Any) -> ExportReport:
    """Export one config (or every buildable config when ``config`` is None) of a figbench corpus.

    With ``config=None`` a config whose files are missing is skipped and reported; a named config
    that cannot be built raises.
    """
    if not to:
        raise ValueError("export needs a target folder (--to DIR)")
    import datasets

    names, default = builder_configs(name)
    if config is not None and config not in names:
        raise ValueError(f"{name} has no config {config!r}; configs: {', '.join(names)}")
    folder = Path(to).expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    report = ExportReport(folder)
    infos: dict[str, datasets.DatasetInfo] = {}
    for cfg in [config] if config else names:
        try:
            builder = load_dataset_builder(name, cfg, data_dir=data_dir, cache_dir=cache_dir, **config_kwargs)
            builder.download_and_prepare()
            dd = builder.as_dataset()
        except (FileNotFoundError, ValueError) as e:
            if config is not None:
                raise
            report.skipped[cfg] = " ".join(str(e).split())
            logger.warning("%s/%s skipped: %s", name, cfg, e)
            continue
        # builders that build the splits they can name the others (figbench convention)
        for split, why in (getattr(builder, "missing_splits", dict)() or {}).items():
            report.skipped[f"{cfg}/{split}"] = why
        target = folder / cfg
        if target.exists() and overwrite:
            shutil.rmtree(target)
        target.mkdir(parents=True, exist_ok=True)
        splits = datasets.SplitDict()
        report.configs[cfg] = {}
        first = None
        for split, ds in dd.items():
            if inputs_only:
                ds, cols = _inputs_only(ds, name, cfg, str(split))
                if cols:
                    report.dropped[f"{cfg}/{split}"] = cols
            first = first if first is not None else ds
            path = target / PARQUET_NAME.format(split=split)
            ds.to_parquet(str(path))
            report.files.append(path)
            report.configs[cfg][str(split)] = len(ds)
            splits.add(datasets.SplitInfo(name=str(split), num_examples=len(ds), num_bytes=ds.data.nbytes))
        infos[cfg] = datasets.DatasetInfo(features=first.features, splits=splits,
                                          dataset_size=sum(s.num_bytes for s in splits.values()))
    if not report.configs:
        raise FileNotFoundError(f"{name}: no config could be built; " +
                                "; ".join(f"{c}: {why}" for c, why in report.skipped.items()))
    if default not in report.configs:
        default = next(iter(report.configs))
    report.files.append(_write_card(name, folder, report, infos, default))
    if inputs_only:
        _note_inputs_only(report)
    return report


def _note_inputs_only(report: ExportReport) -> None:
    card = report.folder / "README.md"
    lines = ["", "## Inputs only", "", "Exported with `--inputs-only`: the gold columns of the tasks scored on each "
             "split are left out (answers rewritten out of nested pairs):", ""]
    lines += [f"- `{where}`: {', '.join(f'`{c}`' for c in cols)}" for where, cols in report.dropped.items()]
    card.write_text(card.read_text("utf-8").rstrip() + "\n" + "\n".join(lines) + "\n", "utf-8")


def push_to_hub(folder: str | Path, repo_id: str, *, private: bool = False, token: str | None = None) -> str:
    """Upload an exported folder as a Hub dataset repo; a clear error when offline or unauthorised."""
    validate_repo_id(repo_id)
    folder = Path(folder)
    if not (folder / "README.md").is_file():
        raise FileNotFoundError(f"{folder} is not an exported dataset folder (no README.md)")
    from huggingface_hub import HfApi
    from huggingface_hub.errors import OfflineModeIsEnabled

    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        info = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset",
                                 commit_message="Upload figbench export")
    except OfflineModeIsEnabled as e:
        raise ConnectionError(f"cannot push {folder} to the Hub repo {repo_id!r}: offline mode is on "
                              f"(HF_HUB_OFFLINE=1); unset it and log in (huggingface-cli login). {e}") from e
    except Exception as e:  # network, auth, permission: report what failed and keep the folder
        raise ConnectionError(f"cannot push {folder} to the Hub repo {repo_id!r}: {type(e).__name__}: {e}. "
                              "The exported folder is complete; retry with network access and a Hub token.") from e
    return str(getattr(info, "commit_url", None) or f"https://huggingface.co/datasets/{repo_id}")
