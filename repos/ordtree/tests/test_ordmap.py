import random

import pytest

from ordtree import OrderedMap, merge_maps
from ordtree.validate import height_bound


def build(keys):
    tree = OrderedMap()
    for k in keys:
        tree[k] = str(k)
    return tree


def test_empty_map_basics():
    tree = OrderedMap()
    assert len(tree) == 0
    assert not tree
    assert list(tree) == []
    assert tree.get(3) is None
    assert tree.get(3, "x") == "x"
    assert 3 not in tree
    assert tree.check() == 0
    assert repr(tree) == "OrderedMap({})"


def test_insert_lookup_and_replace():
    tree = OrderedMap([(5, "a"), (2, "b"), (8, "c")])
    assert tree
    assert len(tree) == 3
    assert tree[2] == "b"
    tree[2] = "B"
    assert len(tree) == 3
    assert tree[2] == "B"
    assert list(tree) == [2, 5, 8]
    with pytest.raises(KeyError):
        tree[7]


@pytest.mark.parametrize(
    "keys",
    [
        list(range(64)),  # right-right chain
        list(range(64, 0, -1)),  # left-left chain
        [10, 5, 7],  # left-right zig-zag
        [10, 15, 12],  # right-left zig-zag
    ],
)
def test_insertion_keeps_avl_shape(keys):
    tree = build(keys)
    assert tree.check() == len(keys)
    assert tree._root.height <= height_bound(len(keys))
    assert list(tree) == sorted(keys)


def test_zigzag_rotations_pick_middle_root():
    assert build([10, 5, 7])._root.key == 7
    assert build([10, 15, 12])._root.key == 12
    assert build([1, 2, 3])._root.key == 2
    assert build([3, 2, 1])._root.key == 2


def test_random_operations_match_dict_model():
    rng = random.Random(1234)
    tree = OrderedMap()
    model = {}
    for step in range(1500):
        key = rng.randrange(200)
        if rng.random() < 0.6:
            tree[key] = step
            model[key] = step
        elif key in model:
            assert tree.pop(key) == model.pop(key)
        else:
            with pytest.raises(KeyError):
                del tree[key]
        if step % 100 == 0:
            tree.check()
    assert tree.check() == len(model)
    assert tree.items() == sorted(model.items())
    assert tree.values() == [model[k] for k in sorted(model)]
    assert tree.keys() == sorted(model)
    assert list(reversed(tree)) == sorted(model, reverse=True)


def test_delete_node_with_two_children_and_rebalance():
    tree = build(range(1, 16))  # perfect tree rooted at 8
    assert tree._root.key == 8
    del tree[8]
    assert tree._root.key == 9
    assert 8 not in tree
    tree.check()
    # Removing a whole side forces rotations on the way back up.
    for k in range(1, 8):
        del tree[k]
        tree.check()
    assert list(tree) == list(range(9, 16))
    assert tree._root.height == 3


def test_delete_nodes_with_single_child():
    tree = build([5, 3, 8, 1, 9])
    del tree[3]  # only a left child
    del tree[8]  # only a right child
    assert list(tree) == [1, 5, 9]
    assert tree.check() == 3
    del tree[1]
    del tree[9]
    del tree[5]
    assert not tree
    with pytest.raises(KeyError):
        del tree[5]


def test_delete_with_deep_successor_chain():
    tree = build([50, 20, 80, 10, 30, 70, 90, 60, 75, 95, 65])
    del tree[50]
    assert tree.check() == 10
    assert 60 in tree
    assert list(tree) == [10, 20, 30, 60, 65, 70, 75, 80, 90, 95]


def test_pop_popitem_setdefault_clear():
    tree = build([4, 1, 7])
    assert tree.pop(1) == "1"
    assert tree.pop(1, "gone") == "gone"
    assert tree.pop(1, None) is None
    with pytest.raises(KeyError):
        tree.pop(1)
    assert tree.setdefault(4, "z") == "4"
    assert tree.setdefault(9, "z") == "z"
    assert tree[9] == "z"
    assert tree.popitem() == (9, "z")
    assert tree.popitem(last=False) == (4, "4")
    assert len(tree) == 1
    tree.clear()
    assert len(tree) == 0
    with pytest.raises(KeyError):
        tree.popitem()


def test_from_sorted_builds_balanced_tree():
    pairs = [(i, i * i) for i in range(100)]
    tree = OrderedMap.from_sorted(pairs)
    assert tree.check() == 100
    assert tree._root.height == 7
    assert tree[9] == 81
    assert OrderedMap.from_sorted([]).check() == 0


def test_from_sorted_rejects_bad_input():
    with pytest.raises(ValueError, match="not sorted"):
        OrderedMap.from_sorted([(1, "a"), (3, "b"), (2, "c")])
    with pytest.raises(ValueError, match="duplicate"):
        OrderedMap.from_sorted([(1, "a"), (1, "b")])
    tree = OrderedMap.from_sorted([(1, "a"), (1, "b"), (2, "c"), (2, "d")], strict=False)
    assert tree.items() == [(1, "b"), (2, "d")]


def test_copy_is_independent_and_equal():
    tree = build(range(10))
    clone = tree.copy()
    assert clone == tree
    assert clone._root is not tree._root
    del clone[3]
    assert 3 in tree
    assert clone != tree


def test_update_accepts_mapping_pairs_and_kwargs():
    tree = OrderedMap()
    tree.update({"b": 2, "a": 1})
    tree.update([("c", 3)], d=4)
    assert tree.items() == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]


def test_equality_with_dicts_and_other_types():
    tree = OrderedMap({1: "x", 2: "y"})
    assert tree == {2: "y", 1: "x"}
    assert tree != {1: "x", 2: "z"}
    assert tree != {1: "x", 3: "y"}
    assert tree != {1: "x"}
    assert tree != OrderedMap({1: "x"})
    assert tree != [(1, "x"), (2, "y")]
    assert tree == OrderedMap({2: "y", 1: "x"})


def test_repr_truncates_long_maps():
    assert repr(OrderedMap({2: "b", 1: "a"})) == "OrderedMap({1: 'a', 2: 'b'})"
    text = repr(build(range(12)))
    assert text.startswith("OrderedMap({0: '0', 1: '1'")
    assert "7: '7'" in text
    assert "8: '8'" not in text
    assert text.endswith("… +4 more})")
    assert "more" not in repr(build(range(8)))


def test_min_max_keys():
    tree = build([5, 1, 9, 3])
    assert tree.min_key() == 1
    assert tree.max_key() == 9
    with pytest.raises(KeyError):
        OrderedMap().min_key()
    with pytest.raises(KeyError):
        OrderedMap().max_key()


def _brute_range(keys, lo, hi, lo_incl, hi_incl):
    out = []
    for k in keys:
        if lo is not None and (k < lo or (k == lo and not lo_incl)):
            continue
        if hi is not None and (k > hi or (k == hi and not hi_incl)):
            continue
        out.append(k)
    return out


def test_irange_matches_brute_force():
    keys = list(range(0, 60, 3))
    tree = build(keys)
    bounds = [None, -5, 0, 7, 9, 30, 57, 58, 100]
    for lo in bounds:
        for hi in bounds:
            for incl in [(True, True), (True, False), (False, True), (False, False)]:
                expected = _brute_range(keys, lo, hi, *incl)
                assert list(tree.irange(lo, hi, incl)) == expected
                assert list(tree.irange(lo, hi, incl, reverse=True)) == expected[::-1]


def test_irange_items_and_defaults():
    tree = build([1, 2, 3, 4, 5])
    assert list(tree.irange_items(2, 4)) == [(2, "2"), (3, "3"), (4, "4")]
    assert list(tree.irange_items(hi=2, reverse=True)) == [(2, "2"), (1, "1")]
    assert list(tree.irange(lo=4)) == [4, 5]
    assert list(tree.irange(3, 3, (False, True))) == []


def test_floor_ceiling_predecessor_successor():
    keys = [10, 20, 30, 40, 50, 60, 70]
    tree = build(keys)
    for probe in range(5, 80):
        below_eq = [k for k in keys if k <= probe]
        above_eq = [k for k in keys if k >= probe]
        below = [k for k in keys if k < probe]
        above = [k for k in keys if k > probe]
        assert tree.floor(probe, None) == (below_eq[-1] if below_eq else None)
        assert tree.ceiling(probe, None) == (above_eq[0] if above_eq else None)
        assert tree.predecessor(probe, None) == (below[-1] if below else None)
        assert tree.successor(probe, None) == (above[0] if above else None)


def test_bound_queries_raise_without_default():
    tree = build([10, 20])
    with pytest.raises(KeyError):
        tree.floor(5)
    with pytest.raises(KeyError):
        tree.ceiling(25)
    with pytest.raises(KeyError):
        tree.predecessor(10)
    with pytest.raises(KeyError):
        tree.successor(20)
    assert tree.predecessor(20) == 10
    assert tree.successor(10) == 20
    assert tree.floor(10) == 10
    assert tree.ceiling(20) == 20


def test_rank_and_select_are_inverse():
    rng = random.Random(7)
    keys = sorted(rng.sample(range(1000), 150))
    tree = build(keys)
    for i, k in enumerate(keys):
        assert tree.rank(k) == i
        assert tree.select(i) == k
        assert tree.select(i - len(keys)) == k
    assert tree.rank(-1) == 0
    assert tree.rank(10_000) == 150
    assert tree.rank(keys[5] + 0.5) == 6
    assert tree.select_item(-1) == (keys[-1], str(keys[-1]))


def test_select_out_of_range():
    tree = build([1, 2, 3])
    with pytest.raises(IndexError):
        tree.select(3)
    with pytest.raises(IndexError):
        tree.select(-4)
    with pytest.raises(IndexError):
        OrderedMap().select(0)


def test_count_range():
    keys = list(range(0, 100, 5))
    tree = build(keys)
    for lo, hi in [(0, 95), (3, 12), (5, 5), (6, 9), (-10, 200), (50, 10)]:
        for incl in [(True, True), (True, False), (False, True), (False, False)]:
            expected = len(_brute_range(keys, lo, hi, *incl)) if lo <= hi else 0
            assert tree.count_range(lo, hi, incl) == expected, (lo, hi, incl)


def test_merge_maps_last_value_wins_and_combine():
    a = OrderedMap({1: 1, 3: 3, 5: 5})
    b = OrderedMap({2: 20, 3: 30})
    c = OrderedMap({3: 300, 6: 600})
    merged = merge_maps(a, b, c)
    assert merged.items() == [(1, 1), (2, 20), (3, 300), (5, 5), (6, 600)]
    assert merged.check() == 5
    summed = merge_maps(a, b, c, combine=lambda x, y: x + y)
    assert summed[3] == 333
    assert summed[1] == 1
    assert merge_maps().items() == []


def test_merge_maps_into_subclass_and_type_check():
    class Tagged(OrderedMap):
        pass

    merged = merge_maps(OrderedMap({1: "a"}), OrderedMap({2: "b"}), into=Tagged)
    assert type(merged) is Tagged
    assert merged.items() == [(1, "a"), (2, "b")]
    with pytest.raises(TypeError):
        merge_maps(OrderedMap(), into=dict)
    with pytest.raises(TypeError):
        merge_maps(OrderedMap(), into="OrderedMap")


def test_string_keys_and_unicode_values():
    tree = OrderedMap({"pear": "poire", "apple": "pomme", "cherry": "cerise", "eel": "anguille é"})
    assert tree.floor("banana") == "apple"
    assert tree.ceiling("banana") == "cherry"
    assert list(tree.irange("b", "e")) == ["cherry"]
    assert tree["eel"].endswith("é")
