"""ordtree — ordered containers on a size-augmented AVL tree.

Public entry points:

* :class:`OrderedMap` — sorted mapping with rank/select and range queries.
* :func:`merge_maps` — linear-time k-way merge of ordered maps.
* :class:`IntervalTree` — overlap and stabbing queries over closed intervals.
* :class:`SortedMultiset` — bag with count-weighted order statistics.
* :func:`check_tree`, :func:`tree_stats`, :func:`render` — diagnostics.
"""

from .intervals import Interval, IntervalTree, make_interval, parse_interval
from .multiset import SortedMultiset
from .node import Node
from .ordmap import OrderedMap, merge_maps
from .validate import InvariantError, check_tree, height_bound, render, tree_stats

__all__ = [
    "Interval",
    "IntervalTree",
    "InvariantError",
    "Node",
    "OrderedMap",
    "SortedMultiset",
    "check_tree",
    "height_bound",
    "make_interval",
    "merge_maps",
    "parse_interval",
    "render",
    "tree_stats",
]

__version__ = "0.3.1"
