"""The joint law tests' figures (issue 24): each test's own scene (tests/physics/test_joints.py),
run once, its measured errors printed (the tests assert bounds; this says how far inside them).

    python tools/joint_laws.py [compiled|numpy]
"""
import os
import math, sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import numpy as np
sys.path.insert(0, os.path.join(ROOT, "tests")); sys.path.insert(0, os.path.join(ROOT, "tests", "physics"))
from test_joints import world, dumbbell, momentum, angular_momentum, elliptic_k, G
from game.defaults import TICK
E = sys.argv[1] if len(sys.argv) > 1 else "compiled"
for deg in (5, 60):
    L, th = 2.0, math.radians(deg)
    exact = 4.0 * math.sqrt(L / G) * elliptic_k(math.sin(th / 2) ** 2)
    w = world({"gravity": [0, -G], "integrator": "rk4", "bounds": [-10, -10, 10, 10],
               "balls": [{"pos": [L * math.sin(th), 5 - L * math.cos(th)], "radius": 0.1}],
               "joints": [{"kind": "rod", "a": 0, "b": [0, 5]}]}, E)
    e0 = w.energy()["total"]; xs, ts, stretch = [], [], 0.0
    while w.time < 10.5 * exact:
        w.step(TICK); xs.append(w.pos[0, 0]); ts.append(w.time)
        stretch = max(stretch, abs(math.hypot(w.pos[0, 0], w.pos[0, 1] - 5) - L) / L)
        if len(ts) == round(10 * exact / TICK): e10 = w.energy()["total"]
    xs, ts = np.array(xs), np.array(ts)
    k = np.flatnonzero((xs[:-1] > 0) & (xs[1:] <= 0)); c = ts[k] + TICK * xs[k] / (xs[k] - xs[k + 1])
    period = (c[-1] - c[0]) / (len(c) - 1)
    print(f"pendulum {deg} deg: period error {period/exact-1:+.2e}, stretch {stretch:.2e}, energy after 10 periods {e10/e0-1:+.2e}")
w = world({"gravity": [0, -G], "integrator": "rk4", "bounds": [-10, -10, 10, 10], "balls": [{"pos": [0, 4], "radius": 0.1}],
           "joints": [{"kind": "rope", "a": 0, "b": [0, 5], "length": 2}]}, E)
taut = math.sqrt(2 / G); wf = ws = 0.0
while w.time < 5:
    w.step(TICK)
    if w.time < taut - TICK: wf = max(wf, abs(w.pos[0, 1] - (4 - 0.5 * G * w.time ** 2)))
    ws = max(ws, math.hypot(*(w.pos[0] - (0, 5))) / 2 - 1)
print(f"rope: free fall error {wf:.2e} m, worst stretch {ws:.2e}")
w = dumbbell(E); p0, l0 = momentum(w), angular_momentum(w)
for _ in range(300): w.step(TICK)
sc = np.abs(w.vel / w.inv_mass[:, None]).sum()
print(f"dumbbell: momentum change {np.abs(momentum(w)-p0).max()/sc:.1e} (relative), angular momentum {angular_momentum(w)/l0-1:+.1e}, length {math.dist(*w.pos)/2.5-1:+.1e}")
w = dumbbell(E, motor={"speed": 4.0, "torque": 2.0})
for _ in range(240): w.step(TICK)
d = w.pos[1] - w.pos[0]; rel = w.vel[1] - w.vel[0]; turn = (d[0] * rel[1] - d[1] * rel[0]) / (d @ d)
sc = float(np.abs(w.vel / w.inv_mass[:, None]).sum() + np.abs(w.spin / w.inv_inertia).sum())
print(f"motor: relative speed {w.spin[0]-turn:.4f} rad/s of 4, momentum {np.abs(momentum(w)).max()/sc:.1e}, angular {abs(angular_momentum(w))/sc:.1e} (relative)")
om, r = 4.0, 0.5
w = world({"gravity": [0, -G], "bounds": [-5, -1, 60, 10], "segments": [{"a": [-5, 0], "b": [60, 0], "friction": 1.0}],
           "balls": [{"pos": [0, r], "radius": r, "friction": 1.0}, {"pos": [3, r], "radius": r, "friction": 1.0}, {"pos": [1.5, 1.6], "radius": 0.4}],
           "joints": [{"kind": "rod", "a": 0, "b": 1}, {"kind": "rod", "a": 0, "b": 2, "motor": {"speed": -om, "torque": 50}},
                      {"kind": "rod", "a": 1, "b": 2, "motor": {"speed": -om, "torque": 50}}]}, E)
for _ in range(120): w.step(TICK)
s0, t0 = w.pos.mean(0), w.time
for _ in range(120): w.step(TICK)
v = (w.pos.mean(0) - s0) / (w.time - t0)
print(f"car: speed / (omega r) - 1 = {v[0]/(om*r)-1:+.2e}, vertical {v[1]:.1e} m/s")
links, link = 20, 0.6; dx = 0.5; dy = math.sqrt(link * link - dx * dx)
balls = [{"pos": [-5 + dx * k, 10 - dy * min(k, links - k)], "radius": 0.05} for k in range(1, links)]
joints = ([{"kind": "rod", "a": 0, "b": [-5, 10]}] + [{"kind": "rod", "a": k, "b": k + 1} for k in range(links - 2)] + [{"kind": "rod", "a": links - 2, "b": [5, 10]}])
w = world({"gravity": [0, -G], "bounds": [-10, -10, 10, 12], "drag": 0.5, "balls": balls, "joints": joints}, E)
for _ in range(600): w.step(TICK)
pts = np.vstack(([-5, 10], w.pos, [5, 10])); ls = np.hypot(*np.diff(pts, axis=0).T)
print(f"chain: worst link {np.abs(ls/link-1).max():.1e}, mirror asymmetry {np.abs(pts - pts[::-1]*(-1,1)).max():.1e} m, sag {10-pts[links//2][1]:.2f} m")
