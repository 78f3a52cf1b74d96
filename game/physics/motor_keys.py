"""Motors the player drives: a joint's motor with a ``"key"`` ("left": Z or the Left arrow,
"right": / or the Right arrow, the flippers' keys) turns the other way while its key is
held, so a car the player built goes forward by itself and back while the key is down
(issue 38). The key is part of the motor's definition (a snapshot keeps it); which keys are
held is not (a level loads with none held).

Ball joints keep the motor's key as ``Joints.key`` (0: none, 1 + its place in MOTOR_KEYS)
and its speed as written as ``Joints.base_speed``; bodies' joints keep their definitions
(``Bodies.joint_definitions``). ``press`` sets the speed each solve reads from those."""
import numpy as np

from game.physics.body_kernels import SPEED

MOTOR_KEYS = ("left", "right")


def key_code(motor):
    """0 for a motor without a key (or no motor), else 1 + the key's place in MOTOR_KEYS."""
    return 1 + MOTOR_KEYS.index(motor["key"]) if motor and "key" in motor else 0


def keys(world):
    """frozenset of the keys the world's motors answer to."""
    key = world.joints.key
    found = {MOTOR_KEYS[k - 1] for k in np.unique(key).tolist() if k} if key.any() else set()
    bodies = world.bodies
    for d in getattr(bodies, "joint_definitions", ()):
        if d.get("motor") and "key" in d["motor"]:
            found.add(d["motor"]["key"])
    return frozenset(found)


def press(world, key, held):
    """The player holds (``held``) or lets go of ``key``: its flippers go up or fall back
    (motion.Motions.press), its motors turn at minus their speed while it is held."""
    world.motions.press(key, held)
    joints = world.joints
    mine = joints.key == 1 + MOTOR_KEYS.index(key)
    if mine.any():
        joints.speed = np.where(mine, -joints.base_speed if held else joints.base_speed, joints.speed)
    bodies = world.bodies
    for k, d in enumerate(getattr(bodies, "joint_definitions", ())):
        motor = d.get("motor")
        if motor and motor.get("key") == key:
            bodies.joint_rows[k, SPEED] = -motor["speed"] if held else motor["speed"]
