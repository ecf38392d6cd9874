"""Java marking: every construct on a small file with exact holes, what is skipped, and the
invariants every candidate on the bundled Java repositories must keep."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
from tree_sitter import Node

from replay.config.manifest import open_repository, project_root
from replay.core.records import Kind
from replay.marking import mark_repository
from replay.marking.candidates import Candidate
from replay.marking.java import JavaMarker, parser

JAVA_REPOS = ("btreemap", "sparsemat", "variates")

SOURCE = b"""package demo;

import java.util.List;

public class Sample {
    private final int limit;
    private int count;

    public Sample(int limit) {
        super();
        this.limit = limit;
        this.count = Math.max(0, limit - 1);
    }

    public int getLimit() {
        return limit;
    }

    public void setCount(int count) {
        this.count = count;
    }

    public int total(int[] weights, List<Integer> extra) {
        int total = 0;
        for (int i = 0; i < weights.length; i++) {
            // weights first
            total += weights[i];
        }
        for (int e : extra) {
            total += e * limit;
            count++;
        }
        while (total > limit * 10) {
            total -= limit;
        }
        do {
            total = total / 2 + 1;
        } while (total % 7 == 0);
        if (total > limit) {
            total = limit - total % limit;
        } else if (total < 0) {
            total = -total + count;
        } else {
            total = Math.abs(total - count);
        }
        if (count > 3)
            total += weights[0] * 2;
        return total;
    }

    public String label(int code) {
        String name;
        switch (code) {
            case 1:
                name = "one".toUpperCase();
                break;
            case 2: {
                name = String.valueOf(code * 2);
                break;
            }
            default:
                name = "other" + code;
        }
        int width = switch (code) {
            case 1 -> 3;
            default -> {
                int w = name.length() + limit;
                yield w * 2;
            }
        };
        Runnable r = () -> {
            if (width > 10) {
                System.out.println(width + name);
            }
        };
        r.run();
        return name + width; // the label
    }

    public Object wrapper() {
        return new Object() {
            @Override
            public String toString() {
                String s = "n=" + count;
                return s.trim();
            }
        };
    }

    static class Counter {
        private int hits;

        void hit(int by) {
            if (by > 0 && hits < Integer.MAX_VALUE) {
                hits = hits + by;
            }
        }
    }

    enum Mode {
        FAST, SLOW;

        int factor(int base) {
            int f = ordinal() + 1;
            return base * f;
        }
    }

    record Range(int lo, int hi) {
        Range {
            if (lo > hi) throw new IllegalArgumentException("empty range " + lo);
        }
    }

    interface Shape {
        double area();

        default double twice() {
            return area() * 2.0;
        }
    }

    public void unsupported() {
        throw new UnsupportedOperationException("later");
    }

    public static void main(String[] args) {
        for (String a : args) {
            System.out.println(a.length() + 1);
        }
    }

    static class SampleTest {
        void checks() {
            for (int i = 0; i < 3; i++) {
                assert i * 2 >= i + 0;
            }
        }
    }
}
"""


def candidates(source: bytes) -> list[Candidate]:
    return JavaMarker().candidates(parser().parse(source).root_node)


def holes(source: bytes) -> set[tuple[str, str, str]]:
    return {(c.kind.value, c.construct, source[c.start_byte : c.end_byte].decode()) for c in candidates(source)}


@pytest.mark.parametrize(
    "kind, construct, text",
    [
        ("infill", "if_condition", "total > limit"),
        ("infill", "if_condition", "total < 0"),  # an else-if is an if of its own
        ("infill", "if_condition", "by > 0 && hits < Integer.MAX_VALUE"),  # nested class
        ("infill", "if_condition", "lo > hi"),  # record compact constructor
        ("infill", "if_body", "total = limit - total % limit;"),
        ("infill", "if_body", "total = -total + count;"),
        ("infill", "if_body", "total += weights[0] * 2;"),  # no braces, own line
        ("infill", "else_body", "total = Math.abs(total - count);"),
        ("infill", "loop_body", "total += weights[i];"),  # for; the comment above stays
        ("infill", "loop_body", "total += e * limit;\n            count++;"),  # enhanced for
        ("infill", "loop_body", "total = total / 2 + 1;"),  # do
        ("infill", "case_body", 'name = "one".toUpperCase();\n                break;'),
        ("infill", "case_body", "name = String.valueOf(code * 2);\n                break;"),  # case 2: { ... }
        ("infill", "case_body", 'name = "other" + code;'),  # default:
        ("infill", "case_body", "int w = name.length() + limit;\n                yield w * 2;"),  # default -> { ... }
        ("infill", "statements", "this.count = Math.max(0, limit - 1);"),
        ("infill", "statements", "while (total > limit * 10) {\n            total -= limit;\n        }"),
        ("infill", "statements", 'String s = "n=" + count;\n                return s.trim();'),  # anonymous class
        ("infill", "statements", "int f = ordinal() + 1;"),  # enum method
        ("infill", "statements", "return area() * 2.0;"),  # interface default method
        ("completion", "constructor_rest", "this.limit = limit;\n        this.count = Math.max(0, limit - 1);"),
        ("completion", "method_rest", "if (count > 3)\n            total += weights[0] * 2;\n        return total;"),
        ("completion", "method_rest", "int f = ordinal() + 1;\n            return base * f;"),
        ("completion", "block_rest", "total += e * limit;\n            count++;"),
        ("completion", "block_rest", "int w = name.length() + limit;\n                yield w * 2;"),
        ("completion", "block_rest", "hits = hits + by;"),
    ],
    ids=lambda v: v[:30],
)
def test_construct_found(kind: str, construct: str, text: str) -> None:
    assert (kind, construct, text) in holes(SOURCE)


@pytest.mark.parametrize(
    "text, why",
    [
        ("return limit;", "getter"),
        ("this.count = count;", "setter"),
        ("this.limit = limit;", "lone field copy"),
        ("super();", "too small"),
        ("throw new UnsupportedOperationException(\"later\");", "placeholder"),
        ("total -= limit;", "too small"),
        ("return total;", "bare name"),
        ("System.out.println(a.length() + 1);", "main"),
        ("assert i * 2 >= i + 0;", "test class"),
        ("System.out.println(width + name);", "lambda body"),
        ("width > 10", "lambda body"),
    ],
    ids=lambda v: v[:30],
)
def test_skipped(text: str, why: str) -> None:
    assert text not in {t for _, _, t in holes(SOURCE)}, why


def test_shared_lines_and_unbraced_completions_are_skipped() -> None:
    found = holes(SOURCE)
    texts = {t for _, _, t in found}
    assert not any(t.endswith("return name + width;") for t in texts)  # a trailing comment shares the line
    assert ("completion", "block_rest", "total += weights[0] * 2;") not in found  # no braces: no block end
    assert not any("throw new IllegalArgumentException" in t and "if" not in t for t in texts)  # same line as `if`


def test_trivial_threshold_keeps_real_work() -> None:
    src = b"class A {\n    int x;\n    int f(int x, int[] w) {\n        this.x = x;\n        int total = 0;\n        for (int i = 0; i < w.length; i++) {\n            total += w[i];\n        }\n        for (int v : w) {\n            total += v;\n        }\n        return total;\n    }\n}\n"
    texts = {t for _, _, t in holes(src)}
    assert "total += w[i];" in texts
    assert "this.x = x;" not in texts and "int total = 0;" not in texts and "total += v;" not in texts
    assert "return total;" not in texts


def test_comments_stay_outside_holes() -> None:
    src = b"class A {\n    int f(int x) {\n        // explain\n        int y = g(x) + h(x);\n        // trailing note\n        return y * 2 + k(y);\n    }\n}\n"
    found = holes(src)
    assert ("infill", "statements", "int y = g(x) + h(x);\n        // trailing note\n        return y * 2 + k(y);") in found
    for _, _, text in found:
        assert not text.startswith("//") and not text.rstrip().endswith("note")


def test_non_ascii_offsets_are_bytes() -> None:
    src = "class A {\n    String f(String n) {\n        // café ☕\n        String s = \"héllo 🙂\" + n.trim();\n        return s + s.length();\n    }\n}\n".encode()
    assert ("completion", "method_rest", 'String s = "héllo 🙂" + n.trim();\n        return s + s.length();') in holes(src)


def test_deep_nesting_does_not_recurse() -> None:
    depth = 300
    body = "".join("    " * (i + 2) + f"if (x > {i}) {{\n" for i in range(depth))
    body += "    " * (depth + 2) + "x = x * 2 + g(x);\n"
    body += "".join("    " * (i + 2) + "}\n" for i in reversed(range(depth)))
    src = f"class Deep {{\n    void f(int x) {{\n{body}    }}\n}}\n".encode()
    tree = parser().parse(src)
    assert not tree.root_node.has_error
    found = holes(src)
    assert ("infill", "if_condition", f"x > {depth - 1}") in found
    assert ("infill", "if_body", "x = x * 2 + g(x);") in found


def test_deterministic() -> None:
    assert candidates(SOURCE) == candidates(SOURCE)
    assert candidates(SOURCE) == sorted(set(candidates(SOURCE)), key=lambda c: (c.start_byte, c.end_byte, c.kind.value))


# -- the bundled repositories ------------------------------------------------------------------


@cache
def bundled() -> list[tuple[str, bytes, Node, list[Candidate]]]:
    files = []
    for name in JAVA_REPOS:
        manifest = open_repository(project_root() / "repos" / name)
        for path in manifest.source_files():
            source = (manifest.root / path).read_bytes()
            tree = parser().parse(source)
            assert not tree.root_node.has_error, path
            files.append((f"{name}/{path}", source, tree.root_node, candidates(source)))
    return files


def comment_ranges(root: Node) -> list[tuple[int, int]]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.type in ("line_comment", "block_comment"):
            found.append((node.start_byte, node.end_byte))
        stack.extend(node.children)
    return found


_LOOPS = frozenset({"for_statement", "enhanced_for_statement", "while_statement", "do_statement"})
_RESTS = {"method_declaration": "method_rest", "constructor_declaration": "constructor_rest", "compact_constructor_declaration": "constructor_rest"}
_BRANCHES = {"consequence": "if_body", "alternative": "else_body"}


def field_of(node: Node) -> str | None:
    """The field under which ``node`` hangs from its parent (``consequence``, ``body``…)."""
    parent = node.parent
    for i, child in enumerate(parent.children):
        if child == node:
            return parent.field_name_for_child(i)
    return None


def nodes_by_boundary(root: Node) -> tuple[dict[int, list[Node]], dict[int, list[Node]]]:
    """Every named node by its start byte and by its end byte."""
    starts: dict[int, list[Node]] = {}
    ends: dict[int, list[Node]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        starts.setdefault(node.start_byte, []).append(node)
        ends.setdefault(node.end_byte, []).append(node)
        stack.extend(node.named_children)
    return starts, ends


def statements_of(holder: Node) -> list[Node]:
    """The statements of a block or case group: its named children but comments and labels."""
    return [n for n in holder.named_children if n.type not in ("line_comment", "block_comment", "switch_label")]


def run_constructs(first: Node, last: Node) -> set[str]:
    """What a hole from the start of statement ``first`` to the end of its sibling ``last`` can
    be, read from the tree alone: which statement list the two share and where they lie in it."""
    holder = first.parent
    if first == last and holder.type == "if_statement":  # a branch written without braces
        return {_BRANCHES[field]} if (field := field_of(first)) in _BRANCHES else set()
    if first == last and holder.type in _LOOPS:
        return {"loop_body"} if field_of(first) == "body" else set()
    if holder != last.parent:
        return set()
    stmts = statements_of(holder)
    i, j = stmts.index(first), stmts.index(last)
    owner, field = holder.parent, field_of(holder)
    if owner.type in _RESTS and field == "body":
        return ({"statements"} if j - i < 3 else set()) | ({_RESTS[owner.type]} if j == len(stmts) - 1 else set())
    if holder.type == "switch_block_statement_group" or owner.type == "switch_rule" or (
        owner.type == "switch_block_statement_group" and owner.named_children[-1] == holder and len(statements_of(owner)) == 1
    ):  # `case X:` statements, `case X -> { … }`, `case X: { … }`
        branch = "case_body"
    elif owner.type == "if_statement":
        branch = _BRANCHES.get(field or "")
    elif owner.type in _LOOPS and field == "body":
        branch = "loop_body"
    else:
        return set()
    whole = {branch} if branch and i == 0 and j == len(stmts) - 1 else set()
    return whole | ({"block_rest"} if j == len(stmts) - 1 else set())


def tree_constructs(start: int, end: int, starts: dict[int, list[Node]], ends: dict[int, list[Node]]) -> set[str]:
    """Every construct whose tree-sitter nodes begin exactly at ``start`` and end exactly at
    ``end``: the condition of an ``if``, or a run of sibling statements."""
    found = set()
    for first in starts.get(start, ()):
        parent = first.parent
        if parent is None:
            continue
        if first.end_byte == end and parent.type == "parenthesized_expression" and parent.parent.type == "if_statement" and field_of(parent) == "condition":
            found.add("if_condition")
        for last in ends.get(end, ()):
            if parent == last.parent:
                found |= run_constructs(first, last)
    return found


def test_bundled_candidates_keep_invariants() -> None:
    """Each hole is what it claims to be by the syntax tree itself, found independently of the
    marker: its bytes begin and end exactly on the nodes of that construct (an ``if``'s
    condition, all of a branch's statements, a rest that reaches its block's last statement…)."""
    sample = ("SOURCE", SOURCE, parser().parse(SOURCE).root_node, candidates(SOURCE))
    for path, source, root, cands in [sample, *bundled()]:
        comments = comment_ranges(root)
        starts, ends = nodes_by_boundary(root)
        for c in cands:
            where = f"{path}@{c.start_byte}:{c.construct}"
            hole = source[c.start_byte : c.end_byte]
            assert hole.strip(), where
            assert (c.kind is Kind.COMPLETION) == c.construct.endswith("_rest"), where
            assert c.construct in tree_constructs(c.start_byte, c.end_byte, starts, ends), where
            assert not any(s <= c.start_byte < e or s < c.end_byte <= e for s, e in comments), where
            if c.block:
                line_start = source.rfind(b"\n", 0, c.start_byte) + 1
                assert source[line_start : c.start_byte].strip() == b"", where
                line_end = source.find(b"\n", c.end_byte)
                assert source[c.end_byte : line_end].strip() == b"", where
            else:
                assert c.construct == "if_condition" and b"\n" not in hole, where


def test_bundled_construct_counts() -> None:
    counts = Counter((c.kind.value, c.construct) for _, _, _, cands in bundled() for c in cands)
    print("\nJava candidates on", ", ".join(JAVA_REPOS))
    for (kind, construct), n in sorted(counts.items()):
        print(f"  {kind:10} {construct:16} {n:5}")
    by_construct = Counter({construct: n for (_, construct), n in counts.items()})
    for construct in ("if_condition", "if_body", "else_body", "loop_body", "statements", "method_rest", "block_rest"):
        assert by_construct[construct] >= 15, construct


def test_mark_repository_end_to_end() -> None:
    manifest = open_repository(project_root() / "repos" / "btreemap")
    result = mark_repository(manifest, seed=0, per_kind=4)
    assert not result.skipped and result.files == len(manifest.source_files())
    assert {t.kind for t in result.tasks} == {Kind.INFILL, Kind.COMPLETION}
    assert len({t.id for t in result.tasks}) == len(result.tasks)
    for task in result.tasks:
        assert task.language == "java" and task.path.startswith("src/main/java/")
        source = (manifest.root / task.path).read_bytes()
        assert source[task.span.start_byte : task.span.end_byte].decode() == task.ground_truth
    again = mark_repository(manifest, seed=0, per_kind=4)
    assert [t.to_dict() for t in again.tasks] == [t.to_dict() for t in result.tasks]
