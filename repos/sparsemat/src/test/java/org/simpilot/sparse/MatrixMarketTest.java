package org.simpilot.sparse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MatrixMarketTest {

    private static MatrixMarket.FormatException fails(String text) {
        return assertThrows(MatrixMarket.FormatException.class, () -> MatrixMarket.parse(text));
    }

    private static String write(CsrMatrix m, List<String> comments) throws IOException {
        StringWriter out = new StringWriter();
        MatrixMarket.write(m, out, comments);
        return out.toString();
    }

    @Test
    void readsGeneralRealFileWithCommentsAndBlankLines() throws IOException {
        String text = "%%MatrixMarket matrix coordinate real general\n"
                + "% first comment\n"
                + "\n"
                + "%second\n"
                + "3 4 4\n"
                + "1 1 1.5\n"
                + "\n"
                + "% a comment between entries\n"
                + "3 4 -2e-3\n"
                + "  2 2   7  \n"
                + "1 1 0.5\n";
        MatrixMarket.Document doc = MatrixMarket.readDocument(new StringReader(text));
        assertEquals(new MatrixMarket.Header(MatrixMarket.Field.REAL, MatrixMarket.Symmetry.GENERAL), doc.header());
        assertEquals(List.of("first comment", "second"), doc.comments());
        CooMatrix coo = doc.matrix();
        assertEquals(3, coo.rows());
        assertEquals(4, coo.cols());
        assertEquals(4, coo.entryCount());
        double[][] expected = {{2.0, 0, 0, 0}, {0, 7, 0, 0}, {0, 0, 0, -2e-3}};
        assertArrayEquals(expected, coo.toCsr().toDense());
    }

    @Test
    void readsIntegerAndPatternFields() throws IOException {
        CooMatrix ints = MatrixMarket.parse("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 3\n");
        assertArrayEquals(new double[][] {{0, -7}, {3, 0}}, ints.toCsr().toDense());
        CooMatrix pattern = MatrixMarket.parse("%%MatrixMarket MATRIX Coordinate Pattern General\n2 3 2\n1 3\n2 1\n");
        assertArrayEquals(new double[][] {{0, 0, 1}, {1, 0, 0}}, pattern.toCsr().toDense());
        CooMatrix dbl = MatrixMarket.parse("%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 2.5\n");
        assertEquals(2.5, dbl.toCsr().get(0, 0));
    }

    @Test
    void expandsSymmetricStorage() throws IOException {
        String text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 2\n3 3 5\n";
        CooMatrix coo = MatrixMarket.parse(text);
        assertEquals(6, coo.entryCount());
        double[][] expected = {{4, -1, 0}, {-1, 0, 2}, {0, 2, 5}};
        assertArrayEquals(expected, coo.toCsr().toDense());
    }

    @Test
    void expandsSkewSymmetricStorage() throws IOException {
        String text = "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 3\n3 1 -4\n";
        MatrixMarket.Document doc = MatrixMarket.readDocument(new StringReader(text));
        assertEquals(MatrixMarket.Symmetry.SKEW_SYMMETRIC, doc.header().symmetry());
        assertEquals(MatrixMarket.Field.INTEGER, doc.header().field());
        double[][] expected = {{0, -3, 4}, {3, 0, 0}, {-4, 0, 0}};
        assertArrayEquals(expected, doc.matrix().toCsr().toDense());
    }

    @Test
    void rejectsBadBanners() {
        assertTrue(fails("").getMessage().contains("empty input"));
        assertTrue(fails("3 3 0\n").getMessage().contains("missing %%MatrixMarket banner"));
        assertTrue(fails("%MatrixMarket matrix coordinate real general\n1 1 0\n").getMessage().contains("missing"));
        assertTrue(fails("%%MatrixMarket matrix coordinate real\n1 1 0\n").getMessage().contains("5 tokens"));
        assertTrue(fails("%%MatrixMarket vector coordinate real general\n1 1 0\n").getMessage().contains("vector"));
        assertTrue(fails("%%MatrixMarket matrix array real general\n1 1\n").getMessage().contains("array"));
        assertTrue(fails("%%MatrixMarket matrix coordinate complex general\n1 1 0\n").getMessage().contains("complex"));
        assertTrue(fails("%%MatrixMarket matrix coordinate quaternion general\n1 1 0\n").getMessage().contains("quaternion"));
        assertTrue(fails("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n").getMessage().contains("hermitian"));
        assertTrue(fails("%%MatrixMarket matrix coordinate real diagonal\n1 1 0\n").getMessage().contains("diagonal"));
    }

    @Test
    void rejectsBadSizeLines() {
        MatrixMarket.FormatException missing = fails("%%MatrixMarket matrix coordinate real general\n% only comments\n");
        assertTrue(missing.getMessage().contains("missing size line"));
        assertEquals(2, missing.line());
        assertTrue(fails("%%MatrixMarket matrix coordinate real general\n2 2\n").getMessage().contains("entry count"));
        assertTrue(fails("%%MatrixMarket matrix coordinate real general\n2 -2 0\n").getMessage().contains("negative"));
        assertTrue(fails("%%MatrixMarket matrix coordinate real general\n2 x 0\n").getMessage().contains("'x'"));
        MatrixMarket.FormatException square = fails("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n");
        assertTrue(square.getMessage().contains("symmetric matrix must be square"));
    }

    @Test
    void rejectsWrongEntryCounts() {
        MatrixMarket.FormatException tooMany = fails(
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n% note\n2 2 2\n");
        assertEquals(5, tooMany.line());
        assertTrue(tooMany.getMessage().contains("more entries"));
        MatrixMarket.FormatException tooFew = fails("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n");
        assertTrue(tooFew.getMessage().contains("expected 3 entries but found 1"));
    }

    @Test
    void rejectsBadEntries() {
        String head = "%%MatrixMarket matrix coordinate real general\n2 2 1\n";
        MatrixMarket.FormatException fields = fails(head + "1 1\n");
        assertTrue(fields.getMessage().contains("expected 3 fields, found 2"));
        assertEquals(3, fields.line());
        assertTrue(fails(head + "0 1 1\n").getMessage().contains("index 0"));
        assertTrue(fails(head + "1 3 1\n").getMessage().contains("index 3"));
        assertTrue(fails(head + "3 1 1\n").getMessage().contains("index 3"));
        assertTrue(fails(head + "1 1 abc\n").getMessage().contains("not a number"));
        assertTrue(fails(head + "1.5 1 1\n").getMessage().contains("not an integer"));
        assertTrue(fails("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n")
                .getMessage().contains("not an integer"));
        assertTrue(fails("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1 2\n")
                .getMessage().contains("expected 2 fields"));
    }

    @Test
    void rejectsWrongTriangles() {
        assertTrue(fails("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n")
                .getMessage().contains("lower triangle"));
        assertTrue(fails("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n")
                .getMessage().contains("strict lower triangle"));
        assertTrue(fails("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 2 1\n")
                .getMessage().contains("strict lower triangle"));
    }

    @Test
    void writesGeneralRealMatrices() throws IOException {
        CsrMatrix m = CsrMatrix.fromDense(new double[][] {{1.5, 0, 0}, {0, 0, -2}});
        String expected = "%%MatrixMarket matrix coordinate real general\n"
                + "% made by sparsemat\n"
                + "2 3 2\n"
                + "1 1 1.5\n"
                + "2 3 -2.0\n";
        assertEquals(expected, write(m, List.of("made by sparsemat")));
    }

    @Test
    void writesSymmetricIntegerMatricesAsLowerTriangle() throws IOException {
        CsrMatrix m = CsrMatrix.fromDense(new double[][] {{4, -1, 0}, {-1, 4, 2}, {0, 2, 4}});
        String expected = "%%MatrixMarket matrix coordinate integer symmetric\n"
                + "% line one\n"
                + "% line two — ünïcode\n"
                + "3 3 5\n"
                + "1 1 4\n"
                + "2 1 -1\n"
                + "2 2 4\n"
                + "3 2 2\n"
                + "3 3 4\n";
        assertEquals(expected, write(m, List.of("line one\nline two — ünïcode")));
        assertEquals(m, MatrixMarket.parse(expected).toCsr());
    }

    @Test
    void hugeIntegralValuesAreWrittenAsReals() throws IOException {
        CsrMatrix m = CsrMatrix.fromDense(new double[][] {{2e15, 1}});
        String text = write(m, List.of());
        assertTrue(text.startsWith("%%MatrixMarket matrix coordinate real general\n"), text);
        assertTrue(text.contains("1 1 2.0E15\n"), text);
        assertEquals(m, MatrixMarket.parse(text).toCsr());
        CsrMatrix negative = CsrMatrix.fromDense(new double[][] {{-2e15, 1}});
        assertTrue(write(negative, List.of()).contains(" real "));
    }

    @Test
    void refusesNonFiniteValues() {
        CsrMatrix nan = CsrMatrix.fromDense(new double[][] {{1, Double.NaN}});
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> write(nan, List.of()));
        assertTrue(ex.getMessage().contains("(0, 1)"));
        CsrMatrix inf = CsrMatrix.fromDense(new double[][] {{Double.POSITIVE_INFINITY}});
        assertThrows(IllegalArgumentException.class, () -> write(inf, List.of()));
    }

    @Test
    void roundTripsRandomRealMatricesThroughAFile(@TempDir Path dir) throws IOException {
        Random rnd = new Random(99);
        double[][] dense = new double[7][5];
        for (double[] row : dense) {
            for (int j = 0; j < row.length; j++) {
                row[j] = rnd.nextDouble() < 0.4 ? rnd.nextGaussian() : 0.0;
            }
        }
        CsrMatrix m = CsrMatrix.fromDense(dense);
        Path file = dir.resolve("random.mtx");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            MatrixMarket.write(m, out, List.of("seed 99"));
        }
        assertEquals(m, MatrixMarket.read(file).toCsr());
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals("%%MatrixMarket matrix coordinate real general", lines.get(0));
        assertEquals("% seed 99", lines.get(1));
        assertEquals("7 5 " + m.nnz(), lines.get(2));
        assertEquals(m.nnz() + 3, lines.size());
    }

    @Test
    void emptySquareMatrixRoundTrips() throws IOException {
        CsrMatrix empty = new CooMatrix(3, 3).toCsr();
        String text = write(empty, List.of());
        assertEquals("%%MatrixMarket matrix coordinate integer symmetric\n3 3 0\n", text);
        assertEquals(empty, MatrixMarket.parse(text).toCsr());
    }

    @Test
    void headerFormatsItsBannerLine() {
        MatrixMarket.Header h = new MatrixMarket.Header(MatrixMarket.Field.PATTERN, MatrixMarket.Symmetry.SKEW_SYMMETRIC);
        assertEquals("%%MatrixMarket matrix coordinate pattern skew-symmetric", h.bannerLine());
    }
}
