"""Export: `transcode --export-preset 1280x720` (MediaExportSession's AVAssetExportPreset1280x720) against
the equivalent ffmpeg command on the same 1080p movie, side by side, with the outputs' frame counts
compared (issue 33: ≤ 1.0× the CLI's wall time)."""
import os
import subprocess

from compare import TRANSCODE, WORK, compare


def make_movie(path, seconds):
    """A 1920x1080 30 fps H.264 (veryfast) + 48 kHz stereo AAC MP4 of `seconds`."""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size=1920x1080:rate=30:duration={seconds}", "-f", "lavfi", "-i",
                    f"sine=frequency=440:sample_rate=48000:duration={seconds}", "-ac", "2",
                    "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "-shortest", path], check=True)


def frame_counts(path):
    """ffprobe's decoded frame count of each stream."""
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                          "stream=codec_name,nb_read_frames", "-of", "csv=p=0", path],
                         check=True, capture_output=True, text=True).stdout
    return out.split()


def export_section(seconds=20):
    if not os.path.exists(TRANSCODE):
        raise SystemExit("build first: swift build -c release --product transcode")
    movie = os.path.join(WORK, f"export-1080p-{seconds}s.mp4")
    make_movie(movie, seconds)
    ours = os.path.join(WORK, "export-ours.mp4")
    theirs = os.path.join(WORK, "export-ffmpeg.mp4")
    print(f"\nExport: {seconds} s of 1080p30 H.264 + AAC → 1280x720 H.264 + AAC 128 kb/s")
    compare("transcode --export-preset 1280x720 vs ffmpeg -vf scale=1280:720 -c:v libx264 -c:a aac", [
        ("transcode (export session)", [TRANSCODE, "-q", "--input", movie, "--output", ours,
                                        "--export-preset", "1280x720"]),
        ("ffmpeg CLI", ["ffmpeg", "-v", "error", "-y", "-i", movie, "-vf", "scale=1280:720", "-c:v", "libx264",
                        "-c:a", "aac", "-b:a", "128k", theirs])],
        remove={"transcode (export session)": [ours], "ffmpeg CLI": [theirs]})
    print(f"  frames (codec,count): ours {frame_counts(ours)}, ffmpeg's {frame_counts(theirs)}")
