import io

import pytest

from sparsela import COOMatrix, MatrixMarketError, diags, dump, dumps, load, loads
from sparsela.mmio import parse_header

GENERAL = """%%MatrixMarket matrix coordinate real general
% a comment line

%  another one
3 4 4
1 1 1.5
3 4 -2e-3
2 2 7
1 1 0.5
"""


def test_parse_header_is_case_insensitive():
    assert parse_header("%%MatrixMarket MATRIX Coordinate Integer Symmetric\n") == ("integer", "symmetric")


@pytest.mark.parametrize(
    "header, message",
    [
        ("%MatrixMarket matrix coordinate real general", "banner"),
        ("%%MatrixMarket matrix coordinate real", "banner"),
        ("%%MatrixMarket vector coordinate real general", "object"),
        ("%%MatrixMarket matrix array real general", "layout"),
        ("%%MatrixMarket matrix coordinate complex general", "field"),
        ("%%MatrixMarket matrix coordinate real hermitian", "symmetry"),
    ],
)
def test_parse_header_errors(header, message):
    with pytest.raises(MatrixMarketError, match=message) as info:
        parse_header(header)
    assert info.value.line_number == 1
    assert str(info.value).startswith("line 1: ")


def test_read_general_sums_duplicates():
    m = loads(GENERAL)
    assert m.shape == (3, 4)
    assert m.nnz == 4
    dense = m.to_dense()
    assert dense[0][0] == 2.0
    assert dense[2][3] == -0.002
    assert dense[1][1] == 7.0
    assert isinstance(m.data[2], float)


def test_read_integer_symmetric_mirrors_entries():
    text = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n3 1 -2\n2 2 5\n"
    m = loads(text)
    assert m.to_dense() == [[4, 0, -2], [0, 5, 0], [-2, 0, 0]]
    assert all(type(v) is int for v in m.data)
    assert m.nnz == 4


def test_read_skew_symmetric_and_pattern():
    skew = loads("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3.0\n")
    assert skew.to_dense() == [[0.0, -3.0], [3.0, 0.0]]
    pattern = loads("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n")
    assert pattern.to_dense() == [[0, 0, 1], [1, 0, 0]]
    with pytest.raises(MatrixMarketError, match="line 3: skew-symmetric"):
        loads("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 3.0\n")


@pytest.mark.parametrize(
    "body, message",
    [
        ("", "missing size line"),
        ("% only comments\n", "missing size line"),
        ("2 2\n", "line 2: expected 'rows cols entries'"),
        ("2 2 1\n1 1\n", "line 3: expected 3 fields, got 2"),
        ("2 2 1\n1 1 1 1\n", "expected 3 fields, got 4"),
        ("2 2 1\na 1 1.0\n", "indices must be integers"),
        ("2 2 1\n3 1 1.0\n", r"entry \(3, 1\) outside"),
        ("2 2 1\n1 0 1.0\n", r"entry \(1, 0\) outside"),
        ("2 2 1\n1 1 x\n", "bad real value 'x'"),
        ("2 2 2\n1 1 1.0\n", "declared 2 entries but found 1"),
        ("2 2 1\n1 1 1.0\n2 2 1.0\n", "declared 1 entries but found 2"),
    ],
)
def test_read_errors(body, message):
    with pytest.raises(MatrixMarketError, match=message):
        loads("%%MatrixMarket matrix coordinate real general\n" + body)


def test_bad_integer_value_and_empty_input():
    with pytest.raises(MatrixMarketError, match="bad integer value '1.5'"):
        loads("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n")
    with pytest.raises(MatrixMarketError, match="empty input") as info:
        loads("")
    assert info.value.line_number is None
    assert str(info.value) == "empty input"


def test_write_general_real():
    m = COOMatrix((2, 3), [1, 0, 1], [2, 0, 2], [0.1, 2.0, 0.2])
    text = dumps(m)
    assert text.splitlines() == [
        "%%MatrixMarket matrix coordinate real general",
        "2 3 2",
        "1 1 2",
        "2 3 0.30000000000000004",
    ]
    assert loads(text) == m


def test_write_guesses_integer_field_and_checks_values():
    m = COOMatrix.from_dense([[1, 0], [0, -3]])
    assert dumps(m).splitlines()[0].endswith("integer general")
    assert dumps(m).splitlines()[3] == "2 2 -3"
    assert dumps(m.scale(2.0), field="integer").splitlines()[2] == "1 1 2"
    with pytest.raises(ValueError, match="not an integer"):
        dumps(COOMatrix.from_dense([[1.5]]), field="integer")


def test_write_pattern_and_comment():
    m = COOMatrix.from_dense([[0, 2.5], [1.0, 0]])
    text = dumps(m, field="pattern", comment="matrice creuse → test\nsecond line")
    assert text.splitlines() == [
        "%%MatrixMarket matrix coordinate pattern general",
        "% matrice creuse → test",
        "% second line",
        "2 2 2",
        "1 2",
        "2 1",
    ]
    assert loads(text).to_dense() == [[0, 1], [1, 0]]


def test_write_symmetric_keeps_lower_triangle():
    a = diags([[-1, -1], [2, 2, 2], [-1, -1]], [-1, 0, 1])
    text = dumps(a, symmetry="symmetric")
    lines = text.splitlines()
    assert lines[1] == "3 3 5"
    assert lines[2:] == ["1 1 2", "2 1 -1", "2 2 2", "3 2 -1", "3 3 2"]
    assert loads(text) == a
    with pytest.raises(ValueError, match="not symmetric"):
        dumps(COOMatrix.from_dense([[1, 2], [3, 4]]), symmetry="symmetric")


def test_write_skew_symmetric_keeps_strict_lower_triangle():
    a = COOMatrix.from_dense([[0, 2, -1], [-2, 0, 4], [1, -4, 0]])
    text = dumps(a, symmetry="skew-symmetric")
    assert text.splitlines()[1:] == ["3 3 3", "2 1 -2", "3 1 1", "3 2 -4"]
    assert loads(text) == a
    with pytest.raises(ValueError, match="not skew-symmetric"):
        dumps(COOMatrix.from_dense([[0, 2], [2, 0]]), symmetry="skew-symmetric")


def test_write_rejects_unknown_options():
    m = COOMatrix.from_dense([[1]])
    with pytest.raises(ValueError, match="unknown field"):
        dumps(m, field="complex")
    with pytest.raises(ValueError, match="unknown symmetry"):
        dumps(m, symmetry="hermitian")


def test_file_round_trip(tmp_path):
    m = diags([[1.25, -3.5, 8.0]], [0])
    path = tmp_path / "m.mtx"
    dump(m, path, comment="écrit par sparsela")
    assert path.read_text(encoding="utf-8").splitlines()[1] == "% écrit par sparsela"
    assert load(path) == m
    assert load(str(path)).to_dense() == m.to_dense()


def test_file_object_round_trip():
    buffer = io.StringIO()
    m = loads(GENERAL)
    dump(m, buffer, field="real")
    buffer.seek(0)
    assert load(buffer) == m
