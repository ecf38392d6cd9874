import random

import pytest

from ordtree import Interval, IntervalTree, SortedMultiset, make_interval, parse_interval
from ordtree.validate import InvariantError


# ----------------------------------------------------------------------
# intervals
# ----------------------------------------------------------------------
def sample_tree():
    tree = IntervalTree()
    for lo, hi, name in [(1, 3, "a"), (2, 8, "b"), (5, 6, "c"), (10, 12, "d"), (11, 20, "e"), (15, 16, "f")]:
        tree.add(lo, hi, name)
    return tree


def test_interval_helpers():
    iv = Interval(2, 5)
    assert iv.length == 3
    assert iv.contains(2) and iv.contains(5)
    assert not iv.contains(5.5)
    assert iv.overlaps(5, 9)
    assert iv.overlaps(0, 2)
    assert not iv.overlaps(6, 9)
    assert not iv.overlaps(0, 1)


def test_make_and_parse_interval():
    assert make_interval(3, 3) == Interval(3, 3)
    with pytest.raises(ValueError, match="reversed"):
        make_interval(4, 1)
    assert parse_interval("[1, 5]") == Interval(1, 5)
    assert parse_interval(" [ -2.5 ,3 ] ") == Interval(-2.5, 3)
    assert parse_interval("2..7") == Interval(2, 7)
    assert parse_interval("3 - 4") == Interval(3, 4)
    assert isinstance(parse_interval("1..2").lo, int)
    assert isinstance(parse_interval("1.0..2").lo, float)
    for bad in ["", "[1 5]", "1..", "a..b", "[1, 2"]:
        with pytest.raises(ValueError, match="cannot parse"):
            parse_interval(bad)
    with pytest.raises(ValueError, match="reversed"):
        parse_interval("[9, 1]")


def test_interval_tree_setitem_coerces_and_validates():
    tree = IntervalTree()
    tree[(4, 9)] = "x"
    tree[Interval(1, 2)] = "y"
    assert tree.items() == [(Interval(1, 2), "y"), (Interval(4, 9), "x")]
    assert isinstance(tree.min_key(), Interval)
    tree["[0, 0.5]"] = "s"
    assert tree.min_key() == Interval(0, 0.5)
    with pytest.raises(ValueError):
        tree[(9, 4)] = "bad"
    with pytest.raises(ValueError):
        tree[Interval(9, 4)] = "bad"
    with pytest.raises(ValueError):
        tree["4..1"] = "bad"
    assert len(tree) == 3
    del tree[Interval(0, 0.5)]
    tree.add(4, 9, "z")
    assert len(tree) == 2
    assert tree[Interval(4, 9)] == "z"


def test_overlapping_and_stab():
    tree = sample_tree()
    assert tree.check() == 6
    names = lambda pairs: [v for _, v in pairs]  # noqa: E731
    assert names(tree.overlapping(4, 5)) == ["b", "c"]
    assert names(tree.overlapping(8, 10)) == ["b", "d"]
    assert names(tree.overlapping(0, 100)) == list("abcdef")
    assert tree.overlapping(9, 9.5) == []
    assert tree.overlapping(21, 30) == []
    assert tree.overlapping(-5, 0) == []
    assert tree.stab(3) == [Interval(1, 3), Interval(2, 8)]
    assert tree.stab(15.5) == [Interval(11, 20), Interval(15, 16)]
    assert names(tree.overlapping(12)) == ["d", "e"]
    with pytest.raises(ValueError, match="reversed query"):
        tree.overlapping(5, 1)
    assert IntervalTree().overlapping(1, 2) == []


def test_overlapping_matches_brute_force_after_random_edits():
    rng = random.Random(99)
    tree = IntervalTree()
    live = {}
    for step in range(400):
        lo = rng.randrange(100)
        hi = lo + rng.randrange(15)
        if live and rng.random() < 0.3:
            victim = rng.choice(sorted(live))
            del tree[victim]
            del live[victim]
        else:
            tree.add(lo, hi, step)
            live[Interval(lo, hi)] = step
    assert tree.check() == len(live)
    for qlo in range(-5, 120, 7):
        for width in (0, 3, 11):
            qhi = qlo + width
            expected = sorted((iv, v) for iv, v in live.items() if iv.lo <= qhi and qlo <= iv.hi)
            assert tree.overlapping(qlo, qhi) == expected
    assert tree.span() == Interval(min(iv.lo for iv in live), max(iv.hi for iv in live))


def test_augmentation_survives_deletions():
    tree = sample_tree()
    del tree[Interval(11, 20)]
    assert tree.check() == 5
    assert tree.span() == Interval(1, 16)
    assert tree.stab(18) == []
    tree._root.aux = -1
    with pytest.raises(InvariantError):
        tree.check()


def test_span_union_coverage():
    tree = sample_tree()
    assert tree.span() == Interval(1, 20)
    assert tree.union() == [Interval(1, 8), Interval(10, 20)]
    assert tree.coverage() == 17
    tree.add(8, 10)
    assert tree.union() == [Interval(1, 20)]
    with pytest.raises(ValueError):
        IntervalTree().span()
    assert IntervalTree().union() == []
    assert IntervalTree().coverage() == 0


def test_max_overlap():
    tree = sample_tree()
    assert tree.max_overlap() == (2, 2)
    tree.add(5, 5.5)
    tree.add(4, 7)
    assert tree.max_overlap() == (4, 5)
    assert IntervalTree().max_overlap() == (0, None)
    touching = IntervalTree()
    touching.add(1, 2)
    touching.add(2, 3)
    touching.add(3, 4)
    assert touching.max_overlap() == (2, 2)


# ----------------------------------------------------------------------
# multiset
# ----------------------------------------------------------------------
def test_multiset_construction_and_iteration():
    bag = SortedMultiset([5, 1, 3, 1, 5, 5])
    assert len(bag) == 6
    assert list(bag) == [1, 1, 3, 5, 5, 5]
    assert bag.distinct() == [1, 3, 5]
    assert bag.items() == [(1, 2), (3, 1), (5, 3)]
    assert bag.count(5) == 3
    assert bag.count(4) == 0
    assert 3 in bag and 4 not in bag
    assert bag.check() == 3
    assert repr(bag) == "SortedMultiset([1, 1, 3, 5, 5, 5])"
    empty = SortedMultiset()
    assert len(empty) == 0
    assert list(empty) == []


def test_multiset_add_remove_discard():
    bag = SortedMultiset("abca")
    bag.add("b", 3)
    bag.add("z", 0)
    assert "z" not in bag
    assert bag.count("b") == 4
    with pytest.raises(ValueError):
        bag.add("b", -1)
    bag.remove("a")
    assert bag.count("a") == 1
    bag.remove("b", 4)
    assert "b" not in bag
    with pytest.raises(KeyError):
        bag.remove("b")
    with pytest.raises(ValueError, match="only 1"):
        bag.remove("c", 2)
    assert bag.discard("c", 5) == 1
    assert bag.discard("c") == 0
    assert bag.discard("q") == 0
    assert list(bag) == ["a"]
    assert len(bag) == 1


def test_multiset_rank_select_count_range():
    bag = SortedMultiset([2, 2, 2, 4, 4, 7, 9, 9, 9, 9])
    expanded = list(bag)
    for i, value in enumerate(expanded):
        assert bag.select(i) == value
        assert bag.select(i - len(expanded)) == value
    assert [bag.rank(x) for x in (1, 2, 3, 4, 7, 9, 10)] == [0, 0, 3, 3, 5, 6, 10]
    assert [bag.rank(x, inclusive=True) for x in (1, 2, 3, 4, 7, 9, 10)] == [0, 3, 3, 5, 6, 10, 10]
    assert bag.count_range(2, 4) == 5
    assert bag.count_range(3, 8) == 3
    assert bag.count_range(9, 9) == 4
    assert bag.count_range(8, 3) == 0
    with pytest.raises(IndexError):
        bag.select(10)
    with pytest.raises(IndexError):
        bag.select(-11)


def test_multiset_random_against_sorted_list():
    rng = random.Random(2024)
    bag = SortedMultiset()
    model = []
    for _ in range(600):
        x = rng.randrange(40)
        if model and rng.random() < 0.35:
            y = rng.choice(model)
            bag.remove(y)
            model.remove(y)
        else:
            copies = rng.randrange(1, 3)
            bag.add(x, copies)
            model.extend([x] * copies)
            model.sort()
    assert bag.check() == len(set(model))
    assert list(bag) == model
    for probe in range(0, 41, 3):
        assert bag.rank(probe) == sum(1 for v in model if v < probe)
    assert bag.select(len(model) // 2) == model[len(model) // 2]


def test_multiset_quantiles():
    bag = SortedMultiset([1, 2, 3, 4])
    assert bag.median() == 2.5
    assert bag.quantile(0) == 1
    assert bag.quantile(1) == 4
    assert bag.quantile(0.25) == pytest.approx(1.75)
    assert SortedMultiset([7, 3, 5]).median() == 5
    with pytest.raises(ValueError, match="within"):
        bag.quantile(1.5)
    with pytest.raises(ValueError, match="within"):
        bag.quantile(-0.1)
    with pytest.raises(ValueError, match="empty"):
        SortedMultiset().median()


def test_multiset_most_common_and_histogram():
    bag = SortedMultiset([3, 1, 3, 2, 2, 5, 3])
    assert bag.most_common() == [(3, 3), (2, 2), (1, 1), (5, 1)]
    assert bag.most_common(2) == [(3, 3), (2, 2)]
    assert bag.most_common(3) == [(3, 3), (2, 2), (1, 1)]
    assert bag.histogram([2, 4]) == [1, 5, 1]
    assert bag.histogram([]) == [7]
    assert bag.histogram(edge for edge in (2, 4)) == [1, 5, 1]
    assert bag.histogram([0, 1, 3, 10]) == [0, 0, 3, 4, 0]
    with pytest.raises(ValueError, match="strictly increasing"):
        bag.histogram([1, 1])
    with pytest.raises(ValueError):
        bag.histogram([5, 2])


def test_multiset_sum_and_intersection():
    a = SortedMultiset("aabc")
    b = SortedMultiset("abbd")
    total = a + b
    assert total.items() == [("a", 3), ("b", 3), ("c", 1), ("d", 1)]
    assert len(total) == 8
    assert total.check() == 4
    assert total.rank("c") == 6
    common = a & b
    assert common.items() == [("a", 1), ("b", 1)]
    assert len(common) == 2
    assert common.select(1) == "b"
    assert (a & SortedMultiset()) == SortedMultiset()
    assert a == SortedMultiset("baca")
    assert a != b
    assert a != "aabc"
    with pytest.raises(TypeError):
        a + [1]
    with pytest.raises(TypeError):
        a & [1]


def test_multiset_check_rejects_non_positive_counts():
    bag = SortedMultiset([1, 2, 3])
    bag._counts._find(2).value = 0
    with pytest.raises(ValueError, match="non-positive"):
        bag.check()
