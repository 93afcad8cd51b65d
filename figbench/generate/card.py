"""The dataset card of a generated corpus: YAML configs (so ``datasets.load_dataset(DIR)`` loads it) and the
generation settings, counts, cost and review state."""

from __future__ import annotations

from pathlib import Path

from figbench.generate import folder
from figbench.generate.prompts import CONFIG_OF_STYLE

#: the paper's cost of the two GPT-4 runs over ECB+ validation and test (App. B)
PAPER_COST_USD = {"single": 16.0, "multi": 18.0}


def _yaml(settings: dict) -> str:
    import yaml

    config = CONFIG_OF_STYLE[settings["style"]]
    meta = {
        "configs": [{"config_name": config, "default": True,
                     "data_files": [{"split": settings["split"], "path": f"data/{settings['split']}-*.parquet"}]}],
        "language": ["en"],
        "task_categories": ["token-classification"],
        "tags": ["coreference", "metaphor", "figbench", "synthetic"],
        "pretty_name": f"{settings['dataset']} {settings['split']}, {settings['style']}-word metaphoric paraphrases",
    }
    return yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)


def cost_lines(report: dict, style: str) -> list[str]:
    run = report.get("run", {})
    tokens = run.get("tokens", {})
    lines = [f"- tokens: {tokens.get('prompt', 0):,} prompt + {tokens.get('completion', 0):,} completion "
             f"over {run.get('requests', 0):,} requests ({run.get('cache_hits', 0):,} answers from the cache)"]
    if run.get("cost_usd") is not None:
        lines.append(f"- cost: ${run['cost_usd']:.2f} at ${run['price_input_per_mtok']}/M prompt and "
                     f"${run['price_output_per_mtok']}/M completion tokens")
    lines.append(f"- the paper: about ${PAPER_COST_USD[style]:.0f} for ECB+ validation + test with GPT-4 (App. B)")
    return lines


def write_card(out: Path, settings: dict, report: dict) -> None:
    b = report.get("build", {})
    c = b.get("counts", {})
    run = report.get("run", {})
    qc = b.get("qc", {})
    share = f"{qc['share_valid']:.1%}" if qc.get("share_valid") is not None else "not judged yet"
    dropped = b.get("dropped", {})
    source = "/".join(str(settings[k]) for k in ("dataset", "config", "split") if settings.get(k) is not None)
    lines = [
        "---", _yaml(settings).rstrip(), "---", "",
        f"# {source}, metaphoric paraphrase "
        f"({CONFIG_OF_STYLE[settings['style']]})", "",
        "Made by `figbench generate metaphors` with the ECB+META method (Ahmed et al. 2024, §3.1, Fig. 2): every "
        "sentence's event triggers turned into metaphors by an LLM, the original mentions re-tagged in the "
        "paraphrase, ambiguous cases reviewed (`figbench generate review`). Every mention keeps its source "
        "`mention_id` and `cluster_id`; `text` and `token_start`/`token_end` are its span on the paraphrased "
        "`sentence`, `original_text` the source trigger (the `ecbmeta` mention schema).", "",
        "## Generation settings", "",
        f"- source: `{settings['dataset']}`"
        + (f" config `{settings['config']}`" if settings.get("config") is not None else "")
        + f" split `{settings['split']}`",
        f"- style: {settings['style']} (prompt of Fig. 2, {settings['style']}-word metaphors)",
        f"- model: `{settings['model']}` ({settings['backend']}"
        f"{', ' + settings['endpoint'] if settings.get('endpoint') else ''})",
        f"- temperature {settings['temperature']}, max tokens {settings['max_tokens']}, "
        f"JSON retries {settings['json_retries']}",
        "", "## Counts", "",
        f"- sentences: {run.get('sentences', 0):,} ({run.get('failed', 0):,} failed after retries, "
        f"{run.get('repaired', 0):,} answers repaired)",
        f"- mentions: {c.get('mentions', 0):,} of {c.get('source_mentions', 0):,} source mentions; "
        f"{c.get('clusters', 0):,} clusters, {c.get('documents', 0):,} documents",
        f"- not in the corpus: {len(dropped.get('failed_sentence', [])):,} of failed sentences, "
        f"{len(dropped.get('no_sentence_span', [])):,} without a span on one source sentence, "
        f"{len(dropped.get('untagged', [])):,} without a span, {len(dropped.get('unusable', [])):,} marked "
        "unusable (ids in `generation/report.json`)",
        f"- flagged by the re-tagger: {c.get('flagged', 0):,} ({c.get('flagged_reviewed', 0):,} reviewed); "
        f"{c.get('moved', 0):,} spans moved by hand",
        f"- quality control: {qc.get('judged', 0):,} mentions judged, valid {share} "
        "(the paper: about 99% META_1, 95% META_m on Dev_small)",
        "", "## Cost", "", *cost_lines(report, settings["style"]), "",
        "## Rebuilding", "",
        "`generation/` holds the answer cache, the parsed answers, the re-tagger's proposals and the "
        "corrections; `figbench generate build DIR` rebuilds `data/` and this card from them.", "",
    ]
    (out / folder.CARD).write_text("\n".join(lines), "utf-8")
