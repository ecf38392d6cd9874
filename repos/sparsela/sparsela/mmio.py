"""Reading and writing the Matrix Market *coordinate* text format.

Only the ``matrix coordinate`` layout is handled; fields may be ``real``,
``integer`` or ``pattern`` and symmetry ``general``, ``symmetric`` or
``skew-symmetric``.  Files use 1-based indices → converted to 0-based here.
"""

import re

from .matrix import COOMatrix

BANNER = "%%MatrixMarket"
FIELDS = ("real", "integer", "pattern")
SYMMETRIES = ("general", "symmetric", "skew-symmetric")

_HEADER_RE = re.compile(r"^%%MatrixMarket\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", re.IGNORECASE)
_SIZE_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s*$")


class MatrixMarketError(ValueError):
    """Malformed Matrix Market input; ``line_number`` is 1-based when known."""

    def __init__(self, message, line_number=None):
        if line_number is not None:
            message = f"line {line_number}: {message}"
        super().__init__(message)
        self.line_number = line_number


def parse_header(line):
    """Validate the banner line and return ``(field, symmetry)``."""
    match = _HEADER_RE.match(line.strip())
    if match is None:
        raise MatrixMarketError("missing or malformed %%MatrixMarket banner", 1)
    obj, layout, fld, symmetry = (group.lower() for group in match.groups())
    if obj != "matrix":
        raise MatrixMarketError(f"unsupported object {obj!r}", 1)
    if layout != "coordinate":
        raise MatrixMarketError(f"unsupported layout {layout!r}; only 'coordinate' is handled", 1)
    if fld not in FIELDS:
        raise MatrixMarketError(f"unsupported field {fld!r}", 1)
    if symmetry not in SYMMETRIES:
        raise MatrixMarketError(f"unsupported symmetry {symmetry!r}", 1)
    return fld, symmetry


def _parse_value(token, fld, line_number):
    try:
        return int(token) if fld == "integer" else float(token)
    except ValueError:
        raise MatrixMarketError(f"bad {fld} value {token!r}", line_number) from None


def read_lines(lines):
    """Parse an iterable of text lines into a :class:`COOMatrix`."""
    numbered = enumerate(lines, start=1)
    first = next(numbered, None)
    if first is None:
        raise MatrixMarketError("empty input")
    fld, symmetry = parse_header(first[1])

    matrix = None
    declared = seen = 0
    for line_number, raw in numbered:
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if matrix is None:
            match = _SIZE_RE.match(line)
            if match is None:
                raise MatrixMarketError(f"expected 'rows cols entries', got {line!r}", line_number)
            n_rows, n_cols, declared = (int(g) for g in match.groups())
            matrix = COOMatrix((n_rows, n_cols))
            continue
        tokens = line.split()
        expected = 2 if fld == "pattern" else 3
        if len(tokens) != expected:
            raise MatrixMarketError(f"expected {expected} fields, got {len(tokens)}", line_number)
        try:
            i, j = int(tokens[0]) - 1, int(tokens[1]) - 1
        except ValueError:
            raise MatrixMarketError("indices must be integers", line_number) from None
        if not (0 <= i < matrix.n_rows and 0 <= j < matrix.n_cols):
            raise MatrixMarketError(f"entry ({i + 1}, {j + 1}) outside the declared size", line_number)
        value = 1 if fld == "pattern" else _parse_value(tokens[2], fld, line_number)
        if i == j and symmetry == "skew-symmetric":
            raise MatrixMarketError("skew-symmetric matrices have no diagonal entries", line_number)
        seen += 1
        matrix.append(i, j, value)
        if symmetry != "general" and i != j:
            # Only one triangle is stored; mirror the entry into the other one.
            mirrored = -value if symmetry == "skew-symmetric" else value
            matrix.append(j, i, mirrored)
    if matrix is None:
        raise MatrixMarketError("missing size line")
    if seen != declared:
        raise MatrixMarketError(f"declared {declared} entries but found {seen}")
    return matrix


def loads(text):
    """Parse a Matrix Market document held in a string."""
    return read_lines(text.splitlines())


def load(source):
    """Read from a path or from an open text file object."""
    if hasattr(source, "read"):
        return read_lines(source)
    with open(source, encoding="utf-8") as handle:
        return read_lines(handle)


def _format_value(value, fld):
    if fld == "integer":
        if value != int(value):
            raise ValueError(f"value {value!r} is not an integer")
        return str(int(value))
    return format(float(value), ".17g")


def dumps(matrix, field=None, symmetry="general", comment=None):
    """Serialise a sparse matrix to Matrix Market text.

    For ``symmetric`` output only the lower triangle (``i >= j``) is written and
    for ``skew-symmetric`` only the strict lower triangle; the matrix must
    actually have that symmetry.
    """
    coo = matrix.to_csr().to_coo()
    fld = field or ("integer" if all(type(v) is int for v in coo.data) else "real")
    if fld not in FIELDS:
        raise ValueError(f"unknown field {fld!r}")
    if symmetry not in SYMMETRIES:
        raise ValueError(f"unknown symmetry {symmetry!r}")
    if symmetry == "symmetric" and not coo.is_symmetric():
        raise ValueError("matrix is not symmetric")
    if symmetry == "skew-symmetric" and (coo + coo.transpose()).nnz != 0:
        raise ValueError("matrix is not skew-symmetric")

    entries = []
    for i, j, value in coo.triplets():
        if symmetry == "symmetric" and j > i:
            continue
        if symmetry == "skew-symmetric" and j >= i:
            continue
        if fld == "pattern":
            entries.append(f"{i + 1} {j + 1}")
        else:
            entries.append(f"{i + 1} {j + 1} {_format_value(value, fld)}")

    lines = [f"{BANNER} matrix coordinate {fld} {symmetry}"]
    if comment:
        lines.extend(f"% {text}" for text in comment.splitlines())
    lines.append(f"{coo.n_rows} {coo.n_cols} {len(entries)}")
    lines.extend(entries)
    return "\n".join(lines) + "\n"


def dump(matrix, target, **options):
    """Write to a path or an open text file object; options as for :func:`dumps`."""
    text = dumps(matrix, **options)
    if hasattr(target, "write"):
        target.write(text)
        return
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(text)
