"""Small statistics helpers — café-grade numerics with a non-ASCII comment: π ≈ 3.14159."""

import math

SCALE = 100


def mean(values):
    """Arithmetic mean; raises on an empty sequence."""
    if not values:
        raise ValueError("mean of nothing")
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def clamp_scores(values, low, high):
    result = []
    for v in values:
        if v < low:
            result.append(low)
        elif v > high:
            result.append(high)
        else:
            result.append(v)
    return result


def spread(values):
    # population standard deviation, scaled to percent of the mean 🙂
    m = mean(values)
    squares = [(v - m) ** 2 for v in values]
    deviation = math.sqrt(sum(squares) / len(values))
    return round(SCALE * deviation / m, 2)


def histogram(values, width):
    counts = {}
    for v in values:
        bucket = int(v // width)
        counts[bucket] = counts.get(bucket, 0) + 1
    return [counts.get(b, 0) for b in range(max(counts) + 1)]
