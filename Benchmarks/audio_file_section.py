"""Issue 10's benchmarks, run by compare.py (unless SKIP_AUDIOFILE=1), side by side with the ffmpeg CLI:

1. Parsing throughput per container: `mux-benchmark audio-parse FILE -` (AudioFileStreamParser over the
   whole file, pure Swift, what media-info does) against `ffmpeg -i FILE -c copy -f null -` on the same
   10-minute file. Target: ≥ 5× the CLI's throughput (wall ratio ≤ 0.2).
2. Heap allocations per packet while parsing (valgrind, 1 vs 2 minutes of MP3): target 0 in steady state.
3. MP3 → WAV decode: `audio-convert --input x.mp3 --output x.wav` against `ffmpeg -i x.mp3 x.wav`.
   Target: wall ≤ 1.0.
"""
import os
import re
import shutil
import subprocess

from compare import WORK, compare

ROOT = os.path.abspath(".build/release")
MUXBENCH = os.path.join(ROOT, "mux-benchmark")
CONVERT = os.path.join(ROOT, "audio-convert")

# (label, extension, ffmpeg output arguments)
FORMATS = [
    ("WAVE s16", "wav", ["-c:a", "pcm_s16le", "-f", "wav"]),
    ("AIFF s16", "aif", ["-c:a", "pcm_s16be", "-f", "aiff"]),
    ("CAF ALAC", "caf", ["-c:a", "alac", "-f", "caf"]),
    ("NeXT s16", "au", ["-c:a", "pcm_s16be", "-f", "au"]),
    ("ADTS AAC", "aac", ["-c:a", "aac", "-b:a", "128k", "-f", "adts"]),
    ("MP3 128k", "mp3", ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"]),
]


def make(path, minutes, arguments):
    """`minutes` of 44.1 kHz stereo (two tones plus noise) written by ffmpeg with `arguments`, made once."""
    if os.path.exists(path):
        return
    seconds = minutes * 60
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"aevalsrc=0.3*sin(2*PI*440*t)+0.2*sin(2*PI*1234*t)+0.05*(random(0)-0.5)|"
                    f"0.3*sin(2*PI*660*t)+0.05*(random(1)-0.5):s=44100:d={seconds}"] + arguments + [path], check=True)


def parse_section():
    print("\nParsing: AudioFileStreamParser (mux-benchmark audio-parse) vs ffmpeg -c copy -f null, 10 minutes each")
    for label, ext, arguments in FORMATS:
        path = os.path.join(WORK, f"audio-10min.{ext}")
        make(path, 10, arguments)
        med = compare(f"{label} ({os.path.getsize(path) / 1e6:.0f} MB)", [
            ("audio-parse (ours)", [MUXBENCH, "audio-parse", path, "-"]),
            ("ffmpeg -c copy -f null", ["ffmpeg", "-v", "error", "-i", path, "-c", "copy", "-f", "null", "-"])])
        ratio = med["ffmpeg -c copy -f null"][0] / med["audio-parse (ours)"][0]
        mb = os.path.getsize(path) / 1e6
        print(f"  throughput: ours {mb / med['audio-parse (ours)'][0]:.0f} MB/s, ffmpeg {mb / med['ffmpeg -c copy -f null'][0]:.0f} MB/s: "
              f"{ratio:.1f}x (target ≥ 5: {'met' if ratio >= 5 else 'NOT met'})")


def allocation_section():
    if not shutil.which("valgrind"):
        return
    counts = {}
    for minutes in (1, 2):
        path = os.path.join(WORK, f"audio-{minutes}min.mp3")
        make(path, minutes, ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"])
        run = subprocess.run(["valgrind", "--tool=memcheck", MUXBENCH, "audio-parse", path, "-"], capture_output=True, text=True)
        allocs = int(re.search(r"total heap usage: ([\d,]+) allocs", run.stderr).group(1).replace(",", ""))
        packets = int(re.search(r"packets=(\d+)", run.stderr).group(1))
        counts[minutes] = (allocs, packets)
    (a1, p1), (a2, p2) = counts[1], counts[2]
    print(f"\nHeap allocations parsing MP3 (valgrind): 1 min {a1} allocs / {p1} packets, 2 min {a2} / {p2}: "
          f"{(a2 - a1) / (p2 - p1):.3f} per packet")


def decode_section():
    mp3 = os.path.join(WORK, "audio-10min.mp3")
    make(mp3, 10, ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"])
    ours = os.path.join(WORK, "decoded-ours.wav")
    theirs = os.path.join(WORK, "decoded-ffmpeg.wav")
    compare("MP3 → WAV decode, 10 minutes: audio-convert vs ffmpeg -i x.mp3 x.wav", [
        ("audio-convert", [CONVERT, "-q", "--input", mp3, "--output", ours]),
        ("ffmpeg CLI", ["ffmpeg", "-v", "error", "-y", "-i", mp3, theirs])],
        remove={"audio-convert": [ours], "ffmpeg CLI": [theirs]})


def audio_file_section():
    for binary in (MUXBENCH, CONVERT):
        if not os.path.exists(binary):
            raise SystemExit(f"build first: swift build -c release --product {os.path.basename(binary)}")
    parse_section()
    allocation_section()
    decode_section()
