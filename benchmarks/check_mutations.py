"""Named mutations of the checks that decide a verdict (the proof's records, the work copy's state
and its host-side writes), each run against the tests that must catch it; prints killed/survived.

    .venv/bin/python benchmarks/check_mutations.py

Each mutation edits one file in place and is put back right after its test run (also on error)."""
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[1]
p = root / "replay/execution/proof.py"
orig = p.read_text()
M = [
 ("MAC not verified", "if not hmac.compare_digest(sign(token, body)[:64], mac):", "if False:"),
 ("sequence not checked", "if record.get(\"seq\") != expected:", "if False:"),
 ("tampered event ignored", "tampered.append(str(record.get(\"what\", \"unknown\")))", "pass"),
 ("forged count dropped", "if forged:\n        tampered.append", "if False:\n        tampered.append"),
 ("tampering not first", "    if proof.tampered:  # first", "    if False:  # first"),
 ("end without start", "elif event == \"end\" and started:", "elif event == \"end\":"),
 ("framework list ignored", "tampered += [f\"framework-replaced {t}\" for t in record.get(\"tampered\") or ()]", "pass"),
 ("unfinished run passes", "    if not proof.finished:", "    if False:"),
 ("missing tests pass", "    if missing:\n", "    if False:\n"),
 ("with_tampering drops events", "tampered=(*base.tampered, *events)", "tampered=base.tampered"),
]
killed = 0
for name, a, b in M:
    assert a in orig, name
    p.write_text(orig.replace(a, b, 1))
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly", "tests/test_proof.py", "tests/test_workcopy.py"], cwd=root, capture_output=True, text=True)
    finally:
        p.write_text(orig)
    ok = r.returncode != 0
    killed += ok
    print(f"{'killed  ' if ok else 'SURVIVED'} {name}")
p.write_text(orig)
print(f"{killed}/{len(M)} killed")
w = root / "replay/execution/workcopy.py"
wo = w.read_text()
bn = root / "replay/execution/beneath.py"
bo = bn.read_text()
M2 = [
 (w, wo, "nothing planted", "    events = []\n    for path, entry in sorted(after.items()):", "    events = []\n    for path, entry in []:"),
 (w, wo, "no rebuild after a changed copy", "                self._rebuild()\n\n    @contextmanager", "                pass\n\n    @contextmanager"),
 (bn, bo, "links followed in folders", "_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC", "_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC"),
 (bn, bo, "link followed at the file", "flags | os.O_NOFOLLOW | os.O_NONBLOCK", "flags | os.O_NONBLOCK"),
 (bn, bo, "hard links accepted", "or st.st_nlink != 1", ""),
 (bn, bo, "caches left out of the state", "                stack.append(relative)", "                stack.append(relative) if entry.name != '__pycache__' else None"),
]
k2 = 0
for f, o, name, a, b in M2:
    assert a in o, name
    f.write_text(o.replace(a, b, 1))
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly", "tests/test_workcopy.py"], cwd=root, capture_output=True, text=True)
    finally:
        f.write_text(o)
    ok = r.returncode != 0
    k2 += ok
    print(f"{'killed  ' if ok else 'SURVIVED'} {name}")
print(f"{k2}/{len(M2)} killed (work copy)")
