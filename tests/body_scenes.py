"""Scenes with bodies for the tests and benchmarks: boxes, planks and polygons on floors,
inclines and pins, as normalised levels (game.level.complete)."""
import math

from game.level import complete


def floor_level(bodies=(), balls=(), joints=(), gravity=(0.0, -9.81), width=40.0, integrator="rk4", walls=True,
                friction=0.6, restitution=0.0, **top):
    """A level with a floor (and side walls) and these bodies, balls and joints."""
    segments = [{"a": [-width / 2, 0], "b": [width / 2, 0]}]
    if walls:
        segments += [{"a": [-width / 2, 0], "b": [-width / 2, 60]}, {"a": [width / 2, 0], "b": [width / 2, 60]}]
    return complete({"segments": segments, "bodies": list(bodies), "balls": list(balls), "joints": list(joints),
                     "gravity": list(gravity), "integrator": integrator, "bounds": [-width / 2 - 1, -1, width / 2 + 1, 200],
                     "material": {"friction": friction, "restitution": restitution}, **top})


def box(x, y, w=1.0, h=1.0, angle=0.0, **more):
    return {"shape": "box", "center": [x, y], "size": [w, h], "angle": angle, **more}


def pyramid(rows, size=1.0, gap=0.0):
    """Boxes of side ``size`` in a pyramid of ``rows`` rows on y = 0 (rows (rows + 1) / 2 boxes)."""
    out = []
    for r in range(rows):
        n = rows - r
        x0 = -0.5 * (n - 1) * (size + gap)
        for k in range(n):
            out.append(box(x0 + k * (size + gap), 0.5 * size + r * size, size, size))
    return out


def incline_level(theta, mu, bodies, length=30.0, integrator="rk4"):
    """A plane through the origin at ``theta`` rad, rising to the right, with friction mu."""
    c, s = math.cos(theta), math.sin(theta)
    return complete({"segments": [{"a": [-length * c, -length * s], "b": [length * c, length * s], "friction": mu}],
                     "bodies": list(bodies), "integrator": integrator,
                     "bounds": [-length - 5, -length - 5, length + 5, length + 5],
                     "material": {"friction": mu, "restitution": 0.0}})


def box_on_incline(theta, along, w, h, mu, lift=0.0):
    """A w x h box resting on the incline at distance ``along`` up its slope."""
    c, s = math.cos(theta), math.sin(theta)
    nx, ny = -s, c
    x, y = along * c + (0.5 * h + lift) * nx, along * s + (0.5 * h + lift) * ny
    return box(x, y, w, h, theta, friction=mu)
