#!/bin/bash
# Writes seed inputs for every fuzz target into $1/<target>/: the repository's test fixtures, the files
# in ../shared/conformance (when present), and tiny files written by ffmpeg, sox and lame. `make
# fuzz-seed` merges them (libFuzzer's -merge=1 keeps only inputs that add coverage) into Corpus/.
# Files over 64 KiB are left out.
set -euo pipefail
out=${1:?usage: make-seeds.sh <folder>}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
conformance=${CONFORMANCE:-$root/../shared/conformance}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ff() { ffmpeg -hide_banner -loglevel error -y "$@" || echo "make-seeds: ffmpeg could not write ${*: -1}" >&2; }

# Audio: 50 ms tones in every container and sample format the readers know.
ff -f lavfi -i "sine=frequency=440:duration=0.05:sample_rate=8000" -ac 1 "$tmp/s16.wav"
ff -i "$tmp/s16.wav" -c:a pcm_f32le "$tmp/f32.wav"
ff -i "$tmp/s16.wav" -c:a pcm_u8 "$tmp/u8.wav"
ff -i "$tmp/s16.wav" -c:a pcm_mulaw "$tmp/ulaw.wav"
ff -i "$tmp/s16.wav" -ac 2 -rf64 always "$tmp/rf64.wav"
ff -f lavfi -i "sine=duration=0.05:sample_rate=8000" -af "pan=5.1|c0=c0" -c:a pcm_s24le "$tmp/ext.wav"
sox "$tmp/s16.wav" "$tmp/s16.aiff"
ff -i "$tmp/s16.wav" -c:a pcm_mulaw -f aiff "$tmp/ulaw.aifc"
ff -i "$tmp/s16.wav" -c:a pcm_s24be "$tmp/s24.aiff"
sox "$tmp/s16.wav" "$tmp/s16.au"
sox "$tmp/s16.wav" -e u-law "$tmp/ulaw.au"
ff -i "$tmp/s16.wav" -f caf "$tmp/s16.caf"
ff -i "$tmp/s16.wav" -c:a alac -f caf "$tmp/alac.caf"
ff -i "$tmp/s16.wav" -c:a aac -b:a 32k -f adts "$tmp/lc.aac"
ff -f lavfi -i "sine=duration=0.1:sample_rate=44100" -ac 2 -c:a aac -b:a 64k -f adts "$tmp/stereo.aac"
lame --quiet -b 32 --tt Title --ta Artist --add-id3v2 "$tmp/s16.wav" "$tmp/cbr.mp3"
lame --quiet -V 5 "$tmp/s16.wav" "$tmp/vbr.mp3"
ff -i "$tmp/s16.wav" -c:a libmp3lame -b:a 32k -id3v2_version 3 -write_id3v1 1 "$tmp/id3.mp3" 2>/dev/null || true

# Video: a few frames of 16x16 and 32x24 test pattern.
ff -f lavfi -i "testsrc=size=16x16:rate=25:duration=0.08" -pix_fmt yuv420p "$tmp/420.y4m"
ff -f lavfi -i "testsrc=size=32x24:rate=30000/1001:duration=0.07" -pix_fmt yuv444p "$tmp/444.y4m"
ff -f lavfi -i "testsrc=size=16x16:rate=25:duration=0.08" -pix_fmt gray "$tmp/mono.y4m" 2>/dev/null || true
ff -f lavfi -i "testsrc=size=32x32:rate=25:duration=0.2" -c:v libx264 -preset ultrafast -g 4 -bf 2 \
    -pix_fmt yuv420p "$tmp/main.h264"
ff -f lavfi -i "testsrc=size=48x32:rate=25:duration=0.12" -c:v libx264 -profile:v high -x264-params \
    "cabac=0:8x8dct=1:crop-rect=0,0,8,4" -pix_fmt yuv420p "$tmp/high.h264"
ff -f lavfi -i "testsrc=size=32x32:rate=25:duration=0.12" -c:v libx264 -profile:v baseline -pix_fmt yuv420p "$tmp/base.mp4"

mkdir -p "$out"
put() { local target=$1; shift; mkdir -p "$out/$target"; for f in "$@"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$out/$target/" || true; done; }
fixtures=("$root"/Tests/*/Fixtures/*.{caf,aac,wav,aif,aiff,au,mp3,y4m,h264} "$conformance"/*/*.{caf,aac,wav,aif,aiff,au,mp3})
shopt -s nullglob
aac=("$tmp"/*.aac "$root"/Tests/*/Fixtures/*.aac "$conformance"/*/*.aac)
put ADTS "${aac[@]}"; put ADTSReader "${aac[@]}"; put ADTSStream "${aac[@]}"
put CAF "$tmp"/*.caf "$root"/Tests/*/Fixtures/*.caf "$conformance"/*/*.caf
put CAFStream "$tmp"/*.caf "$root"/Tests/*/Fixtures/*.caf "$conformance"/*/*.caf
put WAV "$tmp"/*.wav; put WAVStream "$tmp"/*.wav
put AIFFStream "$tmp"/*.aiff "$tmp"/*.aifc; put AUStream "$tmp"/*.au; put MP3Stream "$tmp"/*.mp3
put SniffedStream "$tmp"/*.{wav,aiff,aifc,au,caf,aac,mp3}
put Y4M "$tmp"/*.y4m
put AnnexBScanner "$tmp"/*.h264; put AnnexBAccessUnits "$tmp"/*.h264
# The NAL units, avcC and AVCC samples and AudioSpecificConfigs taken out of those files.
python3 - "$tmp" "$out" <<'PY'
import glob, os, re, sys
tmp, out = sys.argv[1], sys.argv[2]
def put(target, name, data):
    os.makedirs(f"{out}/{target}", exist_ok=True)
    open(f"{out}/{target}/{name}", "wb").write(bytes(data))
for path in glob.glob(f"{tmp}/*.h264"):
    stream = open(path, "rb").read()
    units = [u for u in re.split(b"\x00\x00\x01", stream) if u]
    units = [u.rstrip(b"\x00") for u in units]
    units = [u for u in units if u]
    stem = os.path.basename(path)[:-5]
    for i, unit in enumerate(units):
        if unit[0] & 0x1F in (6, 7, 8):
            put("H264ParameterSets", f"{stem}-{i}", unit)
    avcc = b"".join(len(u).to_bytes(4, "big") + u for u in units[:6])
    put("AVCC", f"{stem}-4", b"\x02" + avcc)
    put("AVCC", f"{stem}-2", b"\x01" + b"".join(len(u).to_bytes(2, "big") + u for u in units[:6] if len(u) < 65536))
for path in glob.glob(f"{tmp}/*.mp4"):
    data = open(path, "rb").read()
    at = data.find(b"avcC")
    size = int.from_bytes(data[at - 4:at], "big")
    put("AVCDecoderConfigurationRecord", os.path.basename(path), data[at + 4:at - 4 + size])
for path in glob.glob(f"{tmp}/*.caf"):
    data = open(path, "rb").read()
    at = data.find(b"\x05\x80\x80\x80")  # the DecoderSpecificInfo tag in the esds of the kuki chunk
    if at > 0:
        put("AudioSpecificConfig", os.path.basename(path), data[at + 5:at + 5 + data[at + 4]])
for name, asc in {"lc-44100-2": b"\x12\x10", "lc-8000-1": b"\x15\x88", "he-sbr": b"\x2b\x92\x08\x00",
                  "explicit-rate": b"\x17\x80\x01\xf4\x01\x00", "ps": b"\xeb\x09\x88\x00"}.items():
    put("AudioSpecificConfig", name, asc)
PY
