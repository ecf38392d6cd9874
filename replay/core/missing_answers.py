"""How messages name tasks that have no usable answer, and say why and what to do.

A run's model errors (no answer came) and the tasks a model comparison leaves out are named,
never only counted: a few task ids, then how many more (:func:`some`), each group with its reason
(the model's own error text) and the step that gives them an answer. That step depends on the
model: an endpoint is asked again (``--resume`` re-asks model errors), while a recorded model
answers from its recording folder only, so asking it again changes nothing: the recording must be
recorded again first (``simpilot record`` asks for what the folder lacks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

SHOWN = 3  # task ids named before "and N more"


def some(ids: Iterable[str], shown: int = SHOWN) -> str:
    """``a, b, c and 4 more``: the first ``shown`` ids, then how many others."""
    ids = list(ids)
    if len(ids) <= shown:
        return ", ".join(ids)
    return ", ".join(ids[:shown]) + f" and {len(ids) - shown} more"


def recording_of(model: str) -> str | None:
    """The recording folder a ``recorded:FOLDER`` model replays, None for any other model."""
    kind, _, folder = model.partition(":")
    return folder if kind == "recorded" and folder else None


def how_to_answer(model: str, run_id: str, recorded_model: str | None = None) -> str:
    """What gives the tasks of ``run_id`` that ended in a model error an answer (``model``: the
    run's model, as given; ``recorded_model``: the model a recording was made with, when known)."""
    folder = recording_of(model)
    resume = f"simpilot replay … --run {run_id} --resume"
    if folder is None:
        return f"fix what the error says (the endpoint, its key, the model's settings) and re-ask them with: {resume}"
    return (
        f"the recording {folder} gives no answer for them, and replaying it again gives the same error: record them "
        f"again with 'simpilot record SCENARIO… --model {recorded_model or 'MODEL'} --out {folder}' (it asks only "
        f"for what the folder lacks), then: {resume}"
    )


def by_error(errors: Mapping[str, str]) -> list[tuple[str, list[str]]]:
    """``task id -> error`` grouped: each distinct error with its task ids (sorted), the most
    common error first."""
    groups: dict[str, list[str]] = {}
    for task_id, error in sorted(errors.items()):
        groups.setdefault(error, []).append(task_id)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[1][0]))


def model_error_lines(model: str, run_id: str, errors: Mapping[str, str], recorded_model: str | None = None) -> list[str]:
    """The message for a run whose tasks in ``errors`` (``task id -> the model's error``) got no
    answer: which tasks, why (each distinct error, with its tasks), and what to do."""
    lines = [f"{len(errors)} task(s) got no answer from the model ({some(sorted(errors))}); they are stored as model_error:"]
    for error, ids in by_error(errors)[:SHOWN]:
        lines.append(f"  {some(ids)}: {error}")
    rest = by_error(errors)[SHOWN:]
    if rest:
        lines.append(f"  and {sum(len(ids) for _, ids in rest)} more task(s) with {len(rest)} other error(s)")
    lines.append(how_to_answer(model, run_id, recorded_model))
    return lines
