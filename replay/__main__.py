"""``python -m replay`` is the ``simpilot`` command."""

from replay.cli import main

main()
