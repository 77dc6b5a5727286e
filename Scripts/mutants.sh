#!/usr/bin/env bash
# Hand-made mutation testing: applies each mutant listed in Tests/Mutants/mutants.txt to the
# source tree in place, builds (`swift build --build-tests`, incremental: one module rebuilds), runs the
# tests the mutant names (`swift test --skip-build --filter <regex>`), and records
#   KILLED    some test failed (or the run timed out): the tests catch this bug
#   SURVIVED  every selected test passed: a test gap
#   BROKEN    the mutant did not compile (a bad mutant, not a result)
#   NO-TESTS  the filter selected no test (a bad filter, not a result)
#   NOT-FOUND the original text does not occur exactly once in the file (the code moved on)
# then restores the file. A trap restores it on any exit (error, Ctrl-C); at the end the script checks
# that `git status` and `git diff` are what they were before it started.
#
# Usage: Scripts/mutants.sh [mutant-id ...]     (no ids: every mutant)
#        Scripts/mutants.sh --check              (`make lint`: only checks that every mutant still applies,
#                                                 its original text occurring exactly once in its file)
# Environment: SWIFT (default swift), MUTANT_TIMEOUT (seconds per test run, default 900),
#   MUTANT_LOGS (default .build/mutants: one build and one test log per mutant).
# Exit status: 0 when every mutant run was KILLED, 1 otherwise (any SURVIVED, BROKEN, NO-TESTS,
#   NOT-FOUND), 2 for a usage error or a tree that was not left as found.
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
LIST="$ROOT/Tests/Mutants/mutants.txt"
SWIFT=${SWIFT:-swift}
TIMEOUT=${MUTANT_TIMEOUT:-900}
LOGS=${MUTANT_LOGS:-$ROOT/.build/mutants}
mkdir -p "$LOGS"

[ -f "$LIST" ] || { echo "no $LIST" >&2; exit 2; }

if [ "${1:-}" = "--check" ]; then
    python3 - "$LIST" <<'PY'
import sys
bad = 0
for number, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    if not line.strip() or line.startswith("#"):
        continue
    fields = line.rstrip("\n").split("\t")
    if len(fields) != 7:
        print(f"mutants.txt:{number}: {len(fields)} fields, not 7"); bad = 1; continue
    mutant, _, path, original = fields[:4]
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        print(f"mutants.txt:{number}: mutant {mutant}: no file {path}"); bad = 1; continue
    count = text.count(original.replace("\\n", "\n").replace("\\t", "\t"))
    if count != 1:
        print(f"mutants.txt:{number}: mutant {mutant} no longer applies: its original text occurs {count} times in {path}")
        bad = 1
sys.exit(bad)
PY
    exit $?
fi

status_before=$(git status --porcelain)
diff_before=$(git diff | sha256sum)

# The one file currently mutated, and its pristine bytes.
BACKUP=$(mktemp)
CURRENT=""
restore() {
    if [ -n "$CURRENT" ]; then
        cp "$BACKUP" "$CURRENT"  # a new mtime on purpose: the next build must recompile the module
        CURRENT=""
    fi
}
cleanup() {
    restore
    rm -f "$BACKUP"
}
trap cleanup EXIT
trap 'echo "interrupted: restoring" >&2; exit 130' INT TERM

# Replaces the one occurrence of $2 in file $1 by $3 (literally; \t and \n in the list stand for a tab
# and a newline). Exit 3 when the text occurs zero or several times.
apply_mutant() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
old = old.replace("\\n", "\n").replace("\\t", "\t")
new = new.replace("\\n", "\n").replace("\\t", "\t")
text = open(path, encoding="utf-8").read()
if text.count(old) != 1:
    print(f"{path}: the original text occurs {text.count(old)} times", file=sys.stderr)
    sys.exit(3)
open(path, "w", encoding="utf-8").write(text.replace(old, new))
PY
}

declare -a wanted=("$@")
is_wanted() {
    [ ${#wanted[@]} -eq 0 ] && return 0
    local w
    for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done
    return 1
}

declare -a rows=()
failed=0
ran=0
started=$(date +%s)
while IFS=$'\t' read -r id module file original replacement filter why; do
    case "$id" in '' | '#'*) continue ;; esac
    is_wanted "$id" || continue
    ran=$((ran + 1))
    t0=$(date +%s)
    result=""
    detail=""
    if [ ! -f "$file" ]; then
        result="NOT-FOUND"
        detail="no file $file"
    else
        cp "$file" "$BACKUP"
        CURRENT=$file
        if ! apply_mutant "$file" "$original" "$replacement" 2>"$LOGS/$id.apply.log"; then
            result="NOT-FOUND"
            detail=$(cat "$LOGS/$id.apply.log")
        elif ! nice -n 10 "$SWIFT" build --build-tests </dev/null >"$LOGS/$id.build.log" 2>&1; then
            result="BROKEN"
            detail=$(grep -m1 'error:' "$LOGS/$id.build.log")
        else
            # Live audio tests (a private PulseAudio daemon, real-time streams) run one at a time, as in `make test`.
            serial=()
            case "$filter" in *Pulse* | *Capture* | *Playback* | *AudioRecorder* | *AudioPlayer* | *Streaming*)
                serial=(--no-parallel) ;;
            esac
            timeout "$TIMEOUT" nice -n 10 "$SWIFT" test --skip-build "${serial[@]}" --filter "$filter" </dev/null >"$LOGS/$id.test.log" 2>&1
            code=$?
            if [ $code -eq 124 ]; then
                result="KILLED"
                detail="timed out after ${TIMEOUT}s"
            elif [ $code -ne 0 ]; then
                result="KILLED"
                detail=$(grep -a -m1 -E '✘ Test .*(failed|recorded)|error:|Fatal error' "$LOGS/$id.test.log" \
                    | sed -E 's/^.*✘ Test //' | cut -c1-110)
            elif grep -a -q -E 'Test run with 0 tests' "$LOGS/$id.test.log" \
                || ! grep -a -q -E 'Test run with [0-9]+ tests?( in [0-9]+ suites?)? passed|Executed [1-9]' "$LOGS/$id.test.log"; then
                result="NO-TESTS"
                detail="filter '$filter' selected no test"
            else
                result="SURVIVED"
                detail=$(grep -a -m1 -o -E 'Test run with [0-9]+ tests?( in [0-9]+ suites?)? passed' "$LOGS/$id.test.log")
            fi
        fi
        restore
    fi
    [ "$result" = "KILLED" ] || failed=1
    secs=$(($(date +%s) - t0))
    rows+=("$(printf '%-10s %-15s %-9s %5ss  %s' "$id" "$module" "$result" "$secs" "$detail")")
    echo "${rows[-1]}"
done <"$LIST"

echo
echo "---- mutants: $ran run in $(($(date +%s) - started))s (logs in $LOGS) ----"
printf '%-10s %-15s %-9s %6s  %s\n' "id" "module" "result" "time" "detail"
for row in "${rows[@]}"; do echo "$row"; done

if [ ${#wanted[@]} -gt 0 ] && [ "$ran" -ne ${#wanted[@]} ]; then
    echo "some named mutants are not in $LIST" >&2
    failed=1
fi

cleanup
trap - EXIT
if [ "$(git status --porcelain)" != "$status_before" ] || [ "$(git diff | sha256sum)" != "$diff_before" ]; then
    echo "the tree is not as it was before the run: see git status" >&2
    exit 2
fi
exit $failed
