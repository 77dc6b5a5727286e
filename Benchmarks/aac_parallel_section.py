"""Segment-parallel AAC (`aac-encoder --parallel`, ParallelAACEncoder): how good the joins are, and
where the speed-up starts (the threshold at which the example turns it on by itself).

Called from compare.py's AAC section, after the side-by-side timing against the ffmpeg CLI.
"""
import os
import re
import statistics
import subprocess

from compare import ENCODER, RUNS, WORK, make_wav, timed


def block_errors(decoded, reference):
    """The RMS level (dB) of each 1024-frame block of `decoded` (its 1024 priming frames skipped) minus
    `reference`, as ffmpeg's astats filter measures it: the measurement is ffmpeg's, not ours."""
    log = os.path.join(WORK, "astats.txt")
    graph = ("[0:a]atrim=start_sample=1024,asetpts=PTS-STARTPTS,"
             "aformat=sample_fmts=fltp:channel_layouts=stereo[d];"
             "[1:a]aformat=sample_fmts=fltp:channel_layouts=stereo[s];"
             "[d][s]amerge=inputs=2,pan=stereo|c0=c0-c2|c1=c1-c3,asetnsamples=n=1024,"
             "astats=metadata=1:reset=1:measure_overall=RMS_level:measure_perchannel=none,"
             f"ametadata=print:key=lavfi.astats.Overall.RMS_level:file={log}")
    subprocess.run(["ffmpeg", "-v", "error", "-i", decoded, "-i", reference, "-filter_complex", graph,
                    "-f", "null", "-"], check=True)
    levels = [float(line.split("=")[1]) for line in open(log) if "RMS_level" in line]
    return [10 ** (db / 20) if db > -900 else 0.0 for db in levels]


def segment_starts(wav, out):
    """The first packet of every segment after the first, as `aac-encoder --verbose` reports them."""
    log = subprocess.run([ENCODER, "--verbose", "--parallel", "--input", wav, "--output", out],
                         capture_output=True, text=True, check=True).stderr
    return [int(m.group(1)) for m in re.finditer(r"segment \d+ of \d+: packets (\d+)\.\.<", log)][1:]


def joins(wav, serial_out):
    """Coding error around each join: parallel against serial at the same blocks."""
    parallel_out = os.path.join(WORK, "ours-parallel-joins.aac")
    starts = segment_starts(wav, parallel_out)
    par = block_errors(parallel_out, wav)
    ser = block_errors(serial_out, wav)
    print("\nJoins (coding error against the input, ffmpeg decode + astats, 1024-frame blocks)")
    print(f"  whole file: parallel {statistics.mean(par):.3e}, serial {statistics.mean(ser):.3e} RMS, "
          f"ratio {statistics.mean(par) / statistics.mean(ser):.3f}")
    for start in starts:
        block = start - 1  # packet k decodes (after overlap) to input block k - 1
        first = sum(par[block:block + 4]) / sum(ser[block:block + 4])
        window = sum(par[block:block + 64]) / sum(ser[block:block + 64])
        print(f"  join at packet {start}: error ratio parallel/serial, 4 blocks after {first:.3f}, "
              f"64 blocks after {window:.3f}")


def threshold():
    """Wall time of --parallel against --no-parallel by input length."""
    print("\nWhere --parallel starts to pay (wall, medians of rotating runs; 3072 packets = 65.5 s is the "
          "default threshold)")
    print(f"  {'input':>8}{'--no-parallel s':>17}{'--parallel s':>14}{'ratio':>8}{'CPU ratio':>11}")
    for seconds in (30, 66, 120, 300):
        wav = os.path.join(WORK, f"in-{seconds}s.wav")
        make_wav(wav, seconds / 60)
        out = os.path.join(WORK, "threshold.aac")
        runs = {"serial": [], "parallel": []}
        for i in range(max(3, RUNS)):
            order = ["serial", "parallel"] if i % 2 == 0 else ["parallel", "serial"]
            for mode in order:
                flag = "--no-parallel" if mode == "serial" else "--parallel"
                runs[mode].append(timed([ENCODER, "--quiet", flag, "--input", wav, "--output", out]))
        wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
        cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
        print(f"  {seconds:>6} s{wall['serial']:17.3f}{wall['parallel']:14.3f}"
              f"{wall['parallel'] / wall['serial']:8.2f}{cpu['parallel'] / max(cpu['serial'], 1e-9):11.2f}")


def aac_parallel_section(wav, serial_out):
    joins(wav, serial_out)
    if os.environ.get("SKIP_THRESHOLD") != "1":
        threshold()
