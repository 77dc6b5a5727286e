#!/usr/bin/env bash
# Runs a command that mostly waits on real time (a sanitizer's real-time suites leave about 80% of the
# CPU idle here) with a CPU-bound one beside it at idle priority, so that the second uses the CPU the
# first leaves idle without taking any from it: the way .ci/run overlaps the next build with the
# real-time tests (Makefile, `gates`).
#
#   Scripts/beside.sh NAME "IDLE COMMAND" COMMAND...
#
# IDLE COMMAND (run by bash -c) runs in the background under SCHED_IDLE (`chrt --idle 0`: the kernel
# gives it a CPU only when no other task wants one, and the compilers it starts inherit that), its
# output in $TEST_LOGS/NAME.log; COMMAND runs in the foreground at the caller's priority. Both run to
# their end (a failed COMMAND does not stop a build that later phases need). Exit status: COMMAND's
# if it failed, else IDLE COMMAND's; when IDLE COMMAND fails, its log's last lines are printed.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
TEST_LOGS=${TEST_LOGS:-$PWD/.build/test-logs}
mkdir -p "$TEST_LOGS"
name=$1 idle=$2
shift 2
log="$TEST_LOGS/$name.log"

start=$(date +%s)
echo "---- $name: started at idle priority beside \"$*\" (output: $log)"
(
    chrt --idle 0 bash -c "$idle" >"$log" 2>&1
    status=$?
    echo "---- $name: exit $status after $(($(date +%s) - start)) s" >>"$log"
    exit $status
) &
background=$!

"$@"
status=$?
echo "---- foreground: exit $status after $(($(date +%s) - start)) s; waiting for $name"
wait "$background"
idle_status=$?
tail -n 1 "$log"
if [ $idle_status -ne 0 ]; then
    echo "---- $name failed; the last lines of $log:"
    tail -n 30 "$log"
fi
[ $status -ne 0 ] && exit $status
exit $idle_status
