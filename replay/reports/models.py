"""Several models on the same tasks, in one place for the command line: the comparison itself
(``model_comparison.py``, pure), and its forms (``model_text.py``: terminal, markdown, JSON;
``model_html.py``: HTML). Each lives in the module named for its job."""

from __future__ import annotations

from replay.reports.model_comparison import ModelComparison as ModelComparison
from replay.reports.model_comparison import ModelRun as ModelRun
from replay.reports.model_comparison import SampleScore as SampleScore
from replay.reports.model_comparison import compare_models as compare_models
from replay.reports.model_html import html as html
from replay.reports.model_html import page as page
from replay.reports.model_text import markdown as markdown
from replay.reports.model_text import render as render
from replay.reports.model_text import to_json as to_json
