"""Impact sounds: silent without a device, capped per tick, the loudest picked."""
import warnings

import numpy as np
import pygame
import pytest

from game.app import audio


def test_audio_without_a_device_is_silent_with_no_exception_and_no_warning(monkeypatch, capsys):
    def no_device(*args, **kwargs):
        raise pygame.error("No available audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", no_device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = audio.Audio()
        assert not a.enabled
        for _ in range(10):
            assert a.play_impacts(np.array([5.0, 20.0, 1.0])) == 0
        a.close()
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_audio_with_the_dummy_driver_plays_at_most_the_cap_per_tick():
    a = audio.Audio()
    if not a.enabled:
        pytest.skip("no mixer even with the dummy driver")
    started = a.play_impacts(np.linspace(1.0, 30.0, 50), np.linspace(0, 1, 50))
    assert started <= audio.MAX_PER_TICK
    assert a.play_impacts(np.array([0.1, 0.2])) == 0          # below the minimum: silent
    a.close()


def test_the_loudest_impacts_are_picked_and_louder_is_faster():
    speeds = np.array([0.1, 5.0, 9.0, 2.0, 30.0, np.nan, 7.0])
    chosen = audio.pick(speeds, limit=3)
    assert sorted(speeds[chosen].tolist()) == [7.0, 9.0, 30.0]
    assert audio.volume_for(audio.MIN_SPEED - 0.1) == 0.0
    assert audio.volume_for(audio.FULL_SPEED * 2) == 1.0
    v = audio.volume_for(np.linspace(audio.MIN_SPEED, audio.FULL_SPEED, 20))
    assert np.all(np.diff(v) > 0)
