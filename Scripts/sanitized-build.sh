#!/usr/bin/env bash
# Builds the test bundle with a sanitizer, and the example programs that the sanitized tests run (the
# test targets but ExampleTests: Scripts/test-suites.py programs), in .build-asan or .build-tsan. Not the
# other examples, the snippets or the benchmark programs: no sanitized test runs them (Scripts/run-tests.sh).
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
# Should the sanitizers run ExampleTests again (Scripts/test-suites.py unsanitized prints `^$` once an
# example holds code the compiler cannot prove safe), those tests need every program: build everything.
if [ "$(Scripts/test-suites.py unsanitized)" = '^$' ]; then
    exec "$swift" build --build-tests --sanitize="$1" --scratch-path "$scratch"
fi
"$swift" build --product MediaPipelinePackageTests --sanitize="$1" --scratch-path "$scratch"
for program in $(Scripts/test-suites.py programs); do
    "$swift" build --product "$program" --sanitize="$1" --scratch-path "$scratch"
done
