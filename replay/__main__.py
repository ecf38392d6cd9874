"""``python -m replay`` is the ``simpilot`` command."""

from .cli import main

main()
