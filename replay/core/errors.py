"""Errors a user can act on.

Anything raised as :class:`SimpilotError` is printed by the CLI as one line (``error: …``) and a
non-zero exit, never as a traceback: the message must say what was wrong and what to do.
"""


class SimpilotError(Exception):
    """A problem with the user's input or environment, explained in one actionable line.

    ``exit_status`` is what the command exits with: 1 for a run that could not be done, 2 (a
    usage error, as for a bad option) for input refused before anything ran, so that a script
    can tell the two apart."""

    exit_status = 1
