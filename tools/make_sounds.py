"""Generate the impact sounds in assets/ (deterministic: the same bytes every run).

    python tools/make_sounds.py

Three short mono 16-bit 22,050 Hz WAVs, each a few kilobytes: a light "tick", a woody
"knock" and a low "thud". Each is a sum of exponentially decaying sine partials (a struck
object rings at a few modes, each dying at its own rate) plus a very short burst of noise
for the strike itself. Made from nothing but arithmetic, so they are ours to give away:
see assets/LICENSE.md (CC0).
"""
import os
import sys
import wave

import numpy as np

RATE = 22050                 # samples per second
PEAK = 0.85                  # fraction of full scale at the loudest sample
ASSETS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "assets")

# name: (duration s, [(frequency Hz, amplitude, decay time s)], noise amplitude, noise decay s)
SOUNDS = {
    "impact_tick": (0.07, [(1850.0, 1.0, 0.012), (3100.0, 0.45, 0.008), (5200.0, 0.2, 0.004)], 0.35, 0.002),
    "impact_knock": (0.11, [(620.0, 1.0, 0.025), (1490.0, 0.5, 0.014), (2550.0, 0.2, 0.008)], 0.3, 0.003),
    "impact_thud": (0.16, [(150.0, 1.0, 0.05), (310.0, 0.55, 0.03), (720.0, 0.25, 0.015)], 0.4, 0.004),
}


def synthesise(duration, partials, noise_amplitude, noise_decay, seed):
    """float samples in [-PEAK, PEAK]: decaying partials plus a strike of noise, faded out."""
    t = np.arange(int(duration * RATE)) / RATE
    signal = np.zeros_like(t)
    for frequency, amplitude, decay in partials:
        signal += amplitude * np.sin(2.0 * np.pi * frequency * t) * np.exp(-t / decay)
    noise = np.random.default_rng(seed).uniform(-1.0, 1.0, len(t))
    signal += noise_amplitude * noise * np.exp(-t / noise_decay)
    attack = np.minimum(1.0, t / 0.0008)               # 0.8 ms ramp: no click at the start
    release = np.minimum(1.0, (duration - t) / 0.01)   # 10 ms fade: no click at the end
    signal *= attack * release
    return signal * (PEAK / np.max(np.abs(signal)))


def write_wav(path, samples):
    pcm = np.round(samples * 32767.0).astype("<i2")
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())


def main():
    os.makedirs(ASSETS, exist_ok=True)
    for seed, (name, (duration, partials, noise, noise_decay)) in enumerate(sorted(SOUNDS.items())):
        path = os.path.join(ASSETS, name + ".wav")
        write_wav(path, synthesise(duration, partials, noise, noise_decay, seed))
        print(f"{path}: {os.path.getsize(path)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
