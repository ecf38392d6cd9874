// simpilot's C# launcher: reports through the proof channel whether the program's Main returned
// (see replay/execution/programs/csharp.py). It is the project's StartupObject.
using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Threading.Tasks;
using Microsoft.Win32.SafeHandles;

static class SimpilotLauncher
{
    static readonly object Gate = new object();
    static string token;
    static FileStream report;
    static volatile bool returned;
    static int status;
    static bool written;

    sealed class AssertProvider : DebugProvider
    {
        public override void Fail(string message, string detailMessage)
        {
            string text = string.IsNullOrEmpty(detailMessage) ? message : message + " " + detailMessage;
            Failed("AssertionError: " + (string.IsNullOrEmpty(text) ? "Debug.Assert failed" : text));
            Environment.FailFast("Assertion failed: " + text);
        }
    }

    static int Main(string[] args)
    {
        TakeToken();
        Debug.SetProvider(new AssertProvider());
        AppDomain.CurrentDomain.ProcessExit += (sender, e) => Finish();
        MethodInfo[] entries = Assembly.GetExecutingAssembly().GetTypes()
            .Where(t => t != typeof(SimpilotLauncher))
            .SelectMany(t => t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
            .Where(m => m.Name == "Main" && !m.IsGenericMethod && (m.GetParameters().Length == 0
                || (m.GetParameters().Length == 1 && m.GetParameters()[0].ParameterType == typeof(string[]))))
            .ToArray();
        if (entries.Length != 1)
        {
            Failed("@COMPILE@" + (entries.Length == 0 ? "the program has no static Main method" : "the program has several static Main methods"));
            return 2;
        }
        MethodInfo entry = entries[0];
        try
        {
            object result = entry.Invoke(null, entry.GetParameters().Length == 0 ? null : new object[] { args });
            if (result is Task task)
            {
                task.GetAwaiter().GetResult();
                PropertyInfo value = task.GetType().GetProperty("Result");
                result = value != null && value.PropertyType == typeof(int) ? value.GetValue(task) : null;
            }
            status = result is int code ? code : 0;
            returned = true;
            return status;
        }
        catch (Exception e)
        {
            Exception cause = e is TargetInvocationException && e.InnerException != null ? e.InnerException : e;
            Failed(cause.GetType().FullName + ": " + cause.Message.Replace('\n', ' '));
            Console.Error.WriteLine("Unhandled exception. " + cause);
            return 1;
        }
    }

    static void TakeToken()
    {
        string spec = Environment.GetEnvironmentVariable("@ENV@");
        Environment.SetEnvironmentVariable("@ENV@", null);
        if (spec == null) return;
        string[] parts = spec.Split(':');
        if (parts.Length != 2 || !int.TryParse(parts[0], out int tokenFd) || !int.TryParse(parts[1], out int reportFd)) return;
        using (var pipe = new FileStream(new SafeFileHandle((IntPtr)tokenFd, true), FileAccess.Read, 1))
        using (var reader = new StreamReader(pipe, Encoding.ASCII))
        {
            token = reader.ReadToEnd().Trim();
        }
        // write-only from here on: what the report holds cannot be read back by the program
        report = new FileStream("/proc/self/fd/" + reportFd, FileMode.Append, FileAccess.Write, FileShare.ReadWrite, 1);
        new SafeFileHandle((IntPtr)reportFd, true).Dispose();
        if (token.Length == 0 || !token.All(char.IsLetterOrDigit)) token = null;
    }

    static string Json(string text)
    {
        var builder = new StringBuilder("\"");
        foreach (char c in text)
        {
            if (c == '"' || c == '\\') builder.Append('\\').Append(c);
            else if (c < ' ') builder.Append("\\u").Append(((int)c).ToString("x4"));
            else builder.Append(c);
        }
        return builder.Append('"').ToString();
    }

    static void Write(params string[] records)
    {
        if (token == null || report == null) return;
        var text = new StringBuilder();
        foreach (string record in records) text.Append(token).Append('\t').Append(record).Append('\n');
        byte[] bytes = Encoding.UTF8.GetBytes(text.ToString());
        report.Write(bytes, 0, bytes.Length);
        report.Flush();
    }

    static void Failed(string message)
    {
        lock (Gate)
        {
            if (written) return;
            written = true;
            Write("{\"event\": \"start\"}", "{\"event\": \"test\", \"id\": \"@TEST@\", \"outcome\": \"failed\"}",
                  "{\"event\": \"error\", \"message\": " + Json(message) + "}");
        }
    }

    static void Finish()
    {
        if (!returned)
        {
            Failed("SystemExit: Environment.Exit was called before Main returned, so the checks after it did not run");
        }
        else if (status != 0)
        {
            Failed("ExitFailure: Main returned " + status);
        }
        else
        {
            lock (Gate)
            {
                if (written) return;
                written = true;
                Write("{\"event\": \"start\"}", "{\"event\": \"test\", \"id\": \"@TEST@\", \"outcome\": \"passed\"}", "{\"event\": \"end\"}");
            }
        }
    }
}
