"""Tallies of a short list of scores, printed line by line."""

SCORES = [72, 95, 61, 88, 95, 40, 77, 88, 95, 59]


def mean(values: list[int]) -> float:
    total = 0
    for value in values:
        total += value
    return total / len(values)


def mode(values: list[int]) -> int:
    counts: dict[int, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    best = max(counts.values())
    return min(value for value, count in counts.items() if count == best)


def grade(score: int) -> str:
    if score >= 90:
        return "A"
    if score >= 75:
        return "B"
    if score >= 60:
        return "C"
    return "F"


def histogram(values: list[int]) -> list[tuple[str, int]]:
    bins: dict[str, int] = {}
    for value in values:
        letter = grade(value)
        bins[letter] = bins.get(letter, 0) + 1
    return [(letter, bins.get(letter, 0)) for letter in "ABCF"]


def main() -> None:
    print(f"mean: {mean(SCORES):.1f}")
    print(f"mode: {mode(SCORES)}")
    for letter, count in histogram(SCORES):
        print(f"{letter}: {'#' * count}")


if __name__ == "__main__":
    main()
