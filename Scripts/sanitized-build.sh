#!/usr/bin/env bash
# Builds the test bundle with a sanitizer, and the example programs that the sanitized tests run (the
# test targets but ExampleTests: Scripts/test-suites.py programs), in .build-asan or .build-tsan. Not the
# other examples, the snippets or the benchmark programs, nor the test targets the sanitizer's run skips:
# no sanitized test runs them (Scripts/run-tests.sh).
#
# Optimised (-c release, with -enable-testing for the tests' @testable imports; the test targets' own code
# stays unoptimised, Package.swift's `testStrict`): the library's tests then run about twice as fast as in a
# sanitized debug build (AddressSanitizer's parallel run here: 180 s instead of 366), for a build about as
# long; and the sanitizers see the code users run, in which the optimiser ends
# objects' lifetimes at their last use, so a pointer that outlives its `withUnsafe...` scope or its owner
# fails here when a debug build, which keeps every object to the end of its scope, would hide it. The plain
# test run (`make test`) stays a debug build. Every command below passes the same flags, so the programs
# reuse the bundle's modules instead of building them again.
#
# Usage: Scripts/sanitized-build.sh address|thread
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
address) scratch=.build-asan ;;
thread) scratch=.build-tsan ;;
*)
    echo "usage: Scripts/sanitized-build.sh address|thread" >&2
    exit 2
    ;;
esac
swift=${SWIFT:-swift}
# Package.swift leaves out the test targets this sanitizer's run skips (Scripts/run-tests.sh says which).
MEDIAPIPELINE_OMIT_TEST_TARGETS=$(Scripts/test-suites.py omitted "$1")
export MEDIAPIPELINE_OMIT_TEST_TARGETS
flags=(-c release -Xswiftc -enable-testing --sanitize="$1" --scratch-path "$scratch")
# Should the sanitizers run ExampleTests again (Scripts/test-suites.py unsanitized prints `^$` once an
# example holds code the compiler cannot prove safe), those tests need every program: build everything.
if [ "$(Scripts/test-suites.py unsanitized)" = '^$' ]; then
    exec "$swift" build --build-tests "${flags[@]}"
fi
"$swift" build --product MediaPipelinePackageTests "${flags[@]}"
for program in $(Scripts/test-suites.py programs); do
    "$swift" build --product "$program" "${flags[@]}"
done
