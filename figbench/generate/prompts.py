# ruff: noqa: E501  (the prompt is verbatim, its lines as the paper prints them)
"""The metaphoric paraphrasing prompts of ECB+META (Ahmed et al. 2024, Fig. 2 and App. B), verbatim.

The paper prints one prompt with ``single-word/multi-word`` where the two versions differ; ``--style single``
(ECB+META_1) keeps ``single-word``, ``--style multi`` (ECB+META_m) ``multi-word``. Only the placeholders are
filled: ``{sentence}`` (the sentence's tokens joined by spaces) and ``{trigger_list}`` (its event triggers as a
JSON list, in sentence order).
"""

from __future__ import annotations

import json

#: ``--style`` -> the words of Fig. 2's ``single-word/multi-word``, and the ecbmeta config it corresponds to.
STYLES = {"single": "single-word", "multi": "multi-word"}
CONFIG_OF_STYLE = {"single": "meta_1", "multi": "meta_m"}
#: The paper's sampling temperature (App. B, App. C).
TEMPERATURE = 0.7
#: The keys of the answer Fig. 2 asks for.
ANSWER_KEYS = ("Original Sentence", "Original Word List", "Metaphoric Word List", "Metaphoric Sentence")

_TEMPLATE = '''You are a metaphor expert. Your task is to transform specific words in a given sentence into metaphors. These metaphors can only be {kind} replacements. Here are the detailed steps you need to follow:

Read the Sentence Provided: Focus on understanding the context and meaning of the sentence.

Review the Word List: This list contains the words you need to transform into metaphors.

Generate Metaphors:

Create 5 distinct {kind} metaphors for each word in the list.

Compose a New Sentence:

Replace the original words with your chosen metaphors randomly. Ensure the new sentence maintains logical and grammatical coherence.

Sentence to Transform:

"""{{sentence}}"""

Word List to Convert into Metaphors:
"""{{trigger_list}}"""

Output Requirements: Provide your final output in JSON format, including:

The "Original Sentence".

The "Original Word List".

The "Metaphoric Word List" (with your chosen metaphors).

The "Metaphoric Sentence" (the sentence with metaphors incorporated).

Remember, the goal is to use metaphors to convey the original sentence's meaning in a more nuanced or impactful way without altering the core information.'''

#: style -> the prompt template with ``{sentence}`` and ``{trigger_list}`` placeholders.
PROMPTS = {style: _TEMPLATE.format(kind=kind) for style, kind in STYLES.items()}


#: ``--prefill`` -> how a local model's answer is started (the start is figbench's, the rest the model's):
#: ``key`` Fig. 2's first key (as ``--json-mode``), ``inputs`` its first two keys filled with the sentence and
#: trigger list the prompt gave, and the opening of the "Metaphoric Word List": the model writes only the
#: metaphors and the metaphoric sentence
PREFILLS = ("none", "key", "inputs")


def prefill(kind: str, sentence: str, triggers: list[str]) -> str:
    """The start of the answer for ``--prefill kind`` (:data:`PREFILLS`)."""
    if kind == "none":
        return ""
    if kind == "key":
        return '{"' + ANSWER_KEYS[0] + '": "'
    if kind == "inputs":
        return (f'{{"{ANSWER_KEYS[0]}": {json.dumps(sentence, ensure_ascii=False)}, "{ANSWER_KEYS[1]}": '
                f'{json.dumps(triggers, ensure_ascii=False)}, "{ANSWER_KEYS[2]}": [')
    raise ValueError(f"--prefill must be one of {', '.join(PREFILLS)}, not {kind!r}")


def render(style: str, sentence: str, triggers: list[str]) -> str:
    """The Fig. 2 prompt of ``style`` for one sentence and its trigger words."""
    if style not in PROMPTS:
        raise ValueError(f"--style must be one of {', '.join(PROMPTS)}, not {style!r}")
    return PROMPTS[style].replace("{sentence}", sentence).replace(
        "{trigger_list}", json.dumps(triggers, ensure_ascii=False))
