"""The sound script (tools/make_sounds.py) rebuilds the shipped WAV files exactly."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import importlib.util
import os

from game.app import audio

ROOT = ROOT_DIR


def test_the_sound_script_rebuilds_the_shipped_wavs_byte_for_byte(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("make_sounds", os.path.join(ROOT, "tools", "make_sounds.py"))
    make_sounds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_sounds)
    monkeypatch.setattr(make_sounds, "ASSETS", str(tmp_path))
    make_sounds.main()
    for name in audio.SOUND_FILES.values():
        shipped = os.path.join(ROOT, "assets", name)
        assert os.path.getsize(shipped) < 20_000
        with open(shipped, "rb") as a, open(tmp_path / name, "rb") as b:
            assert a.read() == b.read(), name
