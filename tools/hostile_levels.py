"""Load a corpus of hostile level files, each in a fresh process; report time and peak memory.

    python tools/hostile_levels.py [--keep DIR] [--only NAME]

Every file is generated here (nothing large is committed). Each is loaded by
``game.level.load`` in a child process that reports its wall time and its peak resident
memory (VmHWM, MB, including the interpreter and numpy, about 40 MB); the verdict is
"loaded" or the first 100 characters of the one-line refusal. The budget (issue 14): under
2 s and 500 MB for any file, accepted or refused.
"""
import argparse
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGET_S, BUDGET_MB = 2.0, 500.0
MAX_FILE_BYTES = 16 * 1024 * 1024
WALL = {"a": [0, 0], "b": [32, 0]}

CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from game.level import LevelError, load
t0, c0 = time.perf_counter(), time.process_time()
try:
    load(sys.argv[2])
    verdict = "loaded"
except LevelError as e:
    verdict = str(e)
    assert "\n" not in verdict and len(verdict) <= 400, "message not bounded"
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
peak_kb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
print(f"{seconds:.3f} {cpu:.3f} {peak_kb / 1024:.0f} {verdict[:100]}")
"""


def spiral(n, scale=1.0, x=0.0, y=0.0):
    """A simple spiral polygon of n corners (two arms, a worst case for ear clipping)."""
    outer = [(x + scale * (1 + k) * math.cos(k * 0.35), y + scale * (1 + k) * math.sin(k * 0.35)) for k in range(n // 2)]
    inner = [(x + scale * (0.6 + k) * math.cos(k * 0.35), y + scale * (0.6 + k) * math.sin(k * 0.35)) for k in range(n // 2)]
    return [[round(a, 6), round(b, 6)] for a, b in outer + inner[::-1]]


def snapshot_balls(n):
    import random
    rng = random.Random(1)
    return [{"pos": [rng.uniform(0, 32), rng.uniform(0, 18)], "vel": [rng.uniform(-1, 1), rng.uniform(-1, 1)],
             "spin": rng.uniform(-5, 5), "radius": 0.05, "mass": rng.uniform(0.001, 0.01)} for _ in range(n)]


def corpus(folder):
    """(name, path) of each hostile file, written into folder."""
    def write(name, doc=None, text=None):
        path = os.path.join(folder, name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text if text is not None else json.dumps(doc, separators=(",", ":")))
        return name, path

    yield write("unknown_key_4M", text='{"segments":[' + json.dumps(WALL) + '],"' + "k" * 4_000_000 + '":1}')
    yield write("unknown_key_16M", text='{"segments":[' + json.dumps(WALL) + '],"' + "k" * (MAX_FILE_BYTES - 64) + '":1}')
    yield write("long_name_value", {"name": "n" * 10_000_000, "segments": [WALL]})
    s = spiral(256)
    yield write("spirals_50", {"segments": [WALL], "polygons": [{"points": s}] * 50})
    yield write("spirals_2000", {"segments": [WALL], "polygons": [{"points": s}] * 2000})
    yield write("convex_2000x256", {"segments": [WALL], "polygons": [
        {"points": [[16 + 5 * math.cos(2 * math.pi * k / 256), 9 + 5 * math.sin(2 * math.pi * k / 256)]
                    for k in range(256)]}] * 2000})
    line = [[k * 0.01, (k % 2) * 0.5] for k in range(800)]
    yield write("polylines_1000x800", {"segments": [WALL], "polylines": [{"points": line}] * 1000})
    yield write("polylines_25x800", {"segments": [WALL], "polylines": [{"points": line}] * 25})
    yield write("balls_5000_one_point", {"segments": [WALL], "balls": [{"pos": [5, 5]}] * 5000})
    yield write("balls_78033_minimal", {"segments": [WALL], "balls": [{"pos": [5, 5]}] * 78033})
    yield write("balls_78034_minimal", {"segments": [WALL], "balls": [{"pos": [5, 5]}] * 78034})
    yield write("balls_snapshot_70000", {"segments": [WALL], "balls": snapshot_balls(70000)})
    yield write("springs_20000", {"segments": [WALL], "balls": [{"pos": [k * 0.001, 1]} for k in range(20001)],
                                  "springs": [{"a": k, "b": k + 1} for k in range(20000)]})
    yield write("comment_16M_list", text='{"segments":[' + json.dumps(WALL) + '],"_c":['
                + ",".join(["0"] * ((MAX_FILE_BYTES - 100) // 2)) + "]}")
    yield write("comment_points_16M", text='{"segments":[' + json.dumps(WALL) + '],"_c":['
                + ",".join(["[0,0]"] * ((MAX_FILE_BYTES - 100) // 6)) + "]}")
    yield write("syntax_error_at_end_16M", text='{"segments":[' + json.dumps(WALL) + '],"_c":['
                + ",".join(["0"] * ((MAX_FILE_BYTES - 100) // 2)) + "]")
    yield write("bad_point_at_end_polylines", {"segments": [WALL], "polylines": [{"points": line}] * 24 + [
        {"points": line[:-1] + [[0, "x"]]}]})
    yield write("deep_nesting", text='{"_c":' + "[" * 1_000_000 + "]" * 1_000_000 + ',"segments":[' +
                json.dumps(WALL) + "]}")
    yield write("nan_at_end", text='{"segments":[' + json.dumps(WALL) + '],"_c":[' + ",".join(["0"] * 5_000_000) + ",NaN]}")
    path = os.path.join(folder, "over_limit.json")
    with open(path, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    yield "over_limit_by_1_byte", path
    fifo = os.path.join(folder, "fifo.json")
    os.mkfifo(fifo)
    yield "fifo", fifo
    yield "device", "/dev/zero"
    sock = os.path.join(folder, "socket.json")
    server = socket.socket(socket.AF_UNIX)
    server.bind(sock)
    yield "socket", sock


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--keep", help="write the corpus here (kept) instead of a temporary folder")
    p.add_argument("--only", help="only the files whose name contains this")
    args = p.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="ballpit-hostile-")
    worst_s = worst_cpu = worst_mb = 0.0
    print(f"{'file':28} {'MB file':>8} {'wall s':>7} {'CPU s':>7} {'peak MB':>8}  verdict")
    for name, path in corpus(folder):
        if args.only and args.only not in name:
            continue
        try:
            size = os.stat(path).st_size / 2 ** 20
        except OSError:
            size = 0.0
        start = time.perf_counter()
        try:
            out = subprocess.run([sys.executable, "-c", CHILD, ROOT, path], capture_output=True, text=True,
                                 timeout=120)
            line = out.stdout.strip() or f"-1 -1 -1 CRASH {out.stderr.strip().splitlines()[-1:]}"
        except subprocess.TimeoutExpired:
            line = f"{time.perf_counter() - start:.3f} -1 -1 HUNG (killed after 120 s)"
        seconds, cpu, peak, verdict = line.split(" ", 3)
        worst_s, worst_cpu = max(worst_s, float(seconds)), max(worst_cpu, float(cpu))
        worst_mb = max(worst_mb, float(peak))
        flag = "" if float(seconds) < BUDGET_S and float(peak) < BUDGET_MB else "  OVER BUDGET"
        print(f"{name:28} {size:8.1f} {float(seconds):7.3f} {float(cpu):7.3f} {float(peak):8.0f}  {verdict}{flag}")
    print(f"largest load time {worst_s:.3f} s wall, {worst_cpu:.3f} s CPU; largest peak memory {worst_mb:.0f} MB "
          f"(budget {BUDGET_S} s, {BUDGET_MB:.0f} MB; wall time counts waiting for a busy CPU, CPU time does not)")
    return 0 if worst_s < BUDGET_S and worst_mb < BUDGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
