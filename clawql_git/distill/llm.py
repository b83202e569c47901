"""Distillation by a configured OpenAI-compatible LLM: it writes the five parts; files,
symbols and linked entries stay the ones the session's own tool calls show."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from clawql_git.distill.extract import SECTIONS, Distillation
from clawql_git.distill.transcript import Transcript
from clawql_git.errors import StorageError

if TYPE_CHECKING:
    from clawql_git.llm.chat import ChatEndpoint

PROMPT_CHARS = 48_000  # the newest part of a long session is what the next one needs
SYSTEM = (
    "You distil a coding-agent session into notes for the next session. Answer one JSON "
    "object with string-list keys: decided (what was decided, with the reason), rejected "
    "(what was tried and did not work, and why), in_progress, blocked, next (the next step "
    "first). Be brief and concrete; copy names of files and functions exactly; [] when none."
)


def distill_with_llm(
    endpoint: ChatEndpoint, transcript: Transcript, base: Distillation
) -> Distillation:
    """``base`` (the offline distillation) with its five parts written by the LLM."""
    answer = endpoint.complete_json(
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": _prompt(transcript)}]
    )
    sections: dict[str, list[str]] = {}
    for name in SECTIONS:
        value = answer.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise StorageError(f"LLM endpoint {endpoint.base_url}: {name!r} is not a string list")
        sections[name] = value
    return base.with_sections(sections, f"llm:{endpoint.model}")


def _prompt(transcript: Transcript) -> str:
    lines = [f"{t.role}: {t.text}" for t in transcript.turns]
    lines += [f"tool {c.name}: {json.dumps(dict(c.input))[:300]}" for c in transcript.tools]
    text = "\n".join(lines)
    return text[-PROMPT_CHARS:]
