"""Prompts for chat models (not FIM-trained): the SimCopilot hole-marker prompt.

The instructions follow the SimCopilot paper: continue from the code
before (and connect to the code after, for infill), only syntactically correct code with no
comments or prose, close all brackets and match the indentation; for completion, finish the
innermost incomplete block and stop.
"""

from __future__ import annotations

HOLE = "<<<HOLE>>>"

_SYSTEM = "You are a code completion engine inside an IDE. You answer with code only: no explanations, no markdown, no comments."

_INFILL = """Below is {language} code: other files of the repository (if any), each after a header comment naming it,
then the file being edited, with the part that holds the marker {hole} placed last. The marker stands
where code is missing.
Write only the code that replaces {hole}:
- it must continue logically from the code before the marker and connect to the code after it;
- output only syntactically correct {language} code, with no comments, prose or markdown fences;
- close every bracket you open and match the indentation of the surrounding code;
- do not repeat code that is already before or after the marker.

{code}"""

_COMPLETION = """Below is {language} code: other files of the repository (if any), each after a header comment naming it,
then the beginning of the file being edited, up to the cursor, marked {hole}.
Write only the code that comes next at the cursor:
- complete the innermost unfinished method, loop, if statement or block, then stop;
- output only syntactically correct {language} code, with no comments, prose or markdown fences;
- close every bracket you open and match the indentation of the surrounding code;
- do not repeat code that is already before the cursor.

{code}"""


def chat_messages(language: str, code: str, infill: bool) -> list[dict[str, str]]:
    """The chat messages for one hole. ``code`` holds the :data:`HOLE` marker once (the
    document, possibly after the repository's other files: see ``repo_context``); ``infill``
    says whether code after the hole is known."""
    template = _INFILL if infill else _COMPLETION
    user = template.format(language=language.capitalize(), hole=HOLE, code=code)
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]
