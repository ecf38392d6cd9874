import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * simpilot's Java test runner: compile the edited source files, then run JUnit 5 tests, in one JVM.
 *
 * <p>The edited files are compiled into a fresh output folder that comes FIRST on the class path,
 * ahead of the work copy's pre-compiled classes, so the edited code shadows everything else (the
 * reference implementation let stale jars shadow the model's code). One JVM for both steps halves
 * the start-up cost of running javac and the JUnit console launcher separately.
 *
 * <p>Arguments: {@code --classpath CP [--compile FILE]... [--select CLASS[#METHOD]]... [--scan DIR]...}. The
 * edited classes go to a temporary folder that is deleted afterwards, so the work copy is untouched.
 * With {@code --serve} the JVM stays up and reads one run's arguments a line (see {@link #serve}).
 *
 * <p>Output lines simpilot reads for the failure's class and detail: {@code SIMPILOT-COMPILE-ERROR
 * file:line: key: message}, {@code SIMPILOT-FAILED test => exception: message},
 * {@code SIMPILOT-SUMMARY ...}. Exit codes: 0 all passed, 1 a test failed, 3 compilation failed,
 * 4 no tests found, 2 bad arguments.
 *
 * <p>Neither decides a pass. That is the proof: one record per test, as the JUnit platform reports
 * it to this runner's listener, plus a start and an end record, each line prefixed by the run's
 * token ({@code TOKEN<TAB>JSON}). The token comes with the request ({@code --token}) in resident
 * mode, and through the pipe named in {@code $SIMPILOT_PROOF} otherwise (the records then go to
 * the descriptor named there); the code under test never sees it, so nothing it prints counts.
 */
public final class SimpilotJUnit {
    private static final int TAIL_BYTES = 4000;

    private SimpilotJUnit() {}

    public static void main(String[] args) throws Exception {
        Request startup = Request.parse(List.of(args));
        if (startup.usage != null || startup.classpath.isEmpty()) {
            System.out.println("SIMPILOT-USAGE " + (startup.usage != null ? startup.usage : "--classpath is required"));
            System.exit(2);
        }
        if (startup.serve) {
            serve(startup.classpath);
            return;
        }
        Proof proof = Proof.fromEnvironment();
        int status = runOnce(startup.classpath, startup, proof);
        proof.end();
        System.out.flush();
        System.exit(status);
    }

    /** One run's arguments: {@code --classpath CP [--compile FILE]... [--select CLASS[#METHOD]]... [--scan DIR]... [--serve]}. */
    private static final class Request {
        String classpath = "";
        final List<String> sources = new ArrayList<>();
        final List<String> classes = new ArrayList<>();
        final List<String> scanRoots = new ArrayList<>();
        boolean serve;
        String token = "";
        String usage;

        static Request parse(List<String> args) {
            Request r = new Request();
            for (int i = 0; i < args.size(); i++) {
                String value = i + 1 < args.size() ? args.get(i + 1) : "";
                switch (args.get(i)) {
                    case "--classpath" -> r.classpath = value;
                    case "--compile" -> r.sources.add(value);
                    case "--select" -> r.classes.add(value);
                    case "--scan" -> r.scanRoots.add(value);
                    case "--token" -> r.token = value;
                    case "--serve" -> {
                        r.serve = true;
                        continue;
                    }
                    default -> {
                        r.usage = "unknown argument " + args.get(i);
                        return r;
                    }
                }
                i++;
            }
            return r;
        }
    }

    /**
     * Resident mode: a warm JVM and compiler for many runs. Each request is one line of
     * tab-separated arguments ({@code --compile}, {@code --select}, {@code --scan}); its output is
     * written back followed by {@code SIMPILOT-EXIT status}. Every run gets a fresh class loader,
     * so no static state survives from one run to the next; system properties and the default
     * locale and time zone are put back. A run that leaves a thread running says
     * {@code SIMPILOT-RESTART} (the caller replaces this JVM), and a run that never ends is stopped
     * by the caller killing this JVM.
     */
    private static void serve(String classpath) throws Exception {
        PrintStream answers = System.out;
        warmUp();
        answers.println("SIMPILOT-READY");
        answers.flush();
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = requests.readLine()) != null) {
            Request request = Request.parse(line.isEmpty() ? List.of() : List.of(line.split("\t")));
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
            System.setOut(capture);
            System.setErr(capture);
            Properties properties = (Properties) System.getProperties().clone();
            Locale locale = Locale.getDefault();
            TimeZone zone = TimeZone.getDefault();
            Set<Thread> threads = new HashSet<>(Thread.getAllStackTraces().keySet());
            Proof proof = new Proof(request.token, answers);
            int status;
            try {
                status = request.usage != null ? usage(request.usage) : runOnce(classpath, request, proof);
            } catch (Throwable e) {
                e.printStackTrace(capture);
                proof.error("the runner failed: " + e.getClass().getName() + ": " + firstLine(e.getMessage()));
                status = 1;
            } finally {
                capture.flush();
                System.setOut(answers);
                System.setErr(answers);
                // What a fresh JVM would not carry over: the JVM-wide defaults a run may change
                System.setProperties(properties);
                Locale.setDefault(locale);
                TimeZone.setDefault(zone);
            }
            byte[] output = captured.toByteArray();
            int from = Math.max(0, output.length - TAIL_BYTES);
            answers.write(output, from, output.length - from);
            answers.println();
            if (leftThreads(threads)) {
                answers.println("SIMPILOT-RESTART a run left threads running");
            }
            proof.end();
            answers.println("SIMPILOT-EXIT " + request.token + " " + status);
            answers.flush();
        }
    }

    /** Load and run the compiler and the launcher once, so that the first real run is not slower than the rest. */
    private static void warmUp() throws Exception {
        Path work = Files.createTempDirectory("simpilot-warm-up-");
        try {
            Path source = work.resolve("SimpilotWarmUp.java");
            Files.writeString(source, "final class SimpilotWarmUp { int twice(int x) { return 2 * x; } }\n");
            PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            PrintStream out = System.out;
            System.setOut(quiet);
            try {
                compile(List.of(source.toString()), work.toString(), work.toString(), new Proof("", null));
                LauncherFactory.create();
            } finally {
                System.setOut(out);
            }
        } finally {
            deleteTree(work);
        }
    }

    /** Whether a run left a thread alive that was not there before it (it could disturb the next run). */
    private static boolean leftThreads(Set<Thread> before) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !before.contains(t) && !t.isDaemon()) {
                return true;
            }
        }
        return false;
    }

    private static int usage(String why) {
        System.out.println("SIMPILOT-USAGE " + why);
        return 2;
    }

    private static int runOnce(String classpath, Request request, Proof proof) throws Exception {
        proof.record("{\"event\":\"start\"}");
        Path out = Files.createTempDirectory("simpilot-edited-");
        try {
            boolean compiled = request.sources.isEmpty() || compile(request.sources, out.toString(), classpath, proof);
            return compiled ? runTests(out.toString(), classpath, request.classes, request.scanRoots, proof) : 3;
        } finally {
            deleteTree(out);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static boolean compile(List<String> sources, String out, String classpath, Proof proof) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            System.out.println("SIMPILOT-COMPILE-ERROR no Java compiler in this runtime: install a JDK, not a JRE");
            proof.error("no Java compiler in this runtime");
            return false;
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of("-d", out, "-classpath", classpath, "-implicit:none", "-proc:none", "-nowarn", "-encoding", "UTF-8");
            boolean ok = javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromStrings(sources)).call();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() != Diagnostic.Kind.ERROR) {
                    continue;
                }
                String where = d.getSource() == null ? "?" : Path.of(d.getSource().toUri()).getFileName().toString();
                String message = d.getMessage(Locale.ROOT).replace('\n', ' ');
                System.out.println("SIMPILOT-COMPILE-ERROR " + where + ":" + d.getLineNumber() + ": " + d.getCode() + ": " + message);
                proof.error("compile error: " + where + ":" + d.getLineNumber() + ": " + message);
            }
            if (!ok) {
                proof.error("compilation failed");
            }
            return ok;
        }
    }

    private static int runTests(String out, String classpath, List<String> classes, List<String> scanRoots, Proof proof) throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(new File(out).toURI().toURL());
        for (String entry : classpath.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), SimpilotJUnit.class.getClassLoader())) {
            Thread.currentThread().setContextClassLoader(loader);
            return runTests(loader, classes, scanRoots, proof);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static int runTests(ClassLoader loader, List<String> classes, List<String> scanRoots, Proof proof) {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (String name : classes) {
            try {
                selectors.addAll(select(loader, name));
            } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
                System.out.println("SIMPILOT-FAILED " + name + " => " + e.getClass().getName() + ": " + firstLine(e.getMessage()));
                proof.error(name + " => " + e.getClass().getName());
                return 1;
            }
        }
        Set<Path> roots = new HashSet<>();
        for (String root : scanRoots) {
            roots.add(Path.of(root));
        }
        if (!roots.isEmpty()) {
            selectors.addAll(DiscoverySelectors.selectClasspathRoots(roots));
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener, proof.listener());
        TestExecutionSummary summary = listener.getSummary();
        for (TestExecutionSummary.Failure failure : summary.getFailures()) {
            Throwable e = failure.getException();
            System.out.println("SIMPILOT-FAILED " + failure.getTestIdentifier().getLegacyReportingName() + " => "
                    + e.getClass().getName() + ": " + firstLine(e.getMessage()));
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            String[] lines = trace.toString().split("\n");
            for (int i = 1; i < Math.min(lines.length, 4); i++) {
                System.out.println("    " + lines[i].strip());
            }
        }
        System.out.println("SIMPILOT-SUMMARY found=" + summary.getTestsFoundCount() + " succeeded=" + summary.getTestsSucceededCount()
                + " failed=" + summary.getTotalFailureCount() + " aborted=" + summary.getTestsAbortedCount());
        if (summary.getTestsFoundCount() == 0) {
            return 4;
        }
        return summary.getTotalFailureCount() == 0 ? 0 : 1;
    }

    /**
     * The selectors for one {@code --select} argument: a test class ({@code pkg.FooTest}), or one
     * test method of it ({@code pkg.FooTest#adds}). A method is named without its parameters, so
     * every method of that name in the class and its superclasses is selected: a parameterized
     * test's parameter types need not be spelled out, and a name that matches nothing is an error
     * rather than an empty run.
     */
    private static List<DiscoverySelector> select(ClassLoader loader, String name) throws ClassNotFoundException, NoSuchMethodException {
        int hash = name.indexOf('#');
        if (hash < 0) {
            return List.of(DiscoverySelectors.selectClass(loader.loadClass(name)));
        }
        Class<?> testClass = loader.loadClass(name.substring(0, hash));
        String method = name.substring(hash + 1);
        List<DiscoverySelector> selectors = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Class<?> c = testClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                String signature = java.util.Arrays.toString(m.getParameterTypes());
                if (m.getName().equals(method) && !m.isSynthetic() && seen.add(signature)) {
                    selectors.add(DiscoverySelectors.selectMethod(testClass, m));
                }
            }
        }
        if (selectors.isEmpty()) {
            throw new NoSuchMethodException("no method " + method + " in " + testClass.getName());
        }
        return selectors;
    }

    /**
     * The proof records of one run, written to simpilot's channel with the run's token. In
     * resident mode the channel is the stream this runner answers on; otherwise the descriptor
     * named in {@code $SIMPILOT_PROOF} ({@code TOKEN_FD:REPORT_FD}), whose token pipe is drained
     * here before any test class is loaded.
     */
    private static final class Proof {
        private final String token;
        private final PrintStream channel;

        Proof(String token, PrintStream channel) {
            this.token = token;
            this.channel = channel;
        }

        static Proof fromEnvironment() throws IOException {
            String spec = System.getenv("SIMPILOT_PROOF");
            if (spec == null || !spec.contains(":")) {
                return new Proof("", null);
            }
            String[] fds = spec.split(":");
            String token;
            try (var in = new java.io.FileInputStream("/proc/self/fd/" + fds[0])) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                byte[] buffer = new byte[256];
                for (int n; (n = in.read(buffer)) > 0; ) {  // a pipe: readAllBytes would try to seek
                    bytes.write(buffer, 0, n);
                }
                token = bytes.toString(StandardCharsets.UTF_8);
            }
            PrintStream out = new PrintStream(new FileOutputStream("/proc/self/fd/" + fds[1], true), true, StandardCharsets.UTF_8);
            return new Proof(token, out);
        }

        synchronized void record(String json) {
            if (channel != null) {
                channel.print(token + "\t" + json + "\n");
                channel.flush();
            }
        }

        void error(String message) {
            record("{\"event\":\"error\",\"message\":" + quote(message) + "}");
        }

        void end() {
            record("{\"event\":\"end\",\"tampered\":[]}");
        }

        TestExecutionListener listener() {
            return new TestExecutionListener() {
                @Override
                public void executionSkipped(TestIdentifier id, String reason) {
                    if (id.isTest()) {
                        test(id, "skipped");
                    }
                }

                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                    // An aborted test (an assumption failed) did not pass: code under test can
                    // throw the aborting exception itself, and JUnit's summary does not count it.
                    String outcome = switch (result.getStatus()) {
                        case SUCCESSFUL -> "passed";
                        case ABORTED -> "aborted";
                        case FAILED -> "failed";
                    };
                    if (id.isTest()) {
                        test(id, outcome);
                    } else if (!outcome.equals("passed")) {
                        String why = result.getThrowable().map(t -> t.getClass().getName() + ": " + firstLine(t.getMessage())).orElse("failed");
                        error(id.getLegacyReportingName() + " => " + why);
                    }
                }
            };
        }

        private void test(TestIdentifier id, String outcome) {
            String cls = id.getSource().map(Proof::className).orElse("");
            record("{\"event\":\"test\",\"id\":" + quote(cls + "#" + id.getLegacyReportingName()) + ",\"class\":" + quote(cls)
                    + ",\"outcome\":\"" + outcome + "\"}");
        }

        private static String className(TestSource source) {
            if (source instanceof MethodSource m) {
                return m.getClassName();
            }
            if (source instanceof ClassSource c) {
                return c.getClassName();
            }
            return "";
        }

        static String quote(String text) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    default -> {
                        if (c < 0x20) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            return b.append('"').toString();
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
