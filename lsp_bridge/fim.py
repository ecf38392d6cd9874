"""Fill-in-the-middle prompt templates, one per model family.

FIM-trained models only work with the exact strings they were trained on: a missing space in
CodeLlama's ``<PRE> `` or an ASCII bar instead of DeepSeek's full-width ``｜`` gives no error, just
bad answers. So each family's template is written out once here and tested to the exact string.

Each family also names its stop sequences (the server cuts generation there) and its special
tokens; :func:`clean_answer` cuts at a stop and removes special tokens that leak into an answer
anyway (servers that ignore ``stop``, or models that emit a stray ``<fim_middle>``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FimFamily:
    name: str
    template: str  # with {pre} and {suf}, in the family's order (Codestral: suffix first)
    stop: tuple[str, ...]
    tokens: tuple[str, ...]  # special tokens that never belong in code

    def prompt(self, prefix: str, suffix: str) -> str:
        # Not str.format: the document's own braces must stay as they are.
        return _fill(self.template, prefix, suffix)


def _fill(template: str, prefix: str, suffix: str) -> str:
    """``template`` with its one ``{pre}`` and one ``{suf}`` replaced, in one pass (a prefix that
    itself contains ``{suf}`` is left alone)."""
    head, _, rest = template.partition("{pre}")
    if "{suf}" in head:  # suffix-first templates
        before, _, middle = head.partition("{suf}")
        return before + suffix + middle + prefix + rest
    middle, _, tail = rest.partition("{suf}")
    return head + prefix + middle + suffix + tail


FAMILIES: dict[str, FimFamily] = {
    family.name: family
    for family in (
        FimFamily(
            name="starcoder",
            template="<fim_prefix>{pre}<fim_suffix>{suf}<fim_middle>",
            stop=("<|endoftext|>", "<file_sep>"),
            tokens=("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<fim_pad>", "<|endoftext|>", "<file_sep>", "<repo_name>"),
        ),
        FimFamily(
            name="qwen",
            template="<|fim_prefix|>{pre}<|fim_suffix|>{suf}<|fim_middle|>",
            stop=("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>"),
            tokens=(
                "<|fim_prefix|>",
                "<|fim_suffix|>",
                "<|fim_middle|>",
                "<|fim_pad|>",
                "<|endoftext|>",
                "<|file_sep|>",
                "<|repo_name|>",
                "<|im_end|>",
            ),
        ),
        FimFamily(
            name="deepseek",
            template="<｜fim▁begin｜>{pre}<｜fim▁hole｜>{suf}<｜fim▁end｜>",
            stop=("<｜end▁of▁sentence｜>",),
            tokens=("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "<｜end▁of▁sentence｜>", "<｜begin▁of▁sentence｜>"),
        ),
        FimFamily(
            name="codellama",
            template="<PRE> {pre} <SUF>{suf} <MID>",
            stop=(" <EOT>",),
            tokens=("<PRE>", "<SUF>", "<MID>", "<EOT>"),
        ),
        FimFamily(
            name="codestral",
            template="[SUFFIX]{suf}[PREFIX]{pre}",
            stop=("</s>",),
            tokens=("[SUFFIX]", "[PREFIX]", "[MIDDLE]", "</s>", "<s>"),
        ),
    )
}

# Every family's special tokens, for answers from endpoints that apply the template themselves
# (llama.cpp /infill, Ollama with ``suffix``) when the family is not configured. Codestral's
# bracket words are left out: ``[PREFIX]`` may be ordinary text in code.
_ANY_FAMILY_TOKENS = tuple(
    sorted({t for f in FAMILIES.values() if f.name != "codestral" for t in f.tokens} | {"</s>"}, key=len, reverse=True)
)
_ANY_FAMILY_STOPS = tuple(dict.fromkeys(s for f in FAMILIES.values() for s in f.stop))


def family(name: str) -> FimFamily:
    """The family called ``name``; a ValueError naming the known ones otherwise."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown FIM family {name!r} (choose from {', '.join(FAMILIES)})") from None


def fim_prompt(family_name: str, prefix: str, suffix: str) -> str:
    """The raw FIM prompt of ``family_name`` for the code around a hole."""
    return family(family_name).prompt(prefix, suffix)


def clean_answer(text: str, stop: tuple[str, ...], family_name: str | None) -> str:
    """``text`` cut at the first of ``stop`` and the family's own stops (or a stop without its
    surrounding spaces, e.g. CodeLlama's ``<EOT>`` without the space), then without the special
    tokens of the family. When the family is not known, every family's stops and tokens apply."""
    ends = stop + (FAMILIES[family_name].stop if family_name else _ANY_FAMILY_STOPS)
    cut = len(text)
    for s in ends:
        for form in (s, s.strip()):
            if form and (at := text.find(form)) >= 0:
                cut = min(cut, at)
    text = text[:cut]
    tokens = FAMILIES[family_name].tokens if family_name else _ANY_FAMILY_TOKENS
    for token in sorted(tokens, key=len, reverse=True):
        text = text.replace(token, "")
    return text
