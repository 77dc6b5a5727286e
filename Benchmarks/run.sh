#!/usr/bin/env bash
# Side-by-side benchmarks of MediaPipeline's examples against the ffmpeg CLI on the same input with
# the same encoder settings. Expects a release build (`make bench` does it). See README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 Benchmarks/compare.py "$@"
