#!/usr/bin/env python3
"""What the Makefile needs to know about the test suites, read from their declarations in Tests/.

    Scripts/test-suites.py check      fails (exit 1, one line per finding) unless
                                      - every top-level suite (`@Suite ... struct|class|enum|actor Name`
                                        at column 0) and every free `@Test` function has a `.timeLimit`,
                                        so that a hang fails its test instead of running into CI's limit;
                                      - `.tags(.realTime)` appears only on top-level `@Suite` lines (the
                                        live run selects whole suites by it).
    Scripts/test-suites.py realtime   prints the `swift test --filter/--skip` regex of the suites tagged
                                      `.realTime` (they run after the others, one at a time).
    Scripts/test-suites.py gated      prints the regex of the suites carrying `.ffmpegLeakGate` that are not
                                      real-time: they run one at a time, with the leak gate on, beside the
                                      parallel run of all the others.

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
            if ".realTime" in line and "tags(" in line and not line.startswith("@Suite("):
                findings.append(f"{path}:{number}: .tags(.realTime) belongs on a top-level @Suite line only")
    for finding in findings:
        print(finding)
    return 1 if findings else 0


def regex(names):
    # Test ids read `Target.Suite/test()`, nested suites `Target.Suite/Inner/test()`.
    return r"\.(" + "|".join(sorted(names)) + ")/" if names else "^$"


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    all_suites = list(suites())
    realtime = {name for _, name, attr in all_suites if ".realTime" in attr}
    if command == "check":
        return check()
    if command == "realtime":
        print(regex(realtime))
        return 0
    if command == "gated":
        print(regex({name for _, name, attr in all_suites if ".ffmpegLeakGate" in attr} - realtime))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
