package org.simpilot.sparse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads and writes coordinate Matrix Market files with real, integer or pattern
 * values and general, symmetric or skew-symmetric storage. File indices are 1-based.
 */
public final class MatrixMarket {

    /** First token of every Matrix Market file. */
    public static final String BANNER = "%%MatrixMarket";

    /** Largest magnitude written as an integer when every value is integral. */
    private static final double MAX_EXACT_INTEGER = 1e15;

    /** The value field declared in the banner. */
    public enum Field {
        REAL, INTEGER, PATTERN;

        static Field parse(String token, int line) throws FormatException {
            return switch (token.toLowerCase(Locale.ROOT)) {
                case "real", "double" -> REAL;
                case "integer" -> INTEGER;
                case "pattern" -> PATTERN;
                case "complex" -> throw new FormatException(line, "complex matrices are not supported");
                default -> throw new FormatException(line, "unknown field '" + token + "'");
            };
        }
    }

    /** The symmetry declared in the banner. */
    public enum Symmetry {
        GENERAL, SYMMETRIC, SKEW_SYMMETRIC;

        static Symmetry parse(String token, int line) throws FormatException {
            switch (token.toLowerCase(Locale.ROOT)) {
                case "general":
                    return GENERAL;
                case "symmetric":
                    return SYMMETRIC;
                case "skew-symmetric":
                    return SKEW_SYMMETRIC;
                case "hermitian":
                    throw new FormatException(line, "hermitian matrices are not supported");
                default:
                    throw new FormatException(line, "unknown symmetry '" + token + "'");
            }
        }

        /** Spelling used in the banner line. */
        String token() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** Parsed banner line. */
    public record Header(Field field, Symmetry symmetry) {
        /** Formats the banner line, without a trailing newline. */
        public String bannerLine() {
            return BANNER + " matrix coordinate " + field.name().toLowerCase(Locale.ROOT) + " " + symmetry.token();
        }
    }

    /** A matrix together with the header and comment lines it was read with. */
    public record Document(Header header, CooMatrix matrix, List<String> comments) {
    }

    /** Thrown for malformed input; carries the 1-based line number of the problem. */
    public static final class FormatException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int line;

        /** Creates an exception for the given 1-based line. */
        public FormatException(int line, String message) {
            super("line " + line + ": " + message);
            this.line = line;
        }

        /** The 1-based line number where the problem was found. */
        public int line() {
            return line;
        }
    }

    private MatrixMarket() {
    }

    /** Reads a UTF-8 encoded file. */
    public static CooMatrix read(Path path) throws IOException {
        try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            return readDocument(in).matrix();
        }
    }

    /** Parses a matrix from a string. */
    public static CooMatrix parse(String text) throws IOException {
        return readDocument(new StringReader(text)).matrix();
    }

    /** Reads a matrix with its header and comments; symmetric storage is expanded. */
    public static Document readDocument(Reader source) throws IOException {
        BufferedReader in = source instanceof BufferedReader br ? br : new BufferedReader(source);
        String line = in.readLine();
        int lineNo = 1;
        if (line == null) {
            throw new FormatException(lineNo, "empty input");
        }
        Header header = parseBanner(line, lineNo);

        List<String> comments = new ArrayList<>();
        int[] size = null;
        while ((line = in.readLine()) != null) {
            lineNo++;
            String trimmed = line.trim();
            if (trimmed.startsWith("%")) {
                comments.add(trimmed.substring(1).trim());
            } else if (!trimmed.isEmpty()) {
                size = parseSize(trimmed, lineNo);
                break;
            }
        }
        if (size == null) {
            throw new FormatException(lineNo, "missing size line");
        }
        if (header.symmetry() != Symmetry.GENERAL && size[0] != size[1]) {
            throw new FormatException(lineNo, header.symmetry().token() + " matrix must be square, got "
                    + size[0] + "x" + size[1]);
        }

        CooMatrix matrix = new CooMatrix(size[0], size[1]);
        int declared = size[2];
        int seen = 0;
        while ((line = in.readLine()) != null) {
            lineNo++;
            String trimmed = line.trim();
            if (trimmed.isEmpty() || trimmed.startsWith("%")) {
                continue;
            }
            if (seen == declared) {
                throw new FormatException(lineNo, "more entries than the declared " + declared);
            }
            addEntry(matrix, header, trimmed, lineNo);
            seen++;
        }
        if (seen < declared) {
            throw new FormatException(lineNo, "expected " + declared + " entries but found " + seen);
        }
        return new Document(header, matrix, comments);
    }

    private static Header parseBanner(String line, int lineNo) throws FormatException {
        String[] tokens = line.trim().split("\\s+");
        if (!tokens[0].equals(BANNER)) {
            throw new FormatException(lineNo, "missing " + BANNER + " banner");
        }
        if (tokens.length != 5) {
            throw new FormatException(lineNo, "banner needs 5 tokens, found " + tokens.length);
        }
        if (!tokens[1].equalsIgnoreCase("matrix")) {
            throw new FormatException(lineNo, "unsupported object '" + tokens[1] + "'");
        }
        if (!tokens[2].equalsIgnoreCase("coordinate")) {
            throw new FormatException(lineNo, "only the coordinate format is supported, got '" + tokens[2] + "'");
        }
        return new Header(Field.parse(tokens[3], lineNo), Symmetry.parse(tokens[4], lineNo));
    }

    private static int[] parseSize(String line, int lineNo) throws FormatException {
        String[] tokens = line.split("\\s+");
        if (tokens.length != 3) {
            throw new FormatException(lineNo, "size line needs rows, columns and entry count");
        }
        int[] size = new int[3];
        for (int k = 0; k < 3; k++) {
            size[k] = parseInt(tokens[k], lineNo);
            if (size[k] < 0) {
                throw new FormatException(lineNo, "negative size " + size[k]);
            }
        }
        return size;
    }

    private static void addEntry(CooMatrix m, Header header, String line, int lineNo) throws FormatException {
        String[] t = line.split("\\s+");
        int expected = header.field() == Field.PATTERN ? 2 : 3;
        if (t.length != expected) {
            throw new FormatException(lineNo, "expected " + expected + " fields, found " + t.length);
        }
        int row = parseIndex(t[0], m.rows(), lineNo);
        int col = parseIndex(t[1], m.cols(), lineNo);
        double value = switch (header.field()) {
            case PATTERN -> 1.0;
            case INTEGER -> parseInt(t[2], lineNo);
            case REAL -> parseDouble(t[2], lineNo);
        };
        switch (header.symmetry()) {
            case GENERAL -> m.add(row, col, value);
            case SYMMETRIC -> {
                if (col > row) {
                    throw new FormatException(lineNo, "symmetric files store only the lower triangle");
                }
                m.add(row, col, value);
                if (row != col) {
                    m.add(col, row, value);
                }
            }
            case SKEW_SYMMETRIC -> {
                if (col >= row) {
                    throw new FormatException(lineNo, "skew-symmetric files store only the strict lower triangle");
                }
                m.add(row, col, value);
                m.add(col, row, -value);
            }
        }
    }

    private static int parseIndex(String token, int limit, int lineNo) throws FormatException {
        int index = parseInt(token, lineNo);
        if (index < 1 || index > limit) {
            throw new FormatException(lineNo, "index " + index + " outside 1.." + limit);
        }
        return index - 1;
    }

    private static int parseInt(String token, int lineNo) throws FormatException {
        try {
            return Integer.parseInt(token);
        } catch (NumberFormatException e) {
            throw new FormatException(lineNo, "not an integer: '" + token + "'");
        }
    }

    private static double parseDouble(String token, int lineNo) throws FormatException {
        try {
            return Double.parseDouble(token);
        } catch (NumberFormatException e) {
            throw new FormatException(lineNo, "not a number: '" + token + "'");
        }
    }

    /**
     * Writes a matrix; symmetric matrices store only their lower triangle and all-integer
     * matrices use the {@code integer} field. NaN and infinities are rejected.
     */
    public static void write(CsrMatrix m, Writer out, List<String> comments) throws IOException {
        boolean symmetric = m.isSymmetric(0.0);
        boolean integral = allIntegral(m);
        Header header = new Header(integral ? Field.INTEGER : Field.REAL,
                symmetric ? Symmetry.SYMMETRIC : Symmetry.GENERAL);

        List<String> lines = new ArrayList<>();
        m.forEachNonZero((i, j, v) -> {
            if (!symmetric || j <= i) {
                lines.add((i + 1) + " " + (j + 1) + " " + formatValue(v, integral));
            }
        });

        StringBuilder sb = new StringBuilder(header.bannerLine()).append('\n');
        for (String comment : comments) {
            // A multi-line comment becomes several comment lines.
            for (String part : comment.split("\n")) {
                sb.append("% ").append(part).append('\n');
            }
        }
        sb.append(m.rows()).append(' ').append(m.cols()).append(' ').append(lines.size()).append('\n');
        for (String entry : lines) {
            sb.append(entry).append('\n');
        }
        out.write(sb.toString());
        out.flush();
    }

    private static boolean allIntegral(CsrMatrix m) {
        boolean[] integral = {true};
        m.forEachNonZero((i, j, v) -> {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("cannot write non-finite value " + v + " at (" + i + ", " + j + ")");
            }
            if (v != Math.rint(v) || Math.abs(v) >= MAX_EXACT_INTEGER) {
                integral[0] = false;
            }
        });
        return integral[0];
    }

    private static String formatValue(double v, boolean integral) {
        if (integral) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }
}
