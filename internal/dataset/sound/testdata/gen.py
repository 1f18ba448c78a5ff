"""Regenerates this package's test fixtures with soundfile (libsndfile),
the library AIPerf's ASR loaders decode and re-encode audio with.

    /work/aip/bin/python gen.py   # any Python with numpy and soundfile

Each <name>.flac / <name>.wav input has <name>.expected.wav: what
sf.write(buf, *sf.read(input), format="WAV") gives, which the Go decoder
must reproduce byte for byte.
"""
import io

import numpy as np
import soundfile as sf

rng = np.random.default_rng(7)
t = np.arange(3200) / 16000.0
speech = 0.3 * np.sin(2 * np.pi * 220 * t) * np.exp(-3 * t) + 0.05 * rng.standard_normal(t.size)
cases = {
    "mono16": (np.clip(speech, -1, 1), 16000, "FLAC", "PCM_16"),
    "stereo24": (np.stack([speech, np.roll(speech, 37) * 0.7], axis=1), 22050, "FLAC", "PCM_24"),
    "mono8k_wav16": (speech[:1600], 8000, "WAV", "PCM_16"),
    "float_wav": (speech[:800], 16000, "WAV", "FLOAT"),
}
for name, (data, rate, fmt, subtype) in cases.items():
    ext = ".flac" if fmt == "FLAC" else ".wav"
    sf.write(name + ext, data, rate, format=fmt, subtype=subtype)
    with open(name + ext, "rb") as f:
        arr, sr = sf.read(io.BytesIO(f.read()))
    out = io.BytesIO()
    sf.write(out, arr, sr, format="WAV")
    with open(name + ".expected.wav", "wb") as f:
        f.write(out.getvalue())
