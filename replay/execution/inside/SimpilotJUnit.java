import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
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
 * With {@code --serve --channel PATH [--clean-tmp]} the JVM stays up for many runs (see {@link #serve}).
 *
 * <p>Output lines simpilot reads for the failure's class and detail: {@code SIMPILOT-COMPILE-ERROR
 * file:line: key: message}, {@code SIMPILOT-FAILED test => exception: message},
 * {@code SIMPILOT-SUMMARY ...}. Exit codes: 0 all passed, 1 a test failed, 3 compilation failed,
 * 4 no tests found, 2 bad arguments.
 *
 * <p>Neither decides a pass. That is the proof: one record per test, as the JUnit platform reports
 * it to this runner's listener, plus a start and an end record, each signed with the run's key
 * ({@code MAC<TAB>JSON}, MAC the hex HMAC-SHA256 of the JSON, which carries {@code seq}, the
 * record's number in the run; see {@code proof.py}). The key comes through the pipe named in
 * {@code $SIMPILOT_PROOF} ({@code TOKEN_FD:REPORT_FD}: its first line) and the records go to the
 * report descriptor named there; in resident mode the key comes with each request and the
 * records go back on the request channel. The key is held by the run's {@link Proof} alone: no
 * static field refers to a proof, a key, the channel or a request, so the code under test finds
 * none of them by reflection, and a thread that outlives its run holds no key to sign with.
 *
 * <p>What code under test can still do from inside this JVM. It can read the process's memory
 * ({@code /proc/self/mem}) and find the run's key there (the MAC's state), or make a
 * {@code FileDescriptor} for the channel's number with {@code sun.misc.Unsafe}, write records that
 * verify for its own run and halt the JVM before the runner writes more: a pass of its own run
 * that nothing here tells from a real one. It can leave work for the JDK's own threads, which were
 * there before the run: a finalizer or {@code Cleaner} action that runs once the run's classes are
 * collected, after the end-of-run check, can do the same in a later run, or read the next request
 * off the channel (with {@code Unsafe}) before the runner does. It can change the static state of
 * the JUnit platform's classes, loaded once for all runs, by reflection. It cannot load an agent
 * (the attach mechanism is off: {@code java_runner.JVM_FLAGS}). Without these, what it writes only
 * fails its run: a record that does not verify is reported as forged, one repeated or left out
 * breaks the numbering, an early end leaves no end record. And so that one run does not reach the
 * next, a run that leaves a thread alive (daemon or not), has one of the JVM's own threads running
 * its code when it ends, or leaves files in the sandbox's {@code /tmp} or {@code /dev/shm} that
 * cannot be deleted ends with a request for a fresh JVM, and this JVM serves no further run.
 */
public final class SimpilotJUnit {
    /** The name of each run's class loader, by which a stack frame of the run's code is known. */
    private static final String RUN_LOADER = "simpilot-run";
    /** The folders that, in a sandbox, are the JVM's own and outlive a run: emptied after each. */
    private static final List<Path> SCRATCH = List.of(Path.of("/tmp"), Path.of("/dev/shm"));
    /** An octal escape of {@code /proc/self/mountinfo} (a space, a tab, a newline or a backslash in a path). */
    private static final Pattern OCTAL = Pattern.compile("\\\\([0-7]{3})");

    private SimpilotJUnit() {}

    public static void main(String[] args) throws Exception {
        Request startup = Request.parse(List.of(args));
        String wrong = startup.usage != null ? startup.usage
                : startup.classpath.isEmpty() ? "--classpath is required"
                : startup.serve && startup.channel.isEmpty() ? "--serve needs --channel PATH" : null;
        if (wrong != null) {
            System.out.println("SIMPILOT-USAGE " + wrong);
            System.exit(2);
        }
        if (startup.serve) {
            serve(startup.classpath, startup.channel, startup.cleanTmp);
            // No exit hook of a run's code gets to run, nor a thread it left to keep the JVM up
            Runtime.getRuntime().halt(0);
        }
        Proof proof = Proof.fromEnvironment();  // before any test class is loaded
        int status = runOnce(startup.classpath, startup, proof);
        proof.end();
        System.out.flush();
        System.exit(status);
    }

    /** One run's arguments: {@code --classpath CP [--compile FILE]... [--select CLASS[#METHOD]]... [--scan DIR]...}, or the server's. */
    private static final class Request {
        String classpath = "";
        final List<String> sources = new ArrayList<>();
        final List<String> classes = new ArrayList<>();
        final List<String> scanRoots = new ArrayList<>();
        boolean serve;
        String channel = "";
        boolean cleanTmp;
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
                    case "--channel" -> r.channel = value;
                    case "--serve" -> {
                        r.serve = true;
                        continue;
                    }
                    case "--clean-tmp" -> {
                        r.cleanTmp = true;
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
     * Resident mode: a warm JVM and compiler for many runs, spoken to through the Unix socket at
     * {@code channelPath} and nothing else. Standard input is not read (code under test can read
     * it too); the JVM's standard output and error are the runs' plain output.
     *
     * <p>The runner connects first thing (the host accepts one connection, then removes the
     * socket) and says {@code SIMPILOT-READY} once warm. Each request is one line of tab-separated
     * arguments ({@code --compile}, {@code --select}, {@code --scan}, {@code --token KEY}); the
     * answer is the run's signed records, the last of them
     * {@code {"event":"exit","status":N,"restart":WHY,"seq":K}} ({@code restart} null, or why a
     * fresh JVM must serve the next run; this JVM then halts).
     *
     * <p>Every run gets a fresh class loader, so no static state of the repository's classes
     * survives from one run to the next; the standard streams, system properties, the default
     * locale, time zone and uncaught-exception handler are put back, and with {@code --clean-tmp}
     * (the JVM's /tmp and /dev/shm are a sandbox's own) what a run left there is deleted. A run
     * that never ends is stopped by the host killing this JVM.
     */
    private static void serve(String classpath, String channelPath, boolean cleanTmp) throws Exception {
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(channelPath))) {
            OutputStream answers = Channels.newOutputStream(channel);
            BufferedReader requests = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
            System.setErr(System.out);  // one stream of output: the host reads standard output only
            warmUp();
            Set<Thread> known = Set.copyOf(Thread.getAllStackTraces().keySet());
            answers.write("SIMPILOT-READY\n".getBytes(StandardCharsets.UTF_8));
            answers.flush();
            for (String line; (line = requests.readLine()) != null; ) {
                Request request = Request.parse(line.isEmpty() ? List.of() : List.of(line.split("\t")));
                Proof proof = Proof.of(request.token, answers);
                int status = isolated(classpath, request, proof);
                String restart = leftThread(known);
                if (restart == null && cleanTmp && !emptyScratch()) {
                    restart = "a run left files in /tmp or /dev/shm that could not be deleted";
                }
                System.out.flush();
                proof.end();
                proof.exit(status, restart);
                if (restart != null) {
                    return;
                }
            }
        }
    }

    /** One run, with what a fresh JVM would not carry over put back afterwards. */
    private static int isolated(String classpath, Request request, Proof proof) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        InputStream in = System.in;
        Properties properties = (Properties) System.getProperties().clone();
        Locale locale = Locale.getDefault();
        TimeZone zone = TimeZone.getDefault();
        Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();
        try {
            return request.usage != null ? usage(request.usage) : runOnce(classpath, request, proof);
        } catch (Throwable e) {
            e.printStackTrace(out);
            proof.error("the runner failed: " + e.getClass().getName() + ": " + SimpilotProof.firstLine(e.getMessage()));
            return 1;
        } finally {
            System.setOut(out);
            System.setErr(err);
            System.setIn(in);
            System.setProperties(properties);
            Locale.setDefault(locale);
            TimeZone.setDefault(zone);
            Thread.setDefaultUncaughtExceptionHandler(handler);
            Thread.interrupted();  // a fresh JVM's main thread starts uninterrupted
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
                compile(List.of(source.toString()), work.toString(), work.toString(), Proof.silent());
                LauncherFactory.create();
            } finally {
                System.setOut(out);
            }
        } finally {
            deleteTree(work);
        }
    }

    /**
     * Why the JVM must not serve another run, or null: a thread alive that was not there when the
     * JVM became ready (daemon or not: it could read the next run's request or write into its
     * answers), or one of the JVM's own threads running the run's code (a finalizer, a cleaner
     * action, a pool's task). A thread on its way out gets a moment to end.
     */
    private static String leftThread(Set<Thread> known) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            String left = null;
            for (Map.Entry<Thread, StackTraceElement[]> entry : Thread.getAllStackTraces().entrySet()) {
                Thread t = entry.getKey();
                if (!t.isAlive()) {
                    continue;
                }
                if (!known.contains(t)) {
                    left = "a run left a thread running: " + t.getName();
                } else if (Stream.of(entry.getValue()).anyMatch(frame -> RUN_LOADER.equals(frame.getClassLoaderName()))) {
                    left = "a run's code runs in the JVM's thread " + t.getName();
                }
            }
            if (left == null || attempt == 20) {
                return left;
            }
            Thread.sleep(5);
        }
    }

    /**
     * Delete everything under the sandbox's {@link #SCRATCH} folders that a run may have left (no
     * link followed; a folder the run made unreadable is opened up first). What the sandbox
     * mounted there (the work copy, the request channel) and the folders leading to it stay.
     * Whether everything else went.
     */
    private static boolean emptyScratch() {
        try {
            Set<Path> mounts = mountPoints();
            boolean gone = true;
            for (Path root : SCRATCH) {
                if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
                    gone &= empty(root, mounts);
                }
            }
            return gone;
        } catch (IOException | RuntimeException | StackOverflowError e) {
            return false;
        }
    }

    private static boolean empty(Path folder, Set<Path> mounts) {
        List<Path> entries = new ArrayList<>();
        try {
            Set<PosixFilePermission> modes = Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS);
            Set<PosixFilePermission> open = Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
            if (!modes.containsAll(open)) {
                modes.addAll(open);
                Files.setPosixFilePermissions(folder, modes);
            }
            try (DirectoryStream<Path> listing = Files.newDirectoryStream(folder)) {
                listing.forEach(entries::add);
            }
        } catch (IOException e) {
            return false;
        }
        boolean gone = true;
        for (Path entry : entries) {
            if (mounts.contains(entry)) {
                continue;
            }
            if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                gone &= empty(entry, mounts);
            }
            if (mounts.stream().noneMatch(mount -> mount.startsWith(entry))) {
                try {
                    Files.deleteIfExists(entry);
                } catch (IOException e) {
                    gone = false;
                }
            }
        }
        return gone;
    }

    /** The mount points this process sees ({@code /proc/self/mountinfo}'s fifth field, octal escapes undone). */
    private static Set<Path> mountPoints() throws IOException {
        Set<Path> mounts = new HashSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
            String[] fields = line.split(" ");
            if (fields.length > 4) {
                String path = OCTAL.matcher(fields[4]).replaceAll(m -> Matcher.quoteReplacement(Character.toString(Integer.parseInt(m.group(1), 8))));
                mounts.add(Path.of(path));
            }
        }
        return mounts;
    }

    private static int usage(String why) {
        System.out.println("SIMPILOT-USAGE " + why);
        return 2;
    }

    private static int runOnce(String classpath, Request request, Proof proof) throws Exception {
        proof.record("\"event\":\"start\"");
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
        try (URLClassLoader loader = new URLClassLoader(RUN_LOADER, urls.toArray(new URL[0]), SimpilotJUnit.class.getClassLoader())) {
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
                System.out.println("SIMPILOT-FAILED " + name + " => " + e.getClass().getName() + ": " + SimpilotProof.firstLine(e.getMessage()));
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
                    + e.getClass().getName() + ": " + SimpilotProof.firstLine(e.getMessage()));
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
     * The proof records of one run, signed with the run's key and numbered, written to simpilot's
     * channel: in resident mode the request channel, otherwise the report descriptor named in
     * {@code $SIMPILOT_PROOF}. The key exists here only, as the initialised MAC; once the run is
     * over nothing refers to this object.
     */
    private static final class Proof {
        private static final int MESSAGE_CHARS = 2000;
        private final Mac mac;  // null: nobody asked for a proof (the warm-up)
        private final OutputStream channel;
        private int seq;

        private Proof(Mac mac, OutputStream channel) {
            this.mac = mac;
            this.channel = channel;
        }

        static Proof silent() {
            return new Proof(null, null);
        }

        /** The proof of a run whose records go to {@code channel} signed with {@code key} (empty: none asked for). */
        static Proof of(String key, OutputStream channel) throws GeneralSecurityException {
            if (key.isEmpty()) {
                return silent();
            }
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return new Proof(mac, channel);
        }

        /** The channel named in {@code $SIMPILOT_PROOF} ({@link SimpilotProof#named}): the key is the token. */
        static Proof fromEnvironment() throws IOException, GeneralSecurityException {
            SimpilotProof.Named named = SimpilotProof.named();
            return named == null ? silent() : of(named.token(), new FileOutputStream(named.report(), true));
        }

        /**
         * Write one record: {@code fields} (a JSON object's members) and the record's number,
         * signed. The line goes out in one write. The writing thread's interrupt status is kept
         * off the channel, which an interrupted write would close, and put back for the tests.
         */
        synchronized void record(String fields) {
            if (mac == null) {
                return;
            }
            byte[] body = ("{" + fields + ",\"seq\":" + seq++ + "}").getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream line = new ByteArrayOutputStream(body.length + 66);
            line.writeBytes(HexFormat.of().formatHex(mac.doFinal(body)).getBytes(StandardCharsets.US_ASCII));
            line.write('\t');
            line.writeBytes(body);
            line.write('\n');
            boolean interrupted = Thread.interrupted();
            try {
                channel.write(line.toByteArray());
                channel.flush();
            } catch (IOException e) {
                // simpilot stopped listening: nothing of this run counts any more
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /** An error, its message cut to {@link #MESSAGE_CHARS}: a record is a line simpilot reads whole. */
        void error(String message) {
            String shown = message.length() > MESSAGE_CHARS ? message.substring(0, MESSAGE_CHARS) + "..." : message;
            record("\"event\":\"error\",\"message\":" + SimpilotProof.quote(shown));
        }

        void end() {
            record("\"event\":\"end\",\"tampered\":[]");
        }

        /** The end of a resident run: its exit status, and why the next run needs a fresh JVM (null: it does not). */
        void exit(int status, String restart) {
            record("\"event\":\"exit\",\"status\":" + status + ",\"restart\":" + (restart == null ? "null" : SimpilotProof.quote(restart)));
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
                        String why = result.getThrowable().map(t -> t.getClass().getName() + ": " + SimpilotProof.firstLine(t.getMessage())).orElse("failed");
                        error(id.getLegacyReportingName() + " => " + why);
                    }
                }
            };
        }

        private void test(TestIdentifier id, String outcome) {
            String cls = id.getSource().map(Proof::className).orElse("");
            record("\"event\":\"test\",\"id\":" + SimpilotProof.quote(cls + "#" + id.getLegacyReportingName()) + ",\"class\":" + SimpilotProof.quote(cls)
                    + ",\"outcome\":\"" + outcome + "\"");
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
    }
}
