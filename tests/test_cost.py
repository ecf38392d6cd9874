"""Prices and costs (replay/reports/cost.py) on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from replay.config.price import Price, price_from_mapping
from replay.reports.cost import CostInput, request_cost, summarise_cost, task_cost

TOKENS = Price(input_per_mtok=3.0, output_per_mtok=15.0)
GPU = Price(per_hour=2.0, currency="EUR")


# -- one request ----------------------------------------------------------------------------------


def test_token_price_of_one_request() -> None:
    # 2,000 prompt tokens at 3 per million = 0.006; 100 answer tokens at 15 per million = 0.0015
    assert request_cost(TOKENS, prompt_tokens=2_000, answer_tokens=100) == pytest.approx(0.0075)
    assert request_cost(TOKENS, prompt_tokens=1_000_000, answer_tokens=0) == 3.0
    assert request_cost(TOKENS, prompt_tokens=0, answer_tokens=1_000_000) == 15.0
    assert request_cost(TOKENS, prompt_tokens=0, answer_tokens=0) == 0.0


def test_hourly_price_of_one_request() -> None:
    # 1.8 busy seconds at 2 an hour: 1.8 × 2 / 3600 = 0.001
    assert request_cost(GPU, seconds=1.8) == pytest.approx(0.001)
    assert request_cost(GPU, seconds=3600) == 2.0
    assert request_cost(GPU, seconds=1.8, prompt_tokens=10**9, answer_tokens=10**9) == pytest.approx(0.001)  # tokens ignored


def test_the_figure_a_price_needs_must_be_given() -> None:
    with pytest.raises(ValueError, match="token prices need the request's prompt and answer token counts"):
        request_cost(TOKENS, seconds=1.0)
    with pytest.raises(ValueError, match="token prices need"):
        request_cost(TOKENS, prompt_tokens=10)
    with pytest.raises(ValueError, match="an hourly price needs the request's busy seconds"):
        request_cost(GPU, prompt_tokens=10, answer_tokens=10)
    with pytest.raises(ValueError, match="prompt_tokens must be a non-negative number"):
        request_cost(TOKENS, prompt_tokens=-1, answer_tokens=0)
    with pytest.raises(ValueError, match="seconds must be a non-negative number"):
        request_cost(GPU, seconds=-0.5)


# -- prices ---------------------------------------------------------------------------------------


def test_price_kinds_and_defaults() -> None:
    assert (TOKENS.kind, TOKENS.currency) == ("tokens", "USD")
    assert (GPU.kind, GPU.currency) == ("hourly", "EUR")
    assert Price(input_per_mtok=0, output_per_mtok=0).kind == "tokens"  # free is a price


@pytest.mark.parametrize(
    "fields, message",
    [
        pytest.param({"input_per_mtok": -1.0, "output_per_mtok": 1.0}, "input_per_mtok must be a non-negative number", id="negative-input"),
        pytest.param({"per_hour": -2.0}, "per_hour must be a non-negative number", id="negative-hourly"),
        pytest.param({"per_hour": math.inf}, "per_hour must be a non-negative number", id="infinite"),
        pytest.param({"per_hour": math.nan}, "per_hour must be a non-negative number", id="nan"),
        pytest.param({"input_per_mtok": 1.0, "output_per_mtok": 2.0, "per_hour": 3.0}, "not both", id="both-kinds"),
        pytest.param({"output_per_mtok": 2.0, "per_hour": 3.0}, "not both", id="one-token-price-and-hourly"),
        pytest.param({}, "no price given", id="nothing"),
        pytest.param({"currency": "EUR"}, "no price given", id="currency-only"),
        pytest.param({"input_per_mtok": 1.0}, "input_per_mtok is set but output_per_mtok is not", id="half-tokens"),
        pytest.param({"per_hour": 1.0, "currency": " "}, "currency must be a non-empty label", id="blank-currency"),
    ],
)
def test_bad_prices_are_refused(fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Price(**fields)


def test_price_from_mapping_reads_prefixed_keys() -> None:
    table = {"kind": "ollama", "price_input_per_mtok": 1, "price_output_per_mtok": 2.5, "price_currency": "GBP"}
    assert price_from_mapping(table, prefix="price_") == Price(input_per_mtok=1.0, output_per_mtok=2.5, currency="GBP")
    assert price_from_mapping({"per_hour": 0.9}) == Price(per_hour=0.9)
    assert price_from_mapping({"kind": "ollama"}, prefix="price_") is None


@pytest.mark.parametrize(
    "table, message",
    [
        pytest.param({"price_per_hour": "ten"}, "price_per_hour must be a number, not 'ten'", id="string"),
        pytest.param({"price_per_hour": True}, "price_per_hour must be a number, not True", id="bool"),
        pytest.param({"price_per_hour": -1}, "price_per_hour must be a non-negative number", id="negative"),
        pytest.param({"price_per_hour": 1, "price_currency": 5}, "price_currency must be a string", id="currency-number"),
        pytest.param(
            {"price_per_hour": 1, "price_input_per_mtok": 1},
            "price_input_per_mtok and price_output_per_mtok.*or price_per_hour, not both",
            id="both",
        ),
        pytest.param({"price_currency": "USD"}, "no price given: set price_input_per_mtok", id="nothing"),
    ],
)
def test_price_from_mapping_names_the_key_as_written(table: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        price_from_mapping(table, prefix="price_")


# -- summaries ------------------------------------------------------------------------------------


def test_token_summary_by_hand() -> None:
    tasks = [
        CostInput("a", 1_000, 200, 500.0, passed=True, chars_accepted=40),  # 1000×3 + 200×15 = 6000 → 0.006
        CostInput("b", 3_000, 0, 100.0, passed=False),  # 3000×3 = 9000 → 0.009
        CostInput("c", 0, 1_000, 900.0, passed=True, chars_accepted=20),  # 1000×15 = 15000 → 0.015
    ]
    summary = summarise_cost(TOKENS, tasks)
    assert (summary.currency, summary.kind, summary.tasks, summary.passing, summary.chars_accepted) == ("USD", "tokens", 3, 2, 60)
    assert summary.total == pytest.approx(0.030)  # 0.006 + 0.009 + 0.015
    assert summary.per_task == pytest.approx(0.010)  # 0.030 / 3
    assert summary.per_passing == pytest.approx(0.015)  # 0.030 / 2
    assert summary.per_accepted_char == pytest.approx(0.0005)  # 0.030 / 60
    assert task_cost(TOKENS, tasks[2]) == pytest.approx(0.015)


def test_hourly_summary_by_hand() -> None:
    tasks = [
        CostInput("a", None, None, 1_800.0, passed=True, chars_accepted=10),  # 1.8 s × 2 / 3600 = 0.001
        CostInput("b", None, None, 5_400.0, passed=False),  # 5.4 s × 2 / 3600 = 0.003
    ]
    summary = summarise_cost(GPU, tasks)
    assert (summary.currency, summary.kind) == ("EUR", "hourly")
    assert summary.total == pytest.approx(0.004)
    assert summary.per_task == pytest.approx(0.002)
    assert summary.per_passing == pytest.approx(0.004)  # one passing completion bought it all
    assert summary.per_accepted_char == pytest.approx(0.0004)  # 0.004 / 10


def test_nothing_bought_gives_none_not_infinity() -> None:
    tasks = [CostInput("a", None, None, 3_600.0, passed=False), CostInput("b", None, None, 0.0, passed=False)]
    summary = summarise_cost(GPU, tasks)
    assert summary.total == pytest.approx(0.002)  # 3.6 s × 2 / 3600
    assert (summary.passing, summary.per_passing, summary.chars_accepted, summary.per_accepted_char) == (0, None, 0, None)
    empty = summarise_cost(TOKENS, [])
    assert (empty.tasks, empty.total, empty.per_task, empty.per_passing, empty.per_accepted_char) == (0, 0, None, None, None)


def test_passing_without_accepted_characters() -> None:
    summary = summarise_cost(GPU, [CostInput("a", None, None, 1_800.0, passed=True)])  # 0.001
    assert summary.per_passing == pytest.approx(0.001)
    assert summary.per_accepted_char is None


def test_a_task_without_the_figure_its_price_needs_is_named() -> None:
    with pytest.raises(ValueError, match="task 'b': token prices need"):
        summarise_cost(TOKENS, [CostInput("a", 1, 1, None, True), CostInput("b", None, None, 200.0, False)])
    with pytest.raises(ValueError, match="task 'a': an hourly price needs"):
        summarise_cost(GPU, [CostInput("a", 10, 10, None, True)])
