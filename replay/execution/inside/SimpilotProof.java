import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * What simpilot's two Java launchers share of the proof protocol: the channel named in
 * {@code $SIMPILOT_PROOF}, a record's JSON strings, an error's first line. Compiled with each of
 * them (the JUnit runner, {@code SimpilotJUnit}, and the program launcher, {@code SimpilotProgram}),
 * so that the protocol is written once for Java; each launcher decides how its records are signed.
 *
 * <p>It holds no state: code under test that finds this class finds no token, key or channel in it.
 */
final class SimpilotProof {
    /** The environment variable naming the channel: {@code TOKEN_FD:REPORT_FD}. */
    static final String ENV = "SIMPILOT_PROOF";

    private SimpilotProof() {}

    /** The channel simpilot named: the run's token and where its records go. */
    record Named(String token, String report) {}

    /**
     * The channel named in {@code $SIMPILOT_PROOF}, or null when none was: the token is the token
     * pipe's first line (what follows is for simpilot's Python reporter), the report the path of the
     * report descriptor. Read before any code under test runs; the pipe is read to its end.
     */
    static Named named() throws IOException {
        String spec = System.getenv(ENV);
        if (spec == null || !spec.contains(":")) {
            return null;
        }
        String[] fds = spec.split(":");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (FileInputStream in = new FileInputStream("/proc/self/fd/" + fds[0])) {
            byte[] buffer = new byte[256];
            for (int n; (n = in.read(buffer)) > 0; ) {  // a pipe: readAllBytes would try to seek
                bytes.write(buffer, 0, n);
            }
        }
        return new Named(bytes.toString(StandardCharsets.UTF_8).split("\n", 2)[0], "/proc/self/fd/" + fds[1]);
    }

    /** A JSON string. Besides what JSON requires, the characters Python's {@code splitlines} breaks lines at are escaped: a record is one line. */
    static String quote(String text) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20 || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** The first line of an error's message ('' for none). */
    static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
