"""How many times the gates run an answer that must fail: the empty answer of a program task
(``program_gate.py``), the filler of a repository task (``gate.py``).

Such an answer can pass now and then: DevBench's Python ``api_usage/32`` starts five processes
and checks their shared counter without joining them, so with its hole left empty it passes when
they happen to finish first, about one run in seven (13 of 60 and 9 of 60 on this project's
machine, one at a time and four at once). Two runs miss such a pass three times in four
(``(6/7)**2``), so the task stayed in the gate by luck and its replays of the empty model passed
by luck too. The number of runs is therefore derived from what the gate must catch, not chosen:

* :data:`CATCH_RATE`: the rarest pass the gate means to catch, one run in seven;
* :data:`CATCH_PROBABILITY`: the chance of catching it, 0.999;
* :data:`TARGET_RUNS`: the runs that achieve it, ``(1 - CATCH_RATE) ** n <= 1 - CATCH_PROBABILITY``:
  45 (``runs_to_catch``).

Runs cost time, and a slow program would make 45 runs dominate the gate, so a task's runs are
bounded by a budget of run time (:data:`PROGRAM_BUDGET`, :data:`REPOSITORY_BUDGET`), counted in
runs of the task's reference (the golden program's run, or the untouched code's tests: what an
answer's run is expected to cost) or of the answer's own runs so far when those took longer (an
answer that hangs until its limit): cheap programs get all 45, slower ones as many as the budget
holds, never fewer than :data:`MIN_RUNS` (the two runs every task always had). A task judged on
fewer than the target is not dropped for it; for a program task the runs it got, and the chance
they had of catching a one-in-seven pass (:func:`detection`), are reported. The runs stop at the answer's first pass:
the task is then dropped (``passes_empty`` when every run passed, else ``flaky`` / unstable).
"""

from __future__ import annotations

import math

CATCH_RATE = 1 / 7  # the rarest pass of an answer that must fail that the gate means to catch
CATCH_PROBABILITY = 0.999  # the chance of catching it, on a task that gets all its runs
MIN_RUNS = 2  # every task, however slow: the runs the gates always made


def runs_to_catch(rate: float, probability: float) -> int:
    """The fewest runs ``n`` with which an answer passing a fraction ``rate`` of its runs passes
    at least one of them with ``probability``: ``(1 - rate) ** n <= 1 - probability``."""
    return math.ceil(math.log(1 - probability) / math.log(1 - rate) - 1e-9)


TARGET_RUNS = runs_to_catch(CATCH_RATE, CATCH_PROBABILITY)  # 45
# Seconds of run time a task's runs of the answer may take. A DevBench program takes about 50 ms
# a run in a warm runner (up to 0.4 s on a loaded machine): all 45 runs fit. A program that
# waits on itself for a second gets 20, one that takes 10 s the minimum; the runs past the first
# rounds go side by side (``program_gate.py``), so those of a program that waits cost little wall
# time.
PROGRAM_BUDGET = 20.0
# A repository's tests cost more per run (a test module's own set-up), a repository has hundreds
# of tasks, and marking it is done while a user waits: a budget of one second a task, which adds
# at most that to marking (at 5 s, marking the small bundled repositories took three times as
# long). Tests taking 0.02 s get 45 runs; 0.1 s, 10 (a one-in-seven pass caught with p = 0.79);
# half a second or more, the minimum.
REPOSITORY_BUDGET = 1.0


def planned_runs(cost: float, budget: float) -> int:
    """How many runs of the answer a task gets: :data:`TARGET_RUNS` when they fit in ``budget``
    seconds at ``cost`` seconds a run, else as many as fit, at least :data:`MIN_RUNS`."""
    if cost <= 0:
        return TARGET_RUNS
    return max(MIN_RUNS, min(TARGET_RUNS, math.floor(budget / cost)))


def detection(runs: int, rate: float = CATCH_RATE) -> float:
    """The chance that ``runs`` runs catch an answer passing a fraction ``rate`` of its runs."""
    return 1 - (1 - rate) ** runs
