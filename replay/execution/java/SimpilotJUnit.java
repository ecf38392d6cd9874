import java.io.File;
import java.io.IOException;
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
import java.util.Set;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
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
 * <p>Arguments: {@code --classpath CP [--compile FILE]... [--select CLASS]... [--scan DIR]...}. The
 * edited classes go to a temporary folder that is deleted afterwards, so the work copy is untouched.
 *
 * <p>Output lines simpilot parses: {@code SIMPILOT-COMPILE-ERROR file:line: key: message},
 * {@code SIMPILOT-FAILED test => exception: message}, {@code SIMPILOT-SUMMARY ...}. Exit codes:
 * 0 all passed, 1 a test failed, 3 compilation failed, 4 no tests found, 2 bad arguments.
 */
public final class SimpilotJUnit {
    private SimpilotJUnit() {}

    public static void main(String[] args) throws Exception {
        String classpath = "";
        List<String> sources = new ArrayList<>();
        List<String> classes = new ArrayList<>();
        List<String> scanRoots = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--classpath" -> classpath = value;
                case "--compile" -> sources.add(value);
                case "--select" -> classes.add(value);
                case "--scan" -> scanRoots.add(value);
                default -> {
                    System.out.println("SIMPILOT-USAGE unknown argument " + args[i]);
                    System.exit(2);
                }
            }
            i++;
        }
        if (classpath == null || classpath.isEmpty()) {
            System.out.println("SIMPILOT-USAGE --classpath is required");
            System.exit(2);
        }
        Path out = Files.createTempDirectory("simpilot-edited-");
        int status;
        try {
            status = sources.isEmpty() || compile(sources, out.toString(), classpath) ? runTests(out.toString(), classpath, classes, scanRoots) : 3;
        } finally {
            deleteTree(out);
        }
        System.out.flush();
        System.exit(status);
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static boolean compile(List<String> sources, String out, String classpath) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            System.out.println("SIMPILOT-COMPILE-ERROR no Java compiler in this runtime: install a JDK, not a JRE");
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
            }
            return ok;
        }
    }

    private static int runTests(String out, String classpath, List<String> classes, List<String> scanRoots) throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(new File(out).toURI().toURL());
        for (String entry : classpath.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), SimpilotJUnit.class.getClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (String name : classes) {
            try {
                selectors.add(DiscoverySelectors.selectClass(loader.loadClass(name)));
            } catch (ClassNotFoundException | LinkageError e) {
                System.out.println("SIMPILOT-FAILED " + name + " => " + e.getClass().getName() + ": " + firstLine(e.getMessage()));
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
        launcher.execute(request, listener);
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

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
