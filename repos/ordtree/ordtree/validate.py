"""Structural invariant checks, statistics and text rendering for AVL trees."""

import math
from collections import deque

from .node import MAX_IMBALANCE, height, size

# Box-drawing connectors used by :func:`render`.
BRANCH = "├── "
LAST_BRANCH = "└── "
PIPE = "│   "
GAP = "    "
# The AVL height bound: h < 1.4405 * log2(n + 2) - 0.3277.
AVL_HEIGHT_FACTOR = 1.4405
AVL_HEIGHT_OFFSET = 0.3277


class InvariantError(ValueError):
    """Raised when a tree violates one of its structural invariants."""

    def __init__(self, key, problem):
        super().__init__(f"at key {key!r}: {problem}")
        self.key = key
        self.problem = problem


def check_tree(root, augment=None):
    """Validate the subtree under ``root`` and return its number of nodes.

    Checks, for every node: strict key ordering against all ancestors, the
    cached height and size, the AVL balance condition and, if ``augment`` is
    given, the cached augmented value.  Raises :class:`InvariantError` on the
    first violation found.
    """
    if root is None:
        return 0
    # Iterative post-order walk: (node, lower bound, upper bound, visited?).
    stack = [(root, None, None, False)]
    while stack:
        node, lo, hi, visited = stack.pop()
        if not visited:
            if lo is not None and not lo < node.key:
                raise InvariantError(node.key, f"not greater than ancestor {lo!r}")
            if hi is not None and not node.key < hi:
                raise InvariantError(node.key, f"not less than ancestor {hi!r}")
            stack.append((node, lo, hi, True))
            if node.right is not None:
                stack.append((node.right, node.key, hi, False))
            if node.left is not None:
                stack.append((node.left, lo, node.key, False))
            continue
        expected_height = 1 + max(height(node.left), height(node.right))
        if node.height != expected_height:
            raise InvariantError(node.key, f"height {node.height} != {expected_height}")
        expected_size = 1 + size(node.left) + size(node.right)
        if node.size != expected_size:
            raise InvariantError(node.key, f"size {node.size} != {expected_size}")
        if abs(height(node.left) - height(node.right)) > MAX_IMBALANCE:
            raise InvariantError(node.key, "subtree heights differ by more than one")
        if augment is not None and node.aux != augment(node):
            raise InvariantError(node.key, f"stale augmented value {node.aux!r}")
    return root.size


def height_bound(count):
    """Maximum height an AVL tree with ``count`` nodes may have."""
    if count <= 0:
        return 0
    return math.floor(AVL_HEIGHT_FACTOR * math.log2(count + 2) - AVL_HEIGHT_OFFSET)


def tree_stats(root):
    """Return a dict describing the shape of the tree under ``root``."""
    stats = {"size": 0, "height": 0, "leaves": 0, "mean_depth": 0.0, "width": 0}
    if root is None:
        return stats
    total_depth = 0
    queue = deque([(root, 1)])
    per_level = {}
    while queue:
        node, depth = queue.popleft()
        total_depth += depth
        per_level[depth] = per_level.get(depth, 0) + 1
        children = [c for c in (node.left, node.right) if c is not None]
        if not children:
            stats["leaves"] += 1
        for child in children:
            queue.append((child, depth + 1))
    stats["size"] = root.size
    stats["height"] = max(per_level)
    stats["mean_depth"] = total_depth / root.size
    stats["width"] = max(per_level.values())
    return stats


def render(root, max_depth=None, fmt=repr):
    """Draw the tree sideways, one key per line, right subtree listed first.

    Subtrees deeper than ``max_depth`` are abbreviated with an ellipsis.
    """
    if root is None:
        return "(empty)"
    lines = [fmt(root.key)]

    def walk(node, prefix, depth):
        children = [c for c in (node.right, node.left) if c is not None]
        for index, child in enumerate(children):
            last = index == len(children) - 1
            connector = LAST_BRANCH if last else BRANCH
            if max_depth is not None and depth >= max_depth:
                lines.append(f"{prefix}{connector}… ({child.size} more)")
                continue
            lines.append(f"{prefix}{connector}{fmt(child.key)}")
            walk(child, prefix + (GAP if last else PIPE), depth + 1)

    walk(root, "", 1)
    return "\n".join(lines)
