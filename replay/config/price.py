"""A model's price, as ``models.toml`` gives it: token prices (per million prompt and answer
tokens) or a price per hour, in one currency. A configuration record: the reports compute costs
with it (``replay/reports/cost.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

PriceKind = Literal["tokens", "hourly"]

_TOKEN_FIELDS = ("input_per_mtok", "output_per_mtok")
_NUMBER_FIELDS = (*_TOKEN_FIELDS, "per_hour")
PRICE_FIELDS = (*_NUMBER_FIELDS, "currency")  # the names price_from_mapping reads, after its prefix


def _check_price(values: Mapping[str, float | None], currency: str, prefix: str) -> None:
    """Raise ValueError naming the offending field (``prefix`` + its name, so that a caller reading
    ``price_per_hour`` from a file gets its own key in the message)."""
    for field in _NUMBER_FIELDS:
        value = values[field]
        if value is not None and not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{prefix}{field} must be a non-negative number (got {value})")
    tokens = [f for f in _TOKEN_FIELDS if values[f] is not None]
    hourly = values["per_hour"] is not None
    if tokens and hourly:
        raise ValueError(
            f"give either token prices ({prefix}input_per_mtok and {prefix}output_per_mtok) or {prefix}per_hour, not both: "
            "a model is billed by the token or by the hour"
        )
    if not tokens and not hourly:
        raise ValueError(f"no price given: set {prefix}input_per_mtok and {prefix}output_per_mtok (per million tokens) or {prefix}per_hour")
    if len(tokens) == 1:
        missing = next(f for f in _TOKEN_FIELDS if f not in tokens)
        raise ValueError(f"{prefix}{tokens[0]} is set but {prefix}{missing} is not: give both token prices (0 for a free side)")
    if not currency.strip():
        raise ValueError(f"{prefix}currency must be a non-empty label such as 'USD'")


@dataclass(frozen=True, slots=True)
class Price:
    """A model's price: token prices (both sides) or a price per hour, never both, never neither.

    Invalid combinations raise ValueError at construction, so a Price that exists can be used
    without further checks.
    """

    input_per_mtok: float | None = None
    output_per_mtok: float | None = None
    per_hour: float | None = None
    currency: str = "USD"

    def __post_init__(self) -> None:
        _check_price(
            {"input_per_mtok": self.input_per_mtok, "output_per_mtok": self.output_per_mtok, "per_hour": self.per_hour},
            self.currency,
            "",
        )

    @property
    def kind(self) -> PriceKind:
        return "hourly" if self.per_hour is not None else "tokens"


def price_from_mapping(values: Mapping[str, object], *, prefix: str = "") -> Price | None:
    """The Price held in ``values`` under ``prefix`` + field name (e.g. a models.toml table with
    ``price_per_hour``), None when no such key is present; other keys are ignored.

    Errors are ValueErrors naming the key as written, so the caller can add where it was written.
    """
    keys = [prefix + field for field in PRICE_FIELDS]
    if not any(key in values for key in keys):
        return None
    numbers: dict[str, float | None] = {}
    for field in _NUMBER_FIELDS:
        value = values.get(prefix + field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError(f"{prefix}{field} must be a number, not {value!r}")
        numbers[field] = None if value is None else float(value)
    currency = values.get(prefix + "currency", "USD")
    if not isinstance(currency, str):
        raise ValueError(f"{prefix}currency must be a string such as 'USD', not {currency!r}")
    _check_price(numbers, currency, prefix)
    return Price(numbers["input_per_mtok"], numbers["output_per_mtok"], numbers["per_hour"], currency)
