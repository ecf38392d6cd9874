"""What a repository defines, and which names a piece of code uses, with tree-sitter.

A :class:`Definition` is a name defined at module or class level — Python functions, classes,
methods, module and class variables and ``self.x`` attributes; Java types, methods, fields and
enum constants — with the line its name is on and the lines a prompt shows for it: a function
whole (up to ``MAX_LINES``), a class as an outline (its header and each member's first line), a
variable its statement. Local variables and parameters are no definitions: they are the edited
function's own business, and the document already holds them.

Names are identifiers as CrossCodeEval counts them (string literals and comments removed,
keywords left out), so the oracle strategy and the identifier-recall measure agree on what "a
name the answer uses" means.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from postprocess.syntax import parse

MAX_LINES = 40  # a longer function shows its first lines only
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRINGS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_COMMENTS = {"python": re.compile(r"#[^\n]*"), "java": re.compile(r"//[^\n]*|/\*[\s\S]*?\*/")}
_JAVA_KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double else enum extends final
    finally float for goto if implements import instanceof int interface long native new package private protected public
    return short static strictfp super switch synchronized this throw throws transient try void volatile while var record
    yield true false null""".split()
)
KEYWORDS = {"python": frozenset(keyword.kwlist) | {"self", "cls"}, "java": _JAVA_KEYWORDS}
_PY_IMPORT = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+(\([^)]*\)|[^\n]+)", re.MULTILINE)
_JAVA_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?[\w.]+\.(\w+)[ \t]*;", re.MULTILINE)
_JAVA_TYPES = {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"}


@dataclass(frozen=True, slots=True)
class Definition:
    name: str
    kind: str  # function, class, method, variable, attribute, field, constant
    path: str
    line: int  # 0-based line of the name
    lines: tuple[int, ...]  # what a prompt shows of it, in order


def names_in(code: str, language: str) -> list[str]:
    """The identifiers of ``code`` in order of appearance (repeats kept), without strings,
    comments and keywords."""
    code = _STRINGS.sub(" ", code)
    code = _COMMENTS[language].sub(" ", code) if language in _COMMENTS else code
    words = KEYWORDS.get(language, frozenset())
    return [w for w in _IDENTIFIER.findall(code) if w not in words]


def imported_names(code: str, language: str) -> list[str]:
    """The names a file imports by name (Python ``from m import a, b as c`` gives a and b; Java
    ``import p.Cls;`` gives Cls); whole-module and wildcard imports give none."""
    found: list[str] = []
    if language == "python":
        for match in _PY_IMPORT.finditer(code):
            for item in match.group(1).strip("()").split(","):
                name = item.split("#")[0].split()[:1]
                if name and name[0] != "*" and _IDENTIFIER.fullmatch(name[0]):
                    found.append(name[0])
    elif language == "java":
        found = [m.group(1) for m in _JAVA_IMPORT.finditer(code)]
    return found


def definitions(language: str, path: str, text: str) -> list[Definition]:
    """Every definition in one file (see the module docstring); none for other languages."""
    if language not in ("python", "java"):
        return []
    root = parse(text, language).root_node
    walk = _python if language == "python" else _java
    return list(walk(root, path, top=True))


def _span(node: Node, limit: int = MAX_LINES) -> tuple[int, ...]:
    first, last = node.start_point.row, node.end_point.row
    return tuple(range(first, min(last, first + limit - 1) + 1))


def _name_row(node: Node) -> int:
    name = node.child_by_field_name("name")
    return (name or node).start_point.row


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


# -- Python ---------------------------------------------------------------------------------------


def _python(parent: Node, path: str, top: bool) -> Iterator[Definition]:
    for child in parent.named_children:
        node = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if node is None:
            continue
        if node.type == "function_definition":
            kind = "function" if top else "method"
            yield Definition(_text(node.child_by_field_name("name")), kind, path, _name_row(node), _span(child))
            if not top:
                yield from _self_attributes(node, path)
        elif node.type == "class_definition":
            body = node.child_by_field_name("body")
            yield Definition(_text(node.child_by_field_name("name")), "class", path, _name_row(node), _outline(child, body))
            if body is not None:
                yield from _python(body, path, top=False)
        elif node.type == "expression_statement":
            for target in _assigned(node):
                yield Definition(_text(target), "variable", path, target.start_point.row, _span(node))


def _assigned(statement: Node) -> Iterator[Node]:
    """The plain names an assignment statement binds (``a = b = 1``, ``a, b = …``, ``a: int = 1``)."""
    for child in statement.named_children:
        expr: Node | None = child
        while expr is not None and expr.type in ("assignment", "augmented_assignment"):
            left = expr.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                yield left
            elif left is not None and left.type in ("pattern_list", "tuple_pattern"):
                yield from (n for n in left.named_children if n.type == "identifier")
            expr = expr.child_by_field_name("right")


def _self_attributes(method: Node, path: str) -> Iterator[Definition]:
    """``self.x = …`` in a method: the attribute ``x``, defined on that line."""
    stack = [method.child_by_field_name("body")]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.type == "assignment":
            left = node.child_by_field_name("left")
            if left is not None and left.type == "attribute" and _text(left.child_by_field_name("object")) == "self":
                attribute = left.child_by_field_name("attribute")
                if attribute is not None:
                    row = attribute.start_point.row
                    yield Definition(_text(attribute), "attribute", path, row, (row,))
        if node.type not in ("function_definition", "class_definition", "lambda"):
            stack.extend(node.named_children)


def _outline(node: Node, body: Node | None) -> tuple[int, ...]:
    """A class's header lines and the first line of each member (methods, nested classes,
    class variables, Java fields and enum constants)."""
    if body is None:
        return _span(node)
    rows = set(range(node.start_point.row, max(node.start_point.row, body.start_point.row - 1) + 1))
    rows.add(body.start_point.row if body.start_point.row == node.start_point.row else node.start_point.row)
    for member in body.named_children:
        target = member.child_by_field_name("definition") if member.type == "decorated_definition" else member
        if target is None or member.type in ("comment", "line_comment", "block_comment"):
            continue
        if member.type == "expression_statement" and member.named_children and member.named_children[0].type == "string":
            continue  # a docstring
        rows.add(_name_row(target))
    if body.end_point.row != node.start_point.row and _text(body).rstrip().endswith("}"):
        rows.add(body.end_point.row)  # Java's closing brace
    return tuple(sorted(rows))


# -- Java -------------------------------------------------------------------------------------------


def _java(parent: Node, path: str, top: bool) -> Iterator[Definition]:
    for node in parent.named_children:
        if node.type in _JAVA_TYPES:
            body = node.child_by_field_name("body")
            yield Definition(_text(node.child_by_field_name("name")), "class", path, _name_row(node), _outline(node, body))
            if body is not None:
                yield from _java(body, path, top=False)
                for inner in body.named_children:
                    if inner.type == "enum_body_declarations":
                        yield from _java(inner, path, top=False)
        elif node.type in ("method_declaration", "annotation_type_element_declaration"):
            yield Definition(_text(node.child_by_field_name("name")), "method", path, _name_row(node), _span(node))
        elif node.type in ("field_declaration", "constant_declaration"):
            for declarator in node.children_by_field_name("declarator"):
                yield Definition(_text(declarator.child_by_field_name("name")), "field", path, _name_row(declarator), _span(node))
        elif node.type == "enum_constant":
            row = _name_row(node)
            yield Definition(_text(node.child_by_field_name("name")), "constant", path, row, (row,))
