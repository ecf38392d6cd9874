import pytest

from ordtree import InvariantError, Node, OrderedMap, check_tree, height_bound, render, tree_stats
from ordtree.node import (
    balance_factor,
    build_balanced,
    height,
    leftmost,
    rebalance,
    refresh,
    rightmost,
    rotate_left,
    rotate_right,
    size,
)


def chain(keys, side, augment=None):
    """Build an unbalanced chain by hand, refreshing metadata bottom-up."""
    nodes = [Node(k) for k in keys]
    for parent, child in zip(nodes, nodes[1:]):
        setattr(parent, side, child)
    for node in reversed(nodes):
        refresh(node, augment)
    return nodes[0]


def test_node_helpers_on_empty_and_leaf():
    leaf = Node("k", "v")
    assert height(None) == 0
    assert size(None) == 0
    assert height(leaf) == 1
    assert size(leaf) == 1
    assert balance_factor(leaf) == 0
    assert repr(leaf) == "Node('k', h=1, n=1)"


def test_rotations_preserve_order_and_update_metadata():
    root = chain([1, 2, 3], "right")
    assert balance_factor(root) == -2
    root = rotate_left(root)
    assert (root.key, root.left.key, root.right.key) == (2, 1, 3)
    assert (root.height, root.size) == (2, 3)
    assert root.left.height == 1 and root.left.size == 1
    root = rotate_right(root)
    assert (root.key, root.right.key, root.right.right.key) == (1, 2, 3)
    assert (root.height, root.size) == (3, 3)
    assert root.right.size == 2


@pytest.mark.parametrize(
    "keys, side, expected_root",
    [
        ([3, 2, 1], "left", 2),
        ([1, 2, 3], "right", 2),
    ],
)
def test_rebalance_single_rotation_cases(keys, side, expected_root):
    root = rebalance(chain(keys, side))
    assert root.key == expected_root
    assert check_tree(root) == 3


def test_rebalance_double_rotation_cases():
    # Left-right: 3 -> left 1 -> right 2
    top = Node(3)
    top.left = Node(1)
    top.left.right = Node(2)
    refresh(top.left.right)
    refresh(top.left)
    root = rebalance(top)
    assert (root.key, root.left.key, root.right.key) == (2, 1, 3)
    # Right-left: 1 -> right 3 -> left 2
    top = Node(1)
    top.right = Node(3)
    top.right.left = Node(2)
    refresh(top.right.left)
    refresh(top.right)
    root = rebalance(top)
    assert (root.key, root.left.key, root.right.key) == (2, 1, 3)
    assert check_tree(root) == 3


def test_rebalance_leaves_balanced_node_alone():
    root = build_balanced([(1, None), (2, None), (3, None)], 0, 3)
    assert rebalance(root) is root


def test_rebalance_applies_augment():
    total = lambda n: n.key + (n.left.aux if n.left else 0) + (n.right.aux if n.right else 0)  # noqa: E731
    root = chain([1, 2, 3], "right", total)
    assert root.aux == 6 and root.right.aux == 5
    root = rebalance(root, total)
    assert root.aux == 6
    assert root.left.aux == 1
    assert root.right.aux == 3


def test_leftmost_rightmost_and_build_balanced():
    pairs = [(k, k * 10) for k in range(1, 8)]
    root = build_balanced(pairs, 0, len(pairs))
    assert root.key == 4
    assert leftmost(root).key == 1
    assert rightmost(root).value == 70
    assert root.height == 3
    assert build_balanced(pairs, 3, 3) is None
    sub = build_balanced(pairs, 2, 5)
    assert (sub.key, sub.size) == (4, 3)


def test_check_tree_accepts_valid_tree():
    tree = OrderedMap.from_sorted((k, None) for k in range(31))
    assert check_tree(tree._root) == 31
    assert check_tree(None) == 0


def test_check_tree_detects_order_violation_on_left():
    root = build_balanced([(k, None) for k in range(7)], 0, 7)
    root.left.right.key = 10  # left subtree now holds a key above the root
    with pytest.raises(InvariantError) as info:
        check_tree(root)
    assert info.value.key == 10
    assert "not less than ancestor 3" in info.value.problem


def test_check_tree_detects_order_violation_on_right():
    root = build_balanced([(k, None) for k in range(7)], 0, 7)
    root.right.left.key = 3  # duplicate of the root key in the right subtree
    with pytest.raises(InvariantError, match="not greater than ancestor 3"):
        check_tree(root)


def test_check_tree_detects_stale_height_and_size():
    root = build_balanced([(k, None) for k in range(7)], 0, 7)
    root.right.height = 5
    with pytest.raises(InvariantError, match="height 5 != 2"):
        check_tree(root)
    root = build_balanced([(k, None) for k in range(7)], 0, 7)
    root.left.left.size = 2
    with pytest.raises(InvariantError, match="size 2 != 1"):
        check_tree(root)


def test_check_tree_detects_imbalance():
    root = chain([1, 2, 3], "right")
    with pytest.raises(InvariantError, match="differ by more than one") as info:
        check_tree(root)
    assert info.value.key == 1


def test_check_tree_detects_stale_augmentation():
    count = lambda n: n.size  # noqa: E731
    root = build_balanced([(k, None) for k in range(5)], 0, 5, count)
    assert check_tree(root, count) == 5
    root.left.aux = 99
    with pytest.raises(InvariantError, match="stale augmented value 99"):
        check_tree(root, count)
    # Without an augment function the aux field is not inspected.
    assert check_tree(root) == 5


def test_invariant_error_is_value_error():
    err = InvariantError(4, "broken")
    assert isinstance(err, ValueError)
    assert str(err) == "at key 4: broken"


def test_height_bound_values():
    assert height_bound(0) == 0
    assert height_bound(-3) == 0
    assert height_bound(1) == 1
    assert height_bound(2) == 2
    assert height_bound(4) == 3
    assert height_bound(7) == 4
    assert height_bound(1000) == 14


def test_tree_stats():
    assert tree_stats(None) == {"size": 0, "height": 0, "leaves": 0, "mean_depth": 0.0, "width": 0}
    root = build_balanced([(k, None) for k in range(7)], 0, 7)
    stats = tree_stats(root)
    assert stats == {"size": 7, "height": 3, "leaves": 4, "mean_depth": 17 / 7, "width": 4}
    stats = tree_stats(chain([1, 2, 3, 4], "left"))
    assert stats["height"] == 4
    assert stats["leaves"] == 1
    assert stats["width"] == 1
    assert stats["mean_depth"] == 2.5


def test_render_full_tree():
    root = build_balanced([(k, None) for k in range(1, 6)], 0, 5)
    expected = "\n".join(
        [
            "3",
            "├── 5",
            "│   └── 4",
            "└── 2",
            "    └── 1",
        ]
    )
    assert render(root) == expected


def test_render_depth_limit_and_formatter():
    root = build_balanced([(k, None) for k in range(1, 8)], 0, 7)
    text = render(root, max_depth=1, fmt=lambda k: f"<{k}>")
    assert text.splitlines() == ["<4>", "├── … (3 more)", "└── … (3 more)"]
    assert render(None) == "(empty)"
    two = render(root, max_depth=2)
    assert two.splitlines()[1:3] == ["├── 6", "│   ├── … (1 more)"]
    assert len(two.splitlines()) == 7
