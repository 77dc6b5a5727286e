#!/usr/bin/env bash
# Times the phases of `make test` and `.ci/run`, so that the test loop's budget stays visible.
#
#   Scripts/phase.sh NAME COMMAND...   runs COMMAND, prints "==== NAME: passed in 83 s" (or failed) and
#                                      appends NAME, seconds and the outcome to $PHASE_LOG; exits as COMMAND did
#   Scripts/phase.sh --reset           empties $PHASE_LOG (a no-op when PHASE_KEEP=1: .ci/run sets it so that
#                                      `make test` adds its phases to CI's table instead of starting a new one)
#   Scripts/phase.sh --summary         prints the table of the phases in $PHASE_LOG and their total
#
# PHASE_LOG defaults to .build/test-logs/phases.tsv.
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${PHASE_LOG:-$PWD/.build/test-logs/phases.tsv}
mkdir -p "$(dirname "$LOG")"

case "${1:-}" in
--reset)
    [ "${PHASE_KEEP:-0}" = 1 ] || : >"$LOG"
    exit 0
    ;;
--summary)
    [ -s "$LOG" ] || exit 0
    echo
    echo "==== phases (seconds of wall time on $(nproc) cores)"
    awk -F'\t' '{ printf "  %-28s %6d s  %5.1f min  %s\n", $1, $2, $2 / 60, $3; total += $2 }
        END { printf "  %-28s %6d s  %5.1f min\n", "total", total, total / 60 }' "$LOG"
    exit 0
    ;;
"" | -*)
    sed -n '2,10p' "$0" >&2
    exit 2
    ;;
esac

name=$1
shift
echo "==== $name: $*"
start=$(date +%s)
"$@"
status=$?
seconds=$(($(date +%s) - start))
outcome=passed
[ $status -eq 0 ] || outcome="failed (exit $status)"
printf '%s\t%s\t%s\n' "$name" "$seconds" "$outcome" >>"$LOG"
echo "==== $name: $outcome in $seconds s"
exit $status
