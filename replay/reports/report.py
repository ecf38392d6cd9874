"""The report's entry points in one place, for the command line: building a report from the store
(``report_build.py``), rendering it (``report_text.py``, ``report_json.py``, ``report_csv.py``)
and writing its files (``report_files.py``). Each lives in the module named for its job."""

from __future__ import annotations

from replay.reports.report_build import build_report as build_report
from replay.reports.report_csv import write_csv as write_csv
from replay.reports.report_files import check_output_file as check_output_file
from replay.reports.report_files import check_output_folder as check_output_folder
from replay.reports.report_files import write_text_atomically as write_text_atomically
from replay.reports.report_json import to_json as to_json
from replay.reports.report_text import render as render
from replay.reports.report_text import render_summary as render_summary
