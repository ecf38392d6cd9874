import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.Permission;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.logging.LogManager;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/**
 * simpilot's launcher of single-file Java programs: compile one program in memory, run its
 * {@code main} with assertions enabled, and prove through simpilot's channel that it ran to its end.
 *
 * <p>Why a launcher rather than {@code javac} and {@code java}: the token of the proof channel must
 * be taken before any of the program's code runs, and a pass may only be written once {@code main}
 * returned normally. {@code System.exit} from the program must not end the run with a status that
 * looks like success, so a security manager turns exit into an error (JDK 17 needs
 * {@code -Djava.security.manager=allow}; where a JDK has no security manager, exit simply ends the
 * JVM before any pass was written, which is just as sound).
 *
 * <p>Fresh mode: {@code --classpath CP --source FILE}: one program per JVM; the token comes through the
 * pipe named in {@code $SIMPILOT_PROOF} ({@code TOKEN_FD:REPORT_FD}) and the records go to the
 * report descriptor. Resident mode: {@code --classpath CP --serve [--sandboxed]}: one JVM, one compiler and one
 * file manager (the JDK's classes are read once) for many programs, each request one line of
 * tab-separated arguments {@code [--classpath CP] --source64 BASE64 --token TOKEN}, answered with the
 * run's output, its records, maybe {@code SIMPILOT-RESTART why}, and {@code SIMPILOT-EXIT TOKEN STATUS}
 * (the protocol of {@code SimpilotJUnit --serve}). Both modes run a program through the same code:
 * its classes and the library jars of {@code CP} in class loaders of their own, main in a new thread
 * named {@code main}, then a wait for the non-daemon threads it started, as a JVM waits before it exits.
 *
 * <p>Records ({@code TOKEN<TAB>JSON}): {@code start}; on success {@code test} {@code program} passed; on
 * failure one {@code error} (the error's class and message, or {@code compile error: File.java:LINE:
 * message}) and {@code test} failed; then {@code end}. Output lines for simpilot's classifier:
 * {@code SIMPILOT-COMPILE-ERROR File.java:LINE: key: message}, {@code SIMPILOT-FAILED program =>
 * class: message}. Statuses: 0 passed, 1 failed, 3 compile error, 2 bad arguments.
 */
public final class SimpilotProgram {
    private static final int TAIL_BYTES = 4000;
    private static final String TEST = "program";
    private static final String COMPILE_ERROR = "compile error: ";
    private static final Guard GUARD = new Guard();

    private SimpilotProgram() {}

    public static void main(String[] args) throws Exception {
        Arguments startup = Arguments.parse(args);
        if (startup.usage != null || !startup.serve && startup.source == null) {
            System.out.println("SIMPILOT-USAGE " + (startup.usage != null ? startup.usage : "--source FILE or --serve is required"));
            System.exit(2);
        }
        if (startup.serve) {
            serve(new Setup(), startup.classpath, startup.sandboxed);
            return;
        }
        Channel channel = Channel.fromEnvironment();  // before any of the program's code runs
        installGuard();
        Setup setup = new Setup();
        String source = Files.readString(Path.of(startup.source), StandardCharsets.UTF_8);
        PrintStream console = System.out;
        Outcome outcome = run(setup, startup.classpath, source, console);
        console.flush();
        channel.write(outcome.records);
        GUARD.release();
        System.exit(outcome.status);
    }

    /** The command line, or one request of resident mode. */
    private static final class Arguments {
        String classpath = "";
        String source;
        String source64;
        String token = "";
        boolean serve;
        boolean sandboxed;
        String usage;

        static Arguments parse(String[] args) {
            Arguments a = new Arguments();
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--serve") || args[i].equals("--sandboxed")) {
                    a.serve |= args[i].equals("--serve");
                    a.sandboxed |= args[i].equals("--sandboxed");
                    continue;
                }
                if (i + 1 >= args.length) {
                    a.usage = "missing value after " + args[i];
                    return a;
                }
                String value = args[++i];
                switch (args[i - 1]) {
                    case "--classpath" -> a.classpath = value;
                    case "--source" -> a.source = value;
                    case "--source64" -> a.source64 = value;
                    case "--token" -> a.token = value;
                    default -> {
                        a.usage = "unknown argument " + args[i - 1];
                        return a;
                    }
                }
            }
            return a;
        }
    }

    /**
     * What every run shares: the compiler and its file manager, which keeps the JDK's classes and
     * the jars it has read. A run names its class path; the jars are opened anew by each run's
     * class loader, so no library keeps static state from one program to the next.
     */
    private static final class Setup {
        final JavaCompiler compiler;
        final StandardJavaFileManager files;
        private final Map<String, Jars> known = new java.util.HashMap<>();
        private String current;

        Setup() {
            compiler = ToolProvider.getSystemJavaCompiler();
            if (compiler == null) {
                throw new IllegalStateException("no Java compiler in this runtime: install a JDK, not a JRE");
            }
            files = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        }

        /** Make {@code classpath} the compiler's class path; its jars. */
        Jars use(String classpath) throws IOException {
            Jars jars = known.get(classpath);
            if (jars == null) {
                jars = new Jars(classpath);
                known.put(classpath, jars);
            }
            if (!classpath.equals(current)) {
                files.setLocation(StandardLocation.CLASS_PATH, jars.files);
                current = classpath;
            }
            return jars;
        }
    }

    /** The jars of a class path, and the JDBC drivers they declare (which DriverManager would load). */
    private static final class Jars {
        final List<File> files = new ArrayList<>();
        final URL[] urls;
        final List<String> drivers = new ArrayList<>();

        Jars(String classpath) throws IOException {
            List<URL> found = new ArrayList<>();
            for (String entry : classpath.split(File.pathSeparator)) {
                if (!entry.isEmpty()) {
                    files.add(new File(entry));
                    found.add(new File(entry).toURI().toURL());
                }
            }
            urls = found.toArray(new URL[0]);
            try (URLClassLoader probe = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
                var services = probe.getResources("META-INF/services/java.sql.Driver");
                while (services.hasMoreElements()) {
                    try (InputStream in = services.nextElement().openStream()) {
                        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                            String name = line.replaceAll("#.*", "").strip();
                            if (!name.isEmpty()) {
                                drivers.add(name);
                            }
                        }
                    }
                }
            }
        }
    }

    /** A finished run: its status, its records (JSON, without the token), and why no other run may follow it in this JVM (or null). */
    private record Outcome(int status, List<String> records, String spoilt) {
        Outcome(int status, List<String> records) {
            this(status, records, null);
        }
    }

    // -- one run --------------------------------------------------------------------------------

    /**
     * Compile and run one program; {@code console} takes the lines simpilot's classifier reads.
     * Never throws for what the program does.
     */
    private static Outcome run(Setup setup, String classpath, String source, PrintStream console) throws Exception {
        List<String> records = new ArrayList<>();
        records.add("{\"event\":\"start\"}");
        Layout layout = Layout.of(source);
        Map<String, byte[]> classes = new LinkedHashMap<>();
        Jars jars = setup.use(classpath);
        String error = compile(setup, layout, source, classes, console);
        if (error != null) {
            return failed(records, COMPILE_ERROR + error, 3);
        }
        GUARD.begin();
        try (Libraries libraries = new Libraries(jars.urls);
                MemoryLoader loader = new MemoryLoader(classes, libraries)) {
            libraries.setDefaultAssertionStatus(true);
            loader.setDefaultAssertionStatus(true);
            Outcome outcome = execute(loader, layout, classes.keySet(), records, console);
            // DriverManager keeps the drivers it found for the JVM's life: the next run would not find its own
            String driver = libraries.loadedAny(jars.drivers);
            return driver == null ? outcome : new Outcome(outcome.status, outcome.records, "a run loaded the JDBC driver " + driver);
        } finally {
            GUARD.end();
        }
    }

    /** Run the compiled program's main and judge how it ended. */
    private static Outcome execute(ClassLoader loader, Layout layout, Set<String> names, List<String> records, PrintStream console)
            throws InterruptedException {
        Method main = findMain(loader, layout, names);
        if (main == null) {
            String why = "NoSuchMethodError: no class of " + layout.fileName + " has public static void main(String[])";
            console.println("SIMPILOT-FAILED " + TEST + " => java.lang." + why);
            return failed(records, why, 1);
        }
        Throwable thrown = invoke(main, loader);
        if (GUARD.exitRequested()) {
            String why = "SystemExit: System.exit(" + GUARD.exitStatus() + ") was called before the program's end";
            console.println("SIMPILOT-FAILED " + TEST + " => " + why);
            return failed(records, why, 1);
        }
        if (thrown != null) {
            console.print("Exception in thread \"main\" ");
            withoutLauncher(thrown).printStackTrace(console);
            String message = firstLine(thrown.getMessage());
            String name = thrown.getClass().getName();
            String detail = message.isEmpty() ? "" : ": " + message;
            console.println("SIMPILOT-FAILED " + TEST + " => " + name + detail);
            return failed(records, name.substring(name.lastIndexOf('.') + 1) + detail, 1);
        }
        records.add("{\"event\":\"test\",\"id\":\"" + TEST + "\",\"outcome\":\"passed\"}");
        records.add("{\"event\":\"end\",\"tampered\":[]}");
        return new Outcome(0, records);
    }

    private static Outcome failed(List<String> records, String message, int status) {
        records.add("{\"event\":\"error\",\"message\":" + SimpilotProof.quote(message) + "}");
        records.add("{\"event\":\"test\",\"id\":\"" + TEST + "\",\"outcome\":\"failed\"}");
        records.add("{\"event\":\"end\",\"tampered\":[]}");
        return new Outcome(status, records);
    }

    /**
     * Compile {@code source} into {@code classes}; the first error as {@code File.java:LINE: message}
     * (every error is printed for the classifier), or null when it compiled.
     */
    private static String compile(Setup setup, Layout layout, String source, Map<String, byte[]> classes, PrintStream console) {
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("-proc:none", "-nowarn", "-Xlint:none", "-encoding", "UTF-8", "-g");
        JavaFileObject unit = new SourceFile(layout.fileName, source);
        Boolean ok;
        try {
            ok = setup.compiler.getTask(null, new MemoryOutput(setup.files, classes), diagnostics, options, null, List.of(unit)).call();
        } catch (RuntimeException e) {  // javac itself crashed on this source
            String why = layout.fileName + ":0: the compiler failed: " + e.getClass().getName() + ": " + firstLine(e.getMessage());
            console.println("SIMPILOT-COMPILE-ERROR " + why);
            return why;
        }
        String first = null;
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            String message = d.getMessage(Locale.ROOT).replaceAll("\\s+", " ").strip();
            console.println("SIMPILOT-COMPILE-ERROR " + layout.fileName + ":" + d.getLineNumber() + ": " + d.getCode() + ": " + message);
            if (first == null) {
                first = layout.fileName + ":" + d.getLineNumber() + ": " + message;
            }
        }
        if (!Boolean.TRUE.equals(ok)) {
            return first != null ? first : layout.fileName + ":0: compilation failed";
        }
        return null;
    }

    /**
     * The {@code main} to run, as {@code java} would pick it for this file: the public top-level
     * class's, else the first top-level class's that has one, else a nested class's.
     */
    private static Method findMain(ClassLoader loader, Layout layout, Set<String> names) {
        List<String> order = new ArrayList<>();
        if (layout.publicType != null) {
            order.add(layout.qualified(layout.publicType));
        }
        for (String name : names) {
            if (!name.contains("$")) {
                order.add(name);
            }
        }
        order.addAll(names);
        for (String name : order) {
            if (!names.contains(name)) {
                continue;
            }
            try {
                Method main = Class.forName(name, false, loader).getMethod("main", String[].class);
                if (Modifier.isStatic(main.getModifiers()) && main.getReturnType() == void.class) {
                    return main;
                }
            } catch (ReflectiveOperationException | LinkageError e) {
                // not this one
            }
        }
        return null;
    }

    /**
     * Run {@code main} in a thread named {@code main}, then wait for the non-daemon threads it
     * started, as the JVM waits before it exits; an exit asked for by any of its threads ends the
     * waiting (the threads left are the resident JVM's reason to be replaced). Returns what
     * {@code main} threw, or null.
     */
    private static Throwable invoke(Method main, ClassLoader loader) throws InterruptedException {
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        Throwable[] thrown = new Throwable[1];
        Thread thread = new Thread(() -> {
            try {
                main.invoke(null, (Object) new String[0]);
            } catch (InvocationTargetException e) {
                thrown[0] = e.getCause();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        }, "main");
        thread.setContextClassLoader(loader);
        thread.start();
        while (thread.isAlive() && !GUARD.exitRequested()) {  // an exit from another thread ends the program too
            thread.join(50);
        }
        while (!GUARD.exitRequested()) {
            Thread waiting = null;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.isAlive() && !t.isDaemon() && t != thread && !before.contains(t)) {
                    waiting = t;
                    break;
                }
            }
            if (waiting == null) {
                break;
            }
            waiting.join(100);
        }
        return thrown[0];
    }

    /** {@code thrown} with its trace ending at the program's main, as {@code java} would print it. */
    private static Throwable withoutLauncher(Throwable thrown) {
        StackTraceElement[] trace = thrown.getStackTrace();
        for (int i = 0; i < trace.length; i++) {
            String cls = trace[i].getClassName();
            if (cls.startsWith("jdk.internal.reflect.") || cls.equals("java.lang.reflect.Method") || cls.startsWith(SimpilotProgram.class.getName())) {
                thrown.setStackTrace(java.util.Arrays.copyOf(trace, i));
                break;
            }
        }
        return thrown;
    }

    // -- resident mode --------------------------------------------------------------------------

    /**
     * Serve runs until standard input ends. What a fresh JVM would not carry over is put back
     * after each run: standard streams, system properties, default locale and time zone, the
     * default uncaught-exception handler and java.util.logging's configuration; the working folder
     * and the temporary folder are emptied. A run that leaves a thread running, adds a shutdown
     * hook or leaves files it cannot delete asks for a new JVM ({@code SIMPILOT-RESTART}).
     */
    private static void serve(Setup setup, String classpath, boolean sandboxed) throws Exception {
        PrintStream answers = System.out;
        InputStream requestsIn = System.in;
        installGuard();
        warmUp(setup);
        answers.println("SIMPILOT-READY");
        answers.flush();
        BufferedReader requests = new BufferedReader(new InputStreamReader(requestsIn, StandardCharsets.UTF_8));
        Path work = Path.of("").toAbsolutePath();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        // the machine's /tmp is never emptied: only a sandbox's own, or a folder of the caller's
        boolean cleanTmp = sandboxed || !tmp.equals(Path.of("/tmp"));
        Set<Path> baseline = cleanTmp ? listing(tmp, work) : Set.of();
        String line;
        while ((line = requests.readLine()) != null) {
            Arguments request = Arguments.parse(line.isEmpty() ? new String[0] : line.split("\t"));
            Tail tail = new Tail(TAIL_BYTES);
            PrintStream capture = new PrintStream(tail, true, StandardCharsets.UTF_8);
            Snapshot snapshot = Snapshot.take();
            Outcome outcome;
            System.setOut(capture);
            System.setErr(capture);
            System.setIn(new ByteArrayInputStream(new byte[0]));
            try {
                if (request.usage != null || request.source64 == null) {
                    capture.println("SIMPILOT-USAGE " + (request.usage != null ? request.usage : "--source64 is required"));
                    outcome = new Outcome(2, List.of());
                } else {
                    String source = new String(Base64.getDecoder().decode(request.source64), StandardCharsets.UTF_8);
                    outcome = run(setup, request.classpath.isEmpty() ? classpath : request.classpath, source, capture);
                }
            } catch (Throwable e) {
                e.printStackTrace(capture);
                outcome = failed(new ArrayList<>(List.of("{\"event\":\"start\"}")), "the launcher failed: " + e, 1);
            } finally {
                capture.flush();
                System.setOut(answers);
                System.setErr(answers);
                System.setIn(requestsIn);
            }
            String restart = snapshot.restore();
            restart = restart != null ? restart : outcome.spoilt;
            if (restart == null && !(empty(work) & (!cleanTmp || restore(tmp, baseline, work)))) {
                restart = "a run left files that could not be deleted";
            }
            answers.write(tail.bytes());
            answers.println();
            for (String record : outcome.records) {
                answers.print(request.token + "\t" + record + "\n");
            }
            if (restart != null) {
                answers.println("SIMPILOT-RESTART " + restart);
            }
            answers.println("SIMPILOT-EXIT " + request.token + " " + outcome.status);
            answers.flush();
        }
    }

    /** Compile and run a few programs, so that the first real run finds the compiler loaded and compiled. */
    private static void warmUp(Setup setup) throws Exception {
        String program = "import java.util.*;\nimport java.util.stream.*;\npublic class SimpilotWarmUp {\n"
                + "    record Pair(String name, int value) {}\n"
                + "    public static void main(String[] args) throws Exception {\n"
                + "        List<Pair> pairs = new ArrayList<>();\n"
                + "        for (int i = 0; i < 50; i++) pairs.add(new Pair(\"p\" + i, i * i));\n"
                + "        Map<Boolean, List<Integer>> parts = pairs.stream().map(Pair::value).collect(Collectors.partitioningBy(v -> v % 2 == 0));\n"
                + "        String text = String.format(\"%s %d %.2f\", parts.get(true).size(), pairs.size(), 1.5);\n"
                + "        StringBuilder b = new StringBuilder(text);\n"
                + "        try { Objects.requireNonNull(null, \"x\"); } catch (NullPointerException e) { b.append(e.getMessage()); }\n"
                + "        assert b.length() > 0 : \"empty\";\n"
                + "        System.out.println(b);\n    }\n}\n";
        PrintStream out = System.out;
        PrintStream quiet = new PrintStream(new Tail(TAIL_BYTES), true, StandardCharsets.UTF_8);
        System.setOut(quiet);
        try {
            LogManager.getLogManager();  // its shutdown hook belongs to the launcher, not to a run
            ManagementFactory.getPlatformMBeanServer();  // the JDK's own MBeans too
            for (int i = 0; i < 3; i++) {
                run(setup, "", program, quiet);
            }
        } finally {
            System.setOut(out);
        }
    }

    /** JVM-wide state a run may change, taken before it and put back after it. */
    private static final class Snapshot {
        final Properties properties = (Properties) System.getProperties().clone();
        final Locale locale = Locale.getDefault();
        final TimeZone zone = TimeZone.getDefault();
        final Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();
        final Set<Thread> threads = new HashSet<>(Thread.getAllStackTraces().keySet());
        final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        final Set<ObjectName> registered = mbeans.queryNames(null, null);

        static Snapshot take() {
            return new Snapshot();
        }

        /** Put things back; why this JVM cannot serve another run, or null. */
        String restore() {
            System.setProperties(properties);
            Locale.setDefault(locale);
            TimeZone.setDefault(zone);
            Thread.setDefaultUncaughtExceptionHandler(handler);
            Thread.interrupted();
            try {
                LogManager.getLogManager().readConfiguration();  // drops the run's handlers and levels
            } catch (IOException | RuntimeException e) {
                return "java.util.logging could not be reset: " + e;
            }
            for (ObjectName name : mbeans.queryNames(null, null)) {
                if (!registered.contains(name)) {
                    try {
                        mbeans.unregisterMBean(name);
                    } catch (Exception e) {
                        return "an MBean of the run could not be unregistered: " + name;
                    }
                }
            }
            if (GUARD.taint() != null) {
                return GUARD.taint();
            }
            for (int attempt = 0; attempt < 20; attempt++) {  // a thread may be on its way out
                String left = leftThread();
                if (left == null) {
                    return null;
                }
                if (attempt == 19) {
                    return "a run left a thread running: " + left;
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        }

        /** A thread the run started that is still alive (idle workers of the common pool do not count). */
        private String leftThread() {
            ForkJoinPool common = ForkJoinPool.commonPool();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (!t.isAlive() || threads.contains(t)) {
                    continue;
                }
                if (t instanceof ForkJoinWorkerThread w && w.getPool() == common && common.isQuiescent()) {
                    continue;
                }
                return t.getName();
            }
            return null;
        }
    }

    /** Delete what is inside {@code folder}; whether it is empty now. */
    private static boolean empty(Path folder) {
        return restore(folder, Set.of(), null);
    }

    /** Every path below {@code root} (not below {@code skip}): what a run must leave as it is. */
    private static Set<Path> listing(Path root, Path skip) throws IOException {
        Set<Path> found = new HashSet<>();
        if (!Files.isDirectory(root)) {
            return found;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                found.add(dir);
                return dir.equals(skip) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                found.add(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                found.add(file);
                return FileVisitResult.CONTINUE;
            }
        });
        return found;
    }

    /**
     * Delete what a run added below {@code root}: every path not in {@code keep} (folders that
     * were there are entered, not deleted; {@code skip} is left alone). Whether that succeeded.
     */
    private static boolean restore(Path root, Set<Path> keep, Path skip) {
        if (!Files.isDirectory(root)) {
            return true;
        }
        boolean[] ok = {true};
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (dir.equals(skip)) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    if (!dir.equals(root) && !keep.contains(dir)) {
                        ok[0] &= deleteTree(dir);
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    return dropUnlessKept(file);
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return dropUnlessKept(file);
                }

                private FileVisitResult dropUnlessKept(Path file) {
                    if (!keep.contains(file)) {
                        ok[0] &= deleteTree(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return ok[0];
    }

    /** Delete {@code top} and all below it, making folders writable first (a program may have locked them). */
    private static boolean deleteTree(Path top) {
        try {
            Files.walkFileTree(top, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    File f = dir.toFile();
                    f.setReadable(true, true);
                    f.setWritable(true, true);
                    f.setExecutable(true, true);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
            return !Files.exists(top, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    // -- System.exit ----------------------------------------------------------------------------

    /**
     * Install the guard that turns the program's {@code System.exit} into an error. The common
     * pool is created first: with a security manager present it would use threads without
     * permissions and without the program's class loader, unlike a plain {@code java} run.
     */
    @SuppressWarnings("removal")
    private static void installGuard() {
        ForkJoinPool.commonPool();
        PrintStream err = System.err;
        System.setErr(new PrintStream(OutputStream.nullOutputStream()));  // the JDK's deprecation warning
        try {
            System.setSecurityManager(GUARD);
        } catch (UnsupportedOperationException | SecurityException e) {
            // no security manager in this JDK: System.exit ends the JVM before any pass was written
        } finally {
            System.setErr(err);
        }
    }

    /**
     * Lets everything through but exit (an error, remembered for the run) and its own removal, and
     * notes a run's changes to JVM-wide registries that cannot be put back (shutdown hooks, URL
     * factories, default authenticator or cookie handler, security providers, the JDBC log): the
     * resident JVM is replaced after such a run. (The MBeans a run registers are unregistered.)
     */
    @SuppressWarnings("removal")
    private static final class Guard extends SecurityManager {
        private static final Set<String> TAINTS = Set.of(
                "java.lang.RuntimePermission shutdownHooks",
                "java.lang.RuntimePermission setFactory",
                "java.net.NetPermission setDefaultAuthenticator",
                "java.net.NetPermission setCookieHandler",
                "java.net.NetPermission setProxySelector",
                "java.net.NetPermission setResponseCache",
                "java.security.SecurityPermission setPolicy",
                "java.sql.SQLPermission setLog");
        private volatile boolean released;
        private volatile boolean running;
        private volatile boolean exitRequested;
        private volatile int exitStatus;
        private volatile String taint;

        void begin() {
            exitRequested = false;
            taint = null;
            running = true;
        }

        void end() {
            running = false;
        }

        void release() {
            released = true;
        }

        boolean exitRequested() {
            return exitRequested;
        }

        int exitStatus() {
            return exitStatus;
        }

        /** What the last run changed JVM-wide, or null. */
        String taint() {
            return taint;
        }

        @Override
        public void checkExit(int status) {
            if (released) {
                return;
            }
            exitRequested = true;
            exitStatus = status;
            throw new ExitCalled(status);
        }

        @Override
        public void checkPermission(Permission permission) {
            check(permission);
        }

        @Override
        public void checkPermission(Permission permission, Object context) {
            check(permission);
        }

        private void check(Permission permission) {
            String name = permission.getName();
            if (permission instanceof RuntimePermission && name.equals("setSecurityManager")) {
                throw new SecurityException("simpilot's launcher keeps its security manager");
            }
            if (running && taint == null) {
                String kind = permission.getClass().getName();
                boolean global = TAINTS.contains(kind + " " + name)
                        || kind.equals("java.security.SecurityPermission") && (name.startsWith("insertProvider") || name.startsWith("removeProvider")
                                || name.startsWith("setProperty."));
                if (global) {
                    taint = "a run changed " + kind.substring(kind.lastIndexOf('.') + 1) + " " + name;
                }
            }
        }
    }

    /** What System.exit throws in the program: an Error, so that {@code catch (Exception e)} lets it through. */
    private static final class ExitCalled extends Error {
        ExitCalled(int status) {
            super("System.exit(" + status + ")", null, false, false);
        }
    }

    // -- compiling in memory --------------------------------------------------------------------

    /** The file name javac would want for a source, and its package and public top-level type. */
    private static final class Layout {
        final String packageName;
        final String publicType;
        final String fileName;

        private Layout(String packageName, String publicType, String firstType) {
            this.packageName = packageName;
            this.publicType = publicType;
            String name = publicType != null ? publicType : firstType != null ? firstType : "Main";
            this.fileName = name + ".java";
        }

        String qualified(String simple) {
            return packageName.isEmpty() ? simple : packageName + "." + simple;
        }

        /** Scan the top level of {@code source} (comments, strings and bodies skipped). */
        static Layout of(String source) {
            List<String> words = topLevelWords(source);
            String pkg = "";
            String publicType = null;
            String firstType = null;
            for (int i = 0; i < words.size(); i++) {
                String w = words.get(i);
                if (w.equals("package") && i + 1 < words.size() && pkg.isEmpty()) {
                    StringBuilder b = new StringBuilder();
                    for (int j = i + 1; j < words.size() && !words.get(j).equals(";"); j++) {
                        b.append(words.get(j));
                    }
                    pkg = b.toString();
                }
                boolean kind = w.equals("class") || w.equals("interface") || w.equals("enum") || w.equals("record");
                if (kind && i + 1 < words.size() && isIdentifier(words.get(i + 1))) {
                    String name = words.get(i + 1);
                    if (firstType == null) {
                        firstType = name;
                    }
                    if (publicType == null && isPublic(words, i)) {
                        publicType = name;
                    }
                }
            }
            return new Layout(pkg, publicType, firstType);
        }

        private static boolean isPublic(List<String> words, int kindIndex) {
            for (int j = kindIndex - 1; j >= 0; j--) {
                String w = words.get(j);
                if (w.equals("public")) {
                    return true;
                }
                if (!(w.equals("final") || w.equals("abstract") || w.equals("static") || w.equals("strictfp") || w.equals("sealed")
                        || w.equals("non-sealed") || w.equals("@"))) {
                    return false;
                }
            }
            return false;
        }

        private static boolean isIdentifier(String w) {
            return !w.isEmpty() && Character.isJavaIdentifierStart(w.charAt(0));
        }

        /** The words and punctuation at brace depth 0, without comments, literals or annotation arguments. */
        private static List<String> topLevelWords(String s) {
            List<String> words = new ArrayList<>();
            int depth = 0;
            int parens = 0;
            int i = 0;
            int n = s.length();
            while (i < n) {
                char c = s.charAt(i);
                if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                    while (i < n && s.charAt(i) != '\n') {
                        i++;
                    }
                } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                    int close = s.indexOf("*/", i + 2);
                    i = close < 0 ? n : close + 2;
                } else if (c == '"' && s.startsWith("\"\"\"", i)) {
                    int close = s.indexOf("\"\"\"", i + 3);
                    while (close > 0 && s.charAt(close - 1) == '\\') {
                        close = s.indexOf("\"\"\"", close + 1);
                    }
                    i = close < 0 ? n : close + 3;
                } else if (c == '"' || c == '\'') {
                    i++;
                    while (i < n && s.charAt(i) != c && s.charAt(i) != '\n') {
                        i += s.charAt(i) == '\\' ? 2 : 1;
                    }
                    i++;
                } else if (c == '{' || c == '}') {
                    depth = c == '{' ? depth + 1 : Math.max(0, depth - 1);
                    i++;
                } else if (c == '(' || c == ')') {
                    parens = c == '(' ? parens + 1 : Math.max(0, parens - 1);
                    i++;
                } else if (Character.isJavaIdentifierStart(c)) {
                    int start = i;
                    while (i < n && (Character.isJavaIdentifierPart(s.charAt(i)) || s.charAt(i) == '-' && s.startsWith("non-sealed", start))) {
                        i++;
                    }
                    if (depth == 0 && parens == 0) {
                        words.add(s.substring(start, i));
                    }
                } else {
                    if (depth == 0 && parens == 0 && (c == ';' || c == '.' || c == '@')) {
                        words.add(String.valueOf(c));
                    }
                    i++;
                }
            }
            return words;
        }
    }

    /** The program's text as javac's input, under the file name javac would want. */
    private static final class SourceFile extends SimpleJavaFileObject {
        private final String text;

        SourceFile(String fileName, String text) {
            super(URI.create("string:///" + fileName), Kind.SOURCE);
            this.text = text;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }

    /** Keeps the class files javac writes in memory; everything else goes to the shared file manager. */
    private static final class MemoryOutput extends ForwardingJavaFileManager<StandardJavaFileManager> {
        private final Map<String, byte[]> classes;

        MemoryOutput(StandardJavaFileManager files, Map<String, byte[]> classes) {
            super(files);
            this.classes = classes;
        }

        @Override
        public JavaFileObject getJavaFileForOutput(JavaFileManager.Location location, String className, JavaFileObject.Kind kind,
                FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + kind.extension), kind) {
                @Override
                public OutputStream openOutputStream() {
                    return new ByteArrayOutputStream() {
                        @Override
                        public void close() {
                            classes.put(className, toByteArray());
                        }
                    };
                }
            };
        }

        @Override
        public void close() {
            // the shared file manager outlives the run
        }
    }

    /** One run's loader of the library jars: their classes, and their static state, are the run's own. */
    private static final class Libraries extends URLClassLoader {
        Libraries(URL[] jars) {
            super(jars, ClassLoader.getPlatformClassLoader());
        }

        /** The first of {@code names} this loader has loaded, or null. */
        String loadedAny(List<String> names) {
            for (String name : names) {
                if (findLoadedClass(name) != null) {
                    return name;
                }
            }
            return null;
        }
    }

    /** The program's classes, defined from memory; the libraries' loader behind them. */
    private static final class MemoryLoader extends ClassLoader implements AutoCloseable {
        private final Map<String, byte[]> classes;

        MemoryLoader(Map<String, byte[]> classes, ClassLoader parent) {
            super(parent);  // unnamed, as the application class loader: stack traces look as under java
            this.classes = classes;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = classes.get(name);
            if (bytes == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, bytes, 0, bytes.length);
        }

        @Override
        public void close() {
            // nothing open: the class files live in memory
        }
    }

    // -- output and proof -----------------------------------------------------------------------

    /** The last {@code limit} bytes written: a run's output tail, however much it prints. */
    private static final class Tail extends OutputStream {
        private final byte[] ring;
        private long written;

        Tail(int limit) {
            ring = new byte[limit];
        }

        @Override
        public synchronized void write(int b) {
            ring[(int) (written++ % ring.length)] = (byte) b;
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = 0; i < len; i++) {
                ring[(int) (written++ % ring.length)] = b[off + i];
            }
        }

        synchronized byte[] bytes() {
            int size = (int) Math.min(written, ring.length);
            byte[] out = new byte[size];
            int start = (int) ((written - size) % ring.length);
            for (int i = 0; i < size; i++) {
                out[i] = ring[(start + i) % ring.length];
            }
            return out;
        }
    }

    /** Fresh mode's proof channel: the token from the pipe, the records to the report descriptor. */
    private static final class Channel {
        private final String token;
        private final String report;

        private Channel(String token, String report) {
            this.token = token;
            this.report = report;
        }

        static Channel fromEnvironment() throws IOException {
            SimpilotProof.Named named = SimpilotProof.named();
            return named == null ? new Channel("", null) : new Channel(named.token(), named.report());
        }

        void write(List<String> records) throws IOException {
            if (report == null) {
                return;
            }
            StringBuilder b = new StringBuilder();
            for (String record : records) {
                b.append(token).append('\t').append(record).append('\n');
            }
            try (FileOutputStream out = new FileOutputStream(report, true)) {
                out.write(b.toString().getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** An error's first line, stripped. */
    private static String firstLine(String message) {
        return SimpilotProof.firstLine(message).strip();
    }
}
