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
ff -f lavfi -i "testsrc=size=32x32:rate=25:duration=0.2" -f lavfi -i "sine=duration=0.2" -c:v libx264 \
    -preset ultrafast -g 4 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 32k "$tmp/av.flv"
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
# Containers for ContainerDemuxer: every file above that libavformat opens, and a fragmented MP4, a
# Matroska, an MPEG-TS and an Ogg, each a fraction of a second.
ff -f lavfi -i "testsrc=size=16x16:rate=10:duration=0.2" -f lavfi -i "sine=duration=0.2:sample_rate=8000" \
    -c:v libx264 -preset ultrafast -c:a aac -b:a 16k -movflags +frag_keyframe+empty_moov "$tmp/frag.mp4"
ff -i "$tmp/frag.mp4" -c copy "$tmp/av.mkv"
ff -i "$tmp/frag.mp4" -c copy "$tmp/av.ts"
ff -i "$tmp/s16.wav" -c:a libopus -b:a 8k "$tmp/opus.ogg"
put ContainerOpen "$tmp"/*.{wav,aiff,caf,aac,mp3,flv,mp4,mkv,ts,ogg}
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
# RTMP: what a publisher sends after the handshake (connect, set chunk size, createStream, publish,
# @setDataFrame, then an FLV's tags as audio and video messages), cut into chunks three ways: chunk size
# 128 with format-0 and format-3 headers; 4096 after a set chunk size with format-1, -2 and -3 headers; and
# timestamps past 0xFFFFFF (extended). The commands alone are AMF0's seeds.
import struct
def amf(*values):
    out = b""
    for v in values:
        if v is None: out += b"\x05"
        elif isinstance(v, bool): out += b"\x01" + bytes([v])
        elif isinstance(v, (int, float)): out += b"\x00" + struct.pack(">d", v)
        elif isinstance(v, str): out += b"\x02" + struct.pack(">H", len(v)) + v.encode()
        elif isinstance(v, dict):
            out += b"\x08" + struct.pack(">I", len(v) - 1) if v.get("__ecma") else b"\x03"
            for k, x in v.items():
                if k != "__ecma": out += struct.pack(">H", len(k)) + k.encode() + amf(x)
            out += b"\x00\x00\x09"
    return out
def chunks(messages, size, fmt_rest, offset=0):
    out, last = b"", {}
    for csid, mtype, sid, ts, payload in messages:
        ts += offset
        prev = last.get(csid)
        field = ts if prev is None or fmt_rest == 0 else ts - prev[1]
        ext = field >= 0xFFFFFF
        f3 = min(field, 0xFFFFFF).to_bytes(3, "big")
        if prev is None or fmt_rest == 0 or prev[2] != sid:
            head = bytes([csid]) + f3 + len(payload).to_bytes(3, "big") + bytes([mtype]) + struct.pack("<I", sid)
        elif prev[0] == (len(payload), mtype) and fmt_rest == 2 and prev[3] == field and not ext:
            head = bytes([0xC0 | csid])  # format 3 starting a message: the last header and delta again
        elif prev[0] == (len(payload), mtype) and fmt_rest == 2:
            head = bytes([0x80 | csid]) + f3
        else:
            head = bytes([0x40 | csid]) + f3 + len(payload).to_bytes(3, "big") + bytes([mtype])
        if ext: head += field.to_bytes(4, "big")
        out += head + payload[:size]
        for at in range(size, len(payload), size):
            out += bytes([0xC0 | csid]) + (field.to_bytes(4, "big") if ext else b"") + payload[at:at + size]
        last[csid] = ((len(payload), mtype), ts, sid, field)
        if mtype == 1: size = int.from_bytes(payload, "big")
    return out
for path in glob.glob(f"{tmp}/*.flv"):
    data = open(path, "rb").read()
    tags, at = [], 13
    while at + 11 <= len(data):
        kind, length = data[at], int.from_bytes(data[at + 1:at + 4], "big")
        ts = int.from_bytes(data[at + 4:at + 7], "big") | data[at + 7] << 24
        tags.append((kind, ts, data[at + 11:at + 11 + length]))
        at += 11 + length + 4
    connect = amf("connect", 1, {"app": "live", "type": "nonprivate", "flashVer": "FMLE/3.0", "tcUrl": "rtmp://127.0.0.1/live"})
    publish = amf("publish", 5, None, "key", "live")
    meta = amf("@setDataFrame", "onMetaData", {"__ecma": True, "duration": 0.2, "width": 32.0, "height": 32.0, "videocodecid": 7.0, "audiocodecid": 10.0})
    head = [(3, 20, 0, 0, connect), (3, 20, 0, 0, amf("releaseStream", 2, None, "key")),
            (3, 20, 0, 0, amf("createStream", 4, None)), (8, 20, 1, 0, publish), (4, 18, 1, 0, meta)]
    media = [(4 if kind == 8 else 6, kind, 1, ts, payload) for kind, ts, payload in tags if kind in (8, 9)]
    put("RTMPChunks", "chunk128", chunks(head + media, 128, 0))
    put("RTMPChunks", "chunk4096", chunks([(2, 1, 0, 0, (4096).to_bytes(4, "big"))] + head + media, 128, 2))
    put("RTMPChunks", "extended", chunks(head + media[:12], 128, 0, offset=0x1000000))
    put("AMF0", "connect", connect)
    put("AMF0", "publish", publish)
    put("AMF0", "metadata", meta)
    put("AMF0", "result", amf("_result", 1, {"fmsVer": "FMS/3,0,1,123", "capabilities": 31},
                              {"level": "status", "code": "NetConnection.Connect.Success"}))
for name, asc in {"lc-44100-2": b"\x12\x10", "lc-8000-1": b"\x15\x88", "he-sbr": b"\x2b\x92\x08\x00",
                  "explicit-rate": b"\x17\x80\x01\xf4\x01\x00", "ps": b"\xeb\x09\x88\x00"}.items():
    put("AudioSpecificConfig", name, asc)
PY
