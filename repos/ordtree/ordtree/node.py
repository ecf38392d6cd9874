"""Tree nodes and the low-level AVL primitives shared by every container.

All functions here operate on bare :class:`Node` objects and never know about
the container that owns them.  An optional ``augment`` callable computes the
per-node auxiliary value (``node.aux``) from the node and its children; it is
re-evaluated whenever a node is refreshed, so augmented data stays correct
through rotations.
"""

# A node is out of balance once its subtrees differ in height by more than this.
MAX_IMBALANCE = 1
# Height of an empty subtree; a leaf therefore has height 1.
EMPTY_HEIGHT = 0


class Node:
    """A single AVL node carrying a key, a value and cached subtree metadata."""

    __slots__ = ("key", "value", "left", "right", "height", "size", "aux")

    def __init__(self, key, value=None):
        self.key = key
        self.value = value
        self.left = None
        self.right = None
        self.height = 1
        self.size = 1
        self.aux = None

    def __repr__(self):
        return f"Node({self.key!r}, h={self.height}, n={self.size})"


def height(node):
    """Height of ``node``'s subtree (``EMPTY_HEIGHT`` for ``None``)."""
    return EMPTY_HEIGHT if node is None else node.height


def size(node):
    """Number of nodes in ``node``'s subtree (0 for ``None``)."""
    return 0 if node is None else node.size


def balance_factor(node):
    """Left height minus right height."""
    return height(node.left) - height(node.right)


def refresh(node, augment=None):
    """Recompute cached height, size and augmented value of ``node``."""
    left, right = node.left, node.right
    node.height = 1 + max(height(left), height(right))
    node.size = 1 + size(left) + size(right)
    if augment is not None:
        node.aux = augment(node)
    return node


def rotate_left(node, augment=None):
    """Rotate ``node`` left and return the new subtree root."""
    pivot = node.right
    node.right = pivot.left
    pivot.left = node
    refresh(node, augment)
    return refresh(pivot, augment)


def rotate_right(node, augment=None):
    """Rotate ``node`` right and return the new subtree root."""
    pivot = node.left
    node.left = pivot.right
    pivot.right = node
    refresh(node, augment)
    return refresh(pivot, augment)


def rebalance(node, augment=None):
    """Refresh ``node`` and restore the AVL property with at most two rotations."""
    refresh(node, augment)
    factor = balance_factor(node)
    if factor > MAX_IMBALANCE:
        # Left-right case: straighten the zig-zag before the main rotation.
        if balance_factor(node.left) < 0:
            node.left = rotate_left(node.left, augment)
        return rotate_right(node, augment)
    if factor < -MAX_IMBALANCE:
        if balance_factor(node.right) > 0:
            node.right = rotate_right(node.right, augment)
        return rotate_left(node, augment)
    return node


def leftmost(node):
    """Return the node with the smallest key in ``node``'s subtree."""
    while node.left is not None:
        node = node.left
    return node


def rightmost(node):
    """Return the node with the largest key in ``node``'s subtree."""
    while node.right is not None:
        node = node.right
    return node


def build_balanced(pairs, lo, hi, augment=None):
    """Build a perfectly balanced subtree from the sorted slice ``pairs[lo:hi]``.

    Taking the middle element as the root at every level yields heights that
    differ by at most one, so the result is a valid AVL tree without rotations.
    """
    if lo >= hi:
        return None
    mid = (lo + hi) // 2
    key, value = pairs[mid]
    node = Node(key, value)
    node.left = build_balanced(pairs, lo, mid, augment)
    node.right = build_balanced(pairs, mid + 1, hi, augment)
    return refresh(node, augment)
