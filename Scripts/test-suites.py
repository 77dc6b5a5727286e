#!/usr/bin/env python3
"""What the Makefile needs to know about the test suites, read from their declarations in Tests/.

    Scripts/test-suites.py check      fails (exit 1, one line per finding) unless
                                      - every top-level suite (`@Suite ... struct|class|enum|actor Name`
                                        at column 0) and every free `@Test` function has a `.timeLimit`,
                                        so that a hang fails its test instead of running into CI's limit;
                                      - `.realTime` and `.valgrind` tags appear only on top-level `@Suite`
                                        lines (the runs select whole suites by them).
    Scripts/test-suites.py realtime [I/N | audio | other]
                                      prints the `swift test --filter/--skip` regex of the suites tagged
                                      `.realTime` but not `.valgrind` (they run one at a time); with I/N,
                                      only shard I of N, dealt as `gated` deals them; with `audio`, those
                                      declared in a file that starts a PulseAudio daemon (`PulseDaemon(`),
                                      with `other` the rest.
    Scripts/test-suites.py valgrind [I/N]
                                      prints the regex of the suites tagged `.valgrind` (they run programs
                                      under valgrind's memcheck): `make test` skips them, `make memcheck`
                                      (in CI's `make gates`) runs them; with I/N, only shard I of N.
    Scripts/test-suites.py gated [I/N]
                                      prints the regex of the suites carrying `.ffmpegLeakGate` that are
                                      neither real-time nor valgrind's: they run one at a time, with the
                                      leak gate on, beside the parallel run of all the others. With I/N (1-based), only shard I of N:
                                      the suites are dealt longest first to the shard with the least time
                                      so far, by the seconds in Tests/suite-seconds.tsv (a suite not listed
                                      counts 5 s).
    Scripts/test-suites.py race-free  prints the regex of the test targets ThreadSanitizer skips: those of
                                      the modules in which the compiler's strict concurrency checking is
                                      never told to trust the code (no `@unchecked`, `nonisolated(unsafe)`,
                                      `Unmanaged`, `pthread_*`, `assumeIsolated`, `@preconcurrency`), so
                                      that Swift 6 already proves them free of data races; ThreadSanitizer
                                      is spent on the modules that make threads or share state by hand.
                                      (The code of other modules such a target calls is run under
                                      ThreadSanitizer by that module's own tests.)
    Scripts/test-suites.py unsanitized
                                      prints the regex of the test targets neither sanitizer runs: ExampleTests,
                                      whose suites run the example programs, as long as Examples/ hold no
                                      escape hatch (above) and touch no memory through a pointer, so that the
                                      compiler proves the examples' own code free of data races and memory
                                      errors. Everything they run beyond it is library code, which the
                                      library's own test targets run under both sanitizers; the plain run
                                      (`make test`) runs ExampleTests. If Examples/ ever hold such code, this
                                      prints `^$`: the sanitizers run ExampleTests again, and
                                      Scripts/sanitized-build.sh builds every program for them.
    Scripts/test-suites.py omitted address|thread
                                      prints, comma-separated, the test targets that sanitizer's run skips
                                      (unsanitized, and for thread race-free too): its build leaves them out
                                      (Scripts/sanitized-build.sh, MEDIAPIPELINE_OMIT_TEST_TARGETS in Package.swift).
    Scripts/test-suites.py sanitized-realtime address|thread [I/N]
                                      prints the regex of the real-time suites that sanitizer runs: each
                                      real-time suite of a sanitized target runs under one of the two, not
                                      both (they mostly wait on real time; the library code they run is run
                                      under both by the other suites). A suite whose target ThreadSanitizer
                                      skips goes to AddressSanitizer; the others are dealt longest first to
                                      the one with less time so far (Tests/suite-seconds.tsv). With I/N, only
                                      shard I of N of that sanitizer's suites.
    Scripts/test-suites.py programs   prints the example programs that test targets other than ExampleTests
                                      run (`TestPaths.executable("name")`), one per line: a sanitized build
                                      builds these beside the test bundle (Scripts/sanitized-build.sh).
    Scripts/test-suites.py seconds LOG...
                                      prints the seconds each suite took in Swift Testing logs, as
                                      Tests/suite-seconds.tsv holds them (refresh it from a quiet run's
                                      .build/test-logs/tests-gated-*.log when shards drift apart).

Whether a suite that waits on real time is tagged is checked when it runs, not here: a PulseAudio
daemon, a streaming server or a `--realtime` example started by a test whose suite lacks the tag
records an issue (MediaTestSupport's `RealTimeCheck`).
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests")
DECL = re.compile(
    r"^@Suite(?P<attr>\([^\n]*\))?\s*\n?(?:@\w+[^\n]*\n)*"
    r"(?:public |final |private |fileprivate )*(?:struct|class|enum|actor)\s+(?P<name>\w+)",
    re.M,
)
FREE_TEST = re.compile(r"^@Test(?P<attr>\([^\n]*\))?\s*\n?\s*func\s+(?P<name>\w+)", re.M)


def sources():
    for root, _, files in os.walk(ROOT):
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, os.path.join(ROOT, "..")), f.read()


def suites():
    """(path, suite name, attribute text) of every top-level suite."""
    for path, text in sources():
        for m in DECL.finditer(text):
            yield path, m.group("name"), m.group("attr") or ""


def check():
    findings = []
    for path, name, attr in suites():
        if ".timeLimit(" not in attr:
            findings.append(f"{path}: suite {name} has no .timeLimit (add one to its @Suite)")
    for path, text in sources():
        for m in FREE_TEST.finditer(text):
            if ".timeLimit(" not in (m.group("attr") or ""):
                findings.append(f"{path}: free test {m.group('name')} has no .timeLimit")
        for number, line in enumerate(text.splitlines(), 1):
            for tag in (".realTime", ".valgrind"):
                if tag in line and "tags(" in line and not line.startswith("@Suite("):
                    findings.append(f"{path}:{number}: the {tag} tag belongs on a top-level @Suite line only")
    for finding in findings:
        print(finding)
    return 1 if findings else 0


SECONDS = os.path.join(ROOT, "suite-seconds.tsv")


def suite_seconds():
    seconds = {}
    if os.path.exists(SECONDS):
        for line in open(SECONDS, encoding="utf-8"):
            fields = line.split()
            if len(fields) == 2 and not line.startswith("#"):
                seconds[fields[0]] = float(fields[1])
    return seconds


def shard(names, index, count):
    seconds = suite_seconds()
    loads = [0.0] * count
    shards = [[] for _ in range(count)]
    for name in sorted(names, key=lambda n: (-seconds.get(n, 5.0), n)):
        least = loads.index(min(loads))
        loads[least] += seconds.get(name, 5.0)
        shards[least].append(name)
    return shards[index - 1]


def logged_seconds(paths):
    line = re.compile(r"Suite (\w+) (?:passed|failed) after ([0-9.]+) seconds")
    seconds = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for m in line.finditer(f.read()):
                seconds[m.group(1)] = float(m.group(2))
    print("# suite\tseconds: one at a time (Scripts/test-suites.py seconds), to balance the gated and real-time shards")
    for name in sorted(seconds):
        print(f"{name}\t{seconds[name]:.1f}")


# What tells the compiler to trust code it cannot check for data races.
ESCAPE_HATCHES = re.compile(
    r"@unchecked|nonisolated\(unsafe\)|\bUnmanaged\b|\bpthread_|assumeIsolated|@preconcurrency|@_unsafeInheritExecutor"
)


def race_free_targets():
    """The test targets `<Module>Tests` whose module's sources hold no escape hatch."""
    sources_root = os.path.join(ROOT, "..", "Sources")
    targets = []
    for module in sorted(os.listdir(sources_root)):
        if not os.path.isdir(os.path.join(ROOT, module + "Tests")):
            continue
        hatches = False
        for directory, _, files in os.walk(os.path.join(sources_root, module)):
            for name in files:
                if name.endswith(".swift"):
                    with open(os.path.join(directory, name), encoding="utf-8") as source:
                        hatches = hatches or bool(ESCAPE_HATCHES.search(source.read()))
        if not hatches:
            targets.append(module + "Tests")
    return targets


# What touches memory through a pointer (passing a buffer pointer on, as a `MediaOutput` does, does not).
POINTER_USE = re.compile(
    r"withUnsafe|\.baseAddress|\.pointee|\.load\((?:as|fromByteOffset)|\.storeBytes\("
    r"|assumingMemoryBound|bindMemory|withMemoryRebound|\.allocate\(|\.initialize\(|\.deallocate\("
    r"|\.advanced\(by|OpaquePointer|unsafeBitCast"
)


def unsanitized_targets():
    """ExampleTests, if the examples' own sources hold no escape hatch and no pointer use."""
    examples = os.path.join(ROOT, "..", "Examples")
    for directory, _, files in os.walk(examples):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name), encoding="utf-8") as source:
                    text = source.read()
                if ESCAPE_HATCHES.search(text) or POINTER_USE.search(text):
                    return []
    return ["ExampleTests"]


PROGRAM = re.compile(r'TestPaths\.executable\("([\w-]+)"\)')


def programs():
    """The example programs run by the test targets the sanitizers run (all but ExampleTests)."""
    names = set()
    for path, text in sources():
        if not path.startswith(os.path.join("Tests", "ExampleTests")):
            names.update(PROGRAM.findall(text))
    return sorted(names)


def omitted(sanitizer):
    """The test targets a sanitizer's run skips."""
    return unsanitized_targets() + (race_free_targets() if sanitizer == "thread" else [])


def sanitized_realtime(targets_of, realtime, sanitizer):
    """The real-time suites `sanitizer` runs: each sanitized one under one sanitizer only."""
    seconds = suite_seconds()
    loads = {"address": 0.0, "thread": 0.0}
    dealt = {"address": [], "thread": []}
    skipped = {name: set(omitted(name)) for name in dealt}
    for name in sorted(realtime, key=lambda n: (-seconds.get(n, 5.0), n)):
        target = targets_of[name]
        if target in skipped["address"]:
            continue
        chosen = "address" if target in skipped["thread"] else min(loads, key=lambda k: (loads[k], k))
        loads[chosen] += seconds.get(name, 5.0)
        dealt[chosen].append(name)
    return dealt[sanitizer]


def regex(names):
    # Test ids read `Target.Suite/test()`, nested suites `Target.Suite/Inner/test()`.
    return r"\.(" + "|".join(sorted(names)) + ")/" if names else "^$"


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    all_suites = list(suites())
    valgrind = {name for _, name, attr in all_suites if ".valgrind" in attr}
    realtime = {name for _, name, attr in all_suites if ".realTime" in attr} - valgrind
    if command == "check":
        return check()
    if command == "realtime" and len(argv) > 2 and argv[2] in ("audio", "other"):
        audio = {name for path, text in sources() if "PulseDaemon(" in text for p, name, _ in all_suites if p == path}
        print(regex(realtime & audio if argv[2] == "audio" else realtime - audio))
        return 0
    if command in ("realtime", "valgrind"):
        names = realtime if command == "realtime" else valgrind
        if len(argv) > 2:
            index, count = (int(n) for n in argv[2].split("/"))
            names = shard(names, index, count)
        print(regex(names))
        return 0
    if command == "gated":
        names = {name for _, name, attr in all_suites if ".ffmpegLeakGate" in attr} - realtime - valgrind
        if len(argv) > 2:
            index, count = (int(n) for n in argv[2].split("/"))
            names = shard(names, index, count)
        print(regex(names))
        return 0
    if command == "omitted" and len(argv) > 2 and argv[2] in ("address", "thread"):
        print(",".join(omitted(argv[2])))
        return 0
    if command == "sanitized-realtime" and len(argv) > 2 and argv[2] in ("address", "thread"):
        # Test ids start with the target: Tests/<Target>/....
        targets_of = {name: path.split(os.sep)[1] for path, name, _ in all_suites}
        names = sanitized_realtime(targets_of, realtime, argv[2])
        if len(argv) > 3:
            index, count = (int(n) for n in argv[3].split("/"))
            names = shard(names, index, count)
        print(regex(names))
        return 0
    if command == "race-free":
        targets = race_free_targets()
        print("(" + "|".join(targets) + r")\." if targets else "^$")
        return 0
    if command == "unsanitized":
        targets = unsanitized_targets()
        print("(" + "|".join(targets) + r")\." if targets else "^$")
        return 0
    if command == "programs":
        print("\n".join(programs()))
        return 0
    if command == "seconds":
        logged_seconds(argv[2:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
