"""Regenerates testdata/hub: a HuggingFace hub cache holding a small
fixture of every public dataset's repository, laid out as the real
repository is (file names, dataset card configs, column names and types),
with a few rows each.

    /work/aip/bin/python gen_hub.py    # any Python with pyarrow, numpy,
                                      # soundfile and pillow

The cache layout is huggingface_hub's: datasets--ORG--NAME/blobs/<sha256>,
snapshots/<commit>/<path> as a relative symlink to the blob, refs/main.
Parquet files are written by pyarrow, as the hub's own files are. The
commit of a repository is sha1(repo id), except the Exgentic corpora, which
AIPerf pins to a commit.

The layouts follow the dataset cards (README.md "configs" and features)
as published on the hub; the row contents are made up.
"""

import hashlib
import io
import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import soundfile as sf
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
HUB = os.path.join(HERE, "hub")

PINNED = {
    "Exgentic/agent-llm-traces": "70036b93a04e61b0ea2706a68b962f4f26774587",
    "Exgentic/agent-llm-traces-v2": "4b8ad4ab198438e5a170f9171c19c6a2cf7c1814",
}


def commit_of(repo):
    return PINNED.get(repo) or hashlib.sha1(repo.encode()).hexdigest()


def add_file(repo, path, data):
    if isinstance(data, str):
        data = data.encode()
    root = os.path.join(HUB, "datasets--" + repo.replace("/", "--"))
    sha = hashlib.sha256(data).hexdigest()
    blob = os.path.join(root, "blobs", sha)
    os.makedirs(os.path.dirname(blob), exist_ok=True)
    with open(blob, "wb") as f:
        f.write(data)
    commit = commit_of(repo)
    link = os.path.join(root, "snapshots", commit, path)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.relpath(blob, os.path.dirname(link)), link)
    os.makedirs(os.path.join(root, "refs"), exist_ok=True)
    with open(os.path.join(root, "refs", "main"), "w") as f:
        f.write(commit)


def parquet(table):
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def card(configs, title):
    """A dataset card with YAML configs: [(name, [(split, pattern)], default)]."""
    lines = ["---", "configs:"]
    for name, splits, default in configs:
        lines.append(f"- config_name: {name}")
        if default:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split, pattern in splits:
            lines.append(f"  - split: {split}")
            lines.append(f"    path: {pattern}")
    lines += ["---", "", f"# {title}", "", "Fixture of the public dataset for aiperf-go tests.", ""]
    return "\n".join(lines)


def png(color, size=(8, 6), mode="RGB"):
    img = Image.new(mode, size, color)
    for x in range(size[0]):
        img.putpixel((x, x % size[1]), (255, 255, 255) if mode == "RGB" else (255, 255, 255, 128))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def jpeg(color, size=(10, 8)):
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def audio(seconds, rate, fmt, seed):
    rng = np.random.default_rng(seed)
    n = int(seconds * rate)
    t = np.arange(n) / rate
    x = 0.2 * np.sin(2 * np.pi * (180 + 40 * seed) * t) * np.exp(-2 * t)
    if n:
        x[: min(n, rate // 4)] += 0.02 * rng.standard_normal(min(n, rate // 4))
    buf = io.BytesIO()
    sf.write(buf, np.clip(x, -1, 1), rate, format=fmt, subtype="PCM_16")
    return buf.getvalue()


IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
AUDIO = IMAGE
MESSAGES = pa.list_(pa.struct([("content", pa.string()), ("role", pa.string())]))


def numina_tir():
    repo = "AI-MO/NuminaMath-TIR"
    add_file(repo, "README.md", card([("default", [("train", "data/train-*"), ("test", "data/test-*")], False)], "NuminaMath-TIR"))
    rows = [
        ("Find the sum of the first 10 positive integers.", "The sum is $\\boxed{55}$."),
        ("Solve for x: 2x + 3 = 11.", "x = 4, so the answer is $\\boxed{4}$."),
        ("   ", "An empty problem is skipped."),
        ("How many primes are below 20?", "There are $\\boxed{8}$."),
    ]
    t = pa.table({
        "problem": [p for p, _ in rows],
        "solution": [s for _, s in rows],
        "messages": pa.array([[{"content": p, "role": "user"}, {"content": s, "role": "assistant"}] for p, s in rows], MESSAGES),
    })
    add_file(repo, "data/train-00000-of-00001.parquet", parquet(t))
    add_file(repo, "data/test-00000-of-00001.parquet", parquet(t.slice(0, 1)))


def aime():
    repo = "AI-MO/aimo-validation-aime"
    add_file(repo, "README.md", card([("default", [("train", "data/train-*")], False)], "AIMO validation AIME"))
    t = pa.table({
        "id": pa.array([0, 1, 2], pa.int64()),
        "problem": ["Let $x$ be a real number with $x^2 = 49$. Find the largest $x$.", "Find the remainder when $2^{10}$ is divided by 7.",
                    "How many positive divisors does 36 have?"],
        "solution": ["7", "2", "9"],
        "answer": ["7", "2", "9"],
        "url": ["https://artofproblemsolving.com/wiki/a", "https://artofproblemsolving.com/wiki/b", "https://artofproblemsolving.com/wiki/c"],
    })
    add_file(repo, "data/train-00000-of-00001.parquet", parquet(t))


def numina_cot():
    repo = "AI-MO/NuminaMath-CoT"
    add_file(repo, "README.md", card([("default", [("train", "data/train-*"), ("test", "data/test-*")], False)], "NuminaMath-CoT"))

    def shard(problems):
        return pa.table({
            "source": ["synthetic_math"] * len(problems),
            "problem": problems,
            "solution": ["Work it out step by step."] * len(problems),
            "messages": pa.array([[{"content": p, "role": "user"}] for p in problems], MESSAGES),
        })
    add_file(repo, "data/train-00000-of-00002.parquet", parquet(shard(["What is 12 times 12?", "Simplify (x^2 - 1)/(x - 1)."])))
    add_file(repo, "data/train-00001-of-00002.parquet", parquet(shard(["Compute the area of a circle of radius 3."])))
    add_file(repo, "data/test-00000-of-00001.parquet", parquet(shard(["Test problem."])))


def numina_15():
    repo = "AI-MO/NuminaMath-1.5"
    add_file(repo, "README.md", card([("default", [("train", "data/train-*")], False)], "NuminaMath-1.5"))
    probs = ["Prove that there are infinitely many primes.", "", "Find all integers n such that n^2 + 1 is divisible by 5."]
    t = pa.table({
        "problem": probs,
        "solution": ["Assume finitely many...", "", "n = 2 or 3 mod 5."],
        "answer": ["proof", "", "n \\equiv 2, 3 \\pmod 5"],
        "problem_type": ["Number Theory"] * 3,
        "question_type": ["proof", "math-word-problem", "math-word-problem"],
        "problem_is_valid": ["Yes"] * 3,
        "solution_is_valid": ["Yes"] * 3,
        "source": ["olympiads"] * 3,
        "synthetic": [False, False, True],
    })
    add_file(repo, "data/train-00000-of-00001.parquet", parquet(t))


def mmstar():
    repo = "Lin-Chen/MMStar"
    add_file(repo, "README.md", card([("val", [("val", "mmstar.parquet")], False)], "MMStar"))
    t = pa.table({
        "index": pa.array([0, 1, 2], pa.int64()),
        "question": ["Which shape is shown?\nOptions: A: circle, B: square, C: line, D: dot",
                     "What color dominates the image?\nOptions: A: red, B: blue, C: green, D: black",
                     "How many objects are there?\nOptions: A: 1, B: 2, C: 3, D: 4"],
        "image": pa.array([{"bytes": png((200, 30, 30)), "path": "0.png"}, {"bytes": jpeg((20, 40, 220)), "path": "1.jpg"},
                           {"bytes": png((0, 120, 0, 255), mode="RGBA"), "path": "2.png"}], IMAGE),
        "answer": ["B", "B", "C"],
        "category": ["coarse perception", "fine-grained perception", "instance reasoning"],
        "l2_category": ["image scene and topic", "color", "counting"],
        "meta_info": pa.array([{"source": "MMBench", "split": "val", "image_path": f"images/{i}.png"} for i in range(3)],
                              pa.struct([("source", pa.string()), ("split", pa.string()), ("image_path", pa.string())])),
    })
    add_file(repo, "mmstar.parquet", parquet(t))


def mmvu():
    repo = "yale-nlp/MMVU"
    add_file(repo, "README.md", card([("default", [("validation", "validation.json"), ("test", "test.json")], False)], "MMVU"))
    rows = [
        {"id": "v1", "video": "https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main/videos/Art/0.mp4",
         "question": "What technique does the artist use in the video?", "choices": {"A": "Fresco", "B": "Impasto", "C": "Glazing", "D": "Sgraffito", "E": ""},
         "answer": "B", "question_type": "multiple-choice", "metadata": {"subject": "Art", "textbook": "Painting"}},
        {"id": "v2", "video": "", "question": "A row without a video is skipped.", "choices": {"A": "x", "B": "y", "C": "", "D": "", "E": ""},
         "answer": "A", "question_type": "multiple-choice", "metadata": {"subject": "Physics", "textbook": "Mechanics"}},
        {"id": "v3", "video": "https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main/videos/Chemistry/3.mp4",
         "question": "Which reaction is demonstrated?", "choices": {"A": "", "B": "", "C": "", "D": "", "E": ""},
         "answer": "combustion", "question_type": "open-ended", "metadata": {"subject": "Chemistry", "textbook": "Organic"}},
    ]
    add_file(repo, "validation.json", json.dumps(rows, indent=2))
    add_file(repo, "test.json", json.dumps(rows[:1], indent=2))


def vision_arena():
    repo = "lmarena-ai/VisionArena-Chat"
    add_file(repo, "README.md", card([("default", [("train", "data/train-*")], False)], "VisionArena-Chat"))
    conv = pa.list_(pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())])))
    t = pa.table({
        "conversation_id": ["c1", "c2"],
        "model": ["gpt-4o", "claude-3-5-sonnet"],
        "conversation": pa.array([
            [[{"role": "user", "content": "What is in this picture?"}], [{"role": "assistant", "content": "A red square."}]],
            [[{"role": "user", "content": "<image>\nDescribe the chart."}], [{"role": "assistant", "content": "It rises."}]],
        ], conv),
        "images": pa.array([[{"bytes": png((220, 10, 10)), "path": None}], [{"bytes": jpeg((5, 5, 5)), "path": None}]], pa.list_(IMAGE)),
        "num_turns": pa.array([1, 1], pa.int64()),
    })
    add_file(repo, "data/train-00000-of-00001.parquet", parquet(t))


def llava():
    repo = "lmms-lab/LLaVA-OneVision-Data"
    add_file(repo, "README.md", card([
        ("CLEVR-Math(MathV360K)", [("train", "CLEVR-Math(MathV360K)/train-*")], False),
        ("sharegpt4o", [("train", "sharegpt4o/train-*")], False),
    ], "LLaVA-OneVision-Data"))
    conv = pa.list_(pa.struct([("from", pa.string()), ("value", pa.string())]))

    def table(prefix, n):
        return pa.table({
            "id": [f"{prefix}_{i}" for i in range(n)],
            "image": pa.array([{"bytes": png((10 * i, 100, 200)), "path": f"{prefix}_{i}.png"} for i in range(n)], IMAGE),
            "conversations": pa.array([[{"from": "human", "value": f"<image>\n{prefix} question {i}?"}, {"from": "gpt", "value": "An answer."}]
                                       for i in range(n)], conv),
            "data_source": [prefix] * n,
        })
    add_file(repo, "sharegpt4o/train-00000-of-00001.parquet", parquet(table("sharegpt4o", 3)))
    add_file(repo, "CLEVR-Math(MathV360K)/train-00000-of-00001.parquet", parquet(table("clevr", 2)))


def gsm8k():
    repo = "openai/gsm8k"
    add_file(repo, "README.md", card([
        ("main", [("train", "main/train-*"), ("test", "main/test-*")], False),
        ("socratic", [("train", "socratic/train-*"), ("test", "socratic/test-*")], False),
    ], "GSM8K"))
    qa = [("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did she sell altogether?", "72"),
          ("Weng earns $12 an hour for babysitting. Yesterday, she did 50 minutes of babysitting. How much did she earn?", "10")]
    t = pa.table({"question": [q for q, _ in qa], "answer": [f"... #### {a}" for _, a in qa]})
    for cfg in ("main", "socratic"):
        add_file(repo, f"{cfg}/train-00000-of-00001.parquet", parquet(t))
        add_file(repo, f"{cfg}/test-00000-of-00001.parquet", parquet(t))


def math500():
    repo = "HuggingFaceH4/MATH-500"
    add_file(repo, "README.md", "---\nlanguage:\n- en\n---\n\n# MATH-500\n")
    rows = [{"problem": "Convert the point $(0,3)$ in rectangular coordinates to polar coordinates.", "solution": "...", "answer": "\\left( 3, \\frac{\\pi}{2} \\right)",
             "subject": "Precalculus", "level": 2, "unique_id": "test/precalculus/807.json"},
            {"problem": "What is $1+1$?", "solution": "2", "answer": "2", "subject": "Prealgebra", "level": 1, "unique_id": "test/prealgebra/1.json"}]
    add_file(repo, "test.jsonl", "".join(json.dumps(r) + "\n" for r in rows))


def humaneval():
    repo = "openai/openai_humaneval"
    add_file(repo, "README.md", card([("openai_humaneval", [("test", "openai_humaneval/test-*")], False)], "HumanEval"))
    t = pa.table({
        "task_id": ["HumanEval/0", "HumanEval/1"],
        "prompt": ["def has_close_elements(numbers, threshold):\n    \"\"\"Check if any two numbers are closer than threshold.\"\"\"\n",
                   "def separate_paren_groups(paren_string):\n    \"\"\"Split balanced groups.\"\"\"\n"],
        "canonical_solution": ["    return False\n", "    return []\n"],
        "test": ["def check(candidate):\n    pass\n", "def check(candidate):\n    pass\n"],
        "entry_point": ["has_close_elements", "separate_paren_groups"],
    })
    add_file(repo, "openai_humaneval/test-00000-of-00001.parquet", parquet(t))


def mbpp():
    repo = "google-research-datasets/mbpp"
    add_file(repo, "README.md", card([
        ("full", [("train", "full/train-*"), ("test", "full/test-*"), ("validation", "full/validation-*"), ("prompt", "full/prompt-*")], True),
        ("sanitized", [("train", "sanitized/train-*"), ("test", "sanitized/test-*")], False),
    ], "MBPP"))
    full = pa.table({
        "task_id": pa.array([11, 12], pa.int32()),
        "text": ["Write a python function to remove first and last occurrence of a given character from the string.",
                 "Write a function to sort a given matrix in ascending order according to the sum of its rows."],
        "code": ["def remove_Occ(s,ch): ...", "def sort_matrix(M): ..."],
        "test_list": pa.array([["assert remove_Occ(\"hello\",\"l\") == \"heo\""], ["assert sort_matrix([[1]]) == [[1]]"]], pa.list_(pa.string())),
        "test_setup_code": ["", ""],
        "challenge_test_list": pa.array([[], []], pa.list_(pa.string())),
    })
    for split in ("train", "test", "validation", "prompt"):
        add_file(repo, f"full/{split}-00000-of-00001.parquet", parquet(full))
    san = pa.table({"source_file": ["a.py"], "task_id": pa.array([2], pa.int32()), "prompt": ["Sanitized prompt."], "code": ["..."],
                    "test_imports": pa.array([[]], pa.list_(pa.string())), "test_list": pa.array([["assert True"]], pa.list_(pa.string()))})
    for split in ("train", "test"):
        add_file(repo, f"sanitized/{split}-00000-of-00001.parquet", parquet(san))


def mt_bench():
    repo = "HuggingFaceH4/mt_bench_prompts"
    add_file(repo, "README.md", card([("default", [("train", "data/train-*")], False)], "MT-Bench prompts"))
    t = pa.table({
        "prompt": pa.array([["Compose an engaging travel blog post about a recent trip to Hawaii.", "Rewrite your previous response. Start every sentence with the letter A."],
                            ["Write a persuasive email to convince your introverted friend to volunteer as a guest speaker.", ""],
                            []], pa.list_(pa.string())),
        "prompt_id": pa.array([81, 82, 83], pa.int64()),
        "category": ["writing", "writing", "roleplay"],
        "reference": pa.array([[], [], []], pa.list_(pa.string())),
    })
    add_file(repo, "data/train-00000-of-00001.parquet", parquet(t))
    add_file(repo, "raw/question.jsonl", json.dumps({"question_id": 81, "category": "writing", "turns": ["..."]}) + "\n")


def instruct_coder():
    repo = "likaixin/InstructCoder"
    add_file(repo, "README.md", "---\nlicense: cc-by-4.0\n---\n\n# InstructCoder\n")
    rows = [{"instruction": "Refactor the function to use a list comprehension.", "input": "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x * 2)\n    return out\n",
             "output": "def f(xs):\n    return [x * 2 for x in xs]\n", "id": 0},
            {"instruction": "Add type hints to all parameters.", "input": "def add(a, b):\n    return a + b\n", "output": "def add(a: int, b: int) -> int:\n    return a + b\n", "id": 1}]
    add_file(repo, "train.json", json.dumps(rows, indent=2))
    add_file(repo, "valid.json", json.dumps(rows[:1], indent=2))


def blazedit():
    for repo, chars in (("vdaita/edit_5k_char", 5000), ("vdaita/edit_10k_char", 10000)):
        add_file(repo, "README.md", card([("default", [("train", "data/train-*")], False)], repo))
        t = pa.table({
            "code": ["import os\n\ndef main():\n    print(os.getcwd())\n", "class A:\n    pass\n"],
            "change_request": ["Print the home directory instead of the working directory.", "Add a docstring to class A."],
            "char_count": pa.array([52, 20], pa.int64()),
        })
        add_file(repo, "data/train-00000-of-00001.parquet", parquet(t))


def asr():
    def audio_table(rows, extra):
        cols = {"audio": pa.array([{"bytes": b, "path": p} for p, b in rows], AUDIO)}
        cols.update(extra)
        return pa.table(cols)

    repo = "openslr/librispeech_asr"
    add_file(repo, "README.md", card([
        ("clean", [("test", "clean/test/*"), ("validation", "clean/validation/*")], False),
        ("other", [("test", "other/test/*")], False),
    ], "LibriSpeech ASR"))
    clips = [("1089-134686-0000.flac", audio(1.5, 16000, "FLAC", 1)), ("1089-134686-0001.flac", audio(0.8, 16000, "FLAC", 2)),
             ("1089-134686-0002.flac", audio(31.0, 8000, "FLAC", 3))]  # over 30 s: skipped
    t = audio_table(clips, {"file": [p for p, _ in clips], "text": ["HE HOPED THERE WOULD BE STEW", "STUFF IT INTO YOU", "A LONG ONE"],
                            "speaker_id": pa.array([1089] * 3, pa.int64()), "chapter_id": pa.array([134686] * 3, pa.int64()),
                            "id": [p[:-5] for p, _ in clips]})
    add_file(repo, "clean/test/0000.parquet", parquet(t))
    add_file(repo, "clean/validation/0000.parquet", parquet(t.slice(0, 1)))
    add_file(repo, "other/test/0000.parquet", parquet(t.slice(1, 1)))

    repo = "facebook/voxpopuli"
    add_file(repo, "README.md", card([("en", [("test", "en/test-*"), ("train", "en/train-*")], False), ("de", [("test", "de/test-*")], False)], "VoxPopuli"))
    clips = [("20180110-0900-PLENARY-3-en_20180110-09:01:44_1.wav", audio(1.2, 16000, "WAV", 4)), ("20180110-0900-PLENARY-3-en_2.wav", audio(0.6, 16000, "WAV", 5))]
    t = audio_table(clips, {"audio_id": [p for p, _ in clips], "language": pa.array([0, 0], pa.int64()), "raw_text": ["Mr President.", "Thank you."],
                            "normalized_text": ["mr president", "thank you"], "gender": ["male", "female"], "speaker_id": ["124737", "96"],
                            "is_gold_transcript": [True, True], "accent": ["None", "None"]})
    for cfg in ("en/test", "en/train", "de/test"):
        add_file(repo, f"{cfg}-00000-of-00001.parquet", parquet(t))

    repo = "speechcolab/gigaspeech"
    add_file(repo, "README.md", card([("xs", [("train", "xs/train-*"), ("validation", "xs/validation-*"), ("test", "xs/test-*")], False),
                                      ("s", [("train", "s/train-*")], False)], "GigaSpeech"))
    clips = [("POD0000000001_S0000008.wav", audio(1.0, 16000, "WAV", 6)), ("POD0000000001_S0000009.flac", audio(0.5, 16000, "FLAC", 7))]
    t = audio_table(clips, {"segment_id": [p.split(".")[0] for p, _ in clips], "speaker": ["N/A", "N/A"], "text": ["AS THEY'RE LEAVING <COMMA>", "CAN YOU"],
                            "begin_time": [10.0, 11.5], "end_time": [11.0, 12.0], "audio_id": ["POD0000000001"] * 2, "title": ["Podcast"] * 2,
                            "url": ["https://example.com/pod"] * 2, "source": pa.array([2, 2], pa.int64()), "category": pa.array([24, 24], pa.int64()),
                            "original_full_path": ["audio/podcast/P0000/POD0000000001.opus"] * 2})
    for cfg in ("xs/train", "xs/validation", "xs/test", "s/train"):
        add_file(repo, f"{cfg}-00000-of-00001.parquet", parquet(t))

    repo = "edinburghcstr/ami"
    add_file(repo, "README.md", card([("ihm", [("train", "ihm/train/*"), ("validation", "ihm/validation/*"), ("test", "ihm/test/*")], False),
                                      ("sdm", [("test", "sdm/test/*")], False)], "AMI"))
    clips = [("EN2001a_H00_MEE068_0000557_0000594.wav", audio(0.4, 16000, "WAV", 8)), ("EN2001a_H00_MEE068_0000700_0000744.wav", audio(0.4, 16000, "WAV", 9))]
    t = audio_table(clips, {"meeting_id": ["EN2001a"] * 2, "audio_id": [p[:-4] for p, _ in clips], "text": ["OKAY", "YEAH"],
                            "begin_time": [5.57, 7.0], "end_time": [5.94, 7.44], "microphone_id": ["H00"] * 2, "speaker_id": ["MEE068"] * 2})
    for cfg in ("ihm/train", "ihm/validation", "ihm/test", "sdm/test"):
        add_file(repo, f"{cfg}/0000.parquet", parquet(t))

    repo = "kensho/spgispeech"
    add_file(repo, "README.md", card([("test", [("test", "test/*")], False), ("dev", [("validation", "dev/*")], False),
                                      ("S", [("train", "s/*")], False)], "SPGISpeech"))
    clips = [("4dfbfb8e2b6a4b73b3b6b07ba8c3e8d2/1.wav", audio(0.9, 16000, "WAV", 10)), ("4dfbfb8e2b6a4b73b3b6b07ba8c3e8d2/2.wav", audio(0.7, 16000, "WAV", 11))]
    t = audio_table(clips, {"wav_filename": [p for p, _ in clips], "wav_filesize": pa.array([len(b) for _, b in clips], pa.int64()),
                            "transcript": ["Good morning, and welcome to the call.", "Revenue grew 5%."]})
    for d in ("test", "dev", "s"):
        add_file(repo, f"{d}/0000.parquet", parquet(t))


def exgentic():
    def span(i, start, end, text, tool=False, status=0, typ="llm_call"):
        msgs = [{"role": "user", "parts": [{"type": "text", "content": text}]}]
        if tool:
            msgs.append({"role": "assistant", "parts": [{"type": "thinking", "thinking": "Look it up."},
                                                        {"type": "tool_call", "id": f"call_{i}", "name": "search", "arguments": {"q": text, "k": 3}}]})
            msgs.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call_{i}", "result": {"hits": ["a", "b"]}}]})
        return {
            "type": typ,
            "name": "chat gpt-4.1",
            "status": {"code": status},
            "start_time": start,
            "end_time": end,
            "attributes": {
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 120 + i,
                "gen_ai.usage.output_tokens": 30 + i,
                "gen_ai.request.max_tokens": 256 if i % 2 == 0 else None,
                "gen_ai.request.temperature": 0.2,
                "gen_ai.request.stop_sequences": ["</done>"] if i == 0 else [],
                "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "You are a careful agent."}]),
                "gen_ai.input.messages": json.dumps(msgs),
                "gen_ai.tool.definitions": json.dumps([{"type": "function", "name": "search", "description": "Search the web.",
                                                        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]) if tool else None,
            },
        }

    def rows(v2):
        out = []
        for s, (harness, model) in enumerate([("tool_calling", "openai/azure/gpt-4.1"), ("claude_code", "claude-opus-4-5"), ("openai_solo", "gpt-5.2-2025-12-11")]):
            if v2 and model.endswith("gpt-4.1"):
                model = "DeepSeek-V3.2"
            row = {
                "session_id": f"sess-{s}",
                "harness": harness,
                "models": [model],
                "spans": [
                    span(0, f"2026-01-0{s+1}T10:00:00.000000+00:00", f"2026-01-0{s+1}T10:00:02.500000+00:00", f"Task {s}: find the bug."),
                    {"type": "tool_call", "name": "bash", "status": {"code": 0}, "start_time": f"2026-01-0{s+1}T10:00:02.600000+00:00",
                     "end_time": f"2026-01-0{s+1}T10:00:03.000000+00:00", "attributes": {}},
                    span(1, f"2026-01-0{s+1}T10:00:04.000000+00:00", f"2026-01-0{s+1}T10:00:05.000000+00:00", "Now fix it.", tool=True),
                    span(2, f"2026-01-0{s+1}T10:00:05.500000+00:00", f"2026-01-0{s+1}T10:00:06.000000+00:00", "Failed call.", status=2),
                ],
            }
            if v2:
                row["benchmark"] = ["swebench", "tau2_retail", "appworld"][s]
            out.append(row)
        return out

    for repo, v2 in (("Exgentic/agent-llm-traces", False), ("Exgentic/agent-llm-traces-v2", True)):
        add_file(repo, "README.md", card([("default", [("train", "data/*.jsonl")], False)], repo))
        add_file(repo, "data/traces.jsonl", "".join(json.dumps(r) + "\n" for r in rows(v2)))


def weka_trace(trace_id, with_subagent):
    base = list(range(1000, 1010))
    reqs = [
        {"t": 0.0, "type": "s", "model": "claude-sonnet-4", "in": 400, "out": 40, "hash_ids": base[:6], "input_types": ["text"], "output_types": ["text"],
         "stop": "tool_use", "api_time": 1.5, "think_time": 0.0, "ttft": 0.4},
        {"t": 2.0, "type": "s", "model": "claude-sonnet-4", "in": 520, "out": 30, "hash_ids": base[:8], "input_types": ["tool_result"], "output_types": ["text"],
         "stop": "tool_use", "api_time": 1.0, "think_time": 0.3, "ttft": 0.3},
        {"t": 4.5, "type": "s", "model": "claude-haiku-4", "in": 300, "out": 20, "hash_ids": [2000, 2001, 2002, 2003], "input_types": ["text"], "output_types": ["text"],
         "stop": "end_turn", "api_time": 0.5, "think_time": 1.0, "ttft": 0.2},
    ]
    if with_subagent:
        reqs.insert(2, {"t": 2.5, "type": "subagent", "agent_id": "agent_001", "subagent_type": "Explore", "duration_ms": 1500, "total_tokens": 900,
                        "tool_use_count": 2, "status": "completed", "models": ["claude-haiku-4"], "tool_tokens": 64, "system_tokens": 64,
                        "requests": [{"t": 2.6, "type": "n", "model": "claude-haiku-4", "in": 200, "out": 25, "hash_ids": [3000, 3001, 3002],
                                      "input_types": ["text"], "output_types": ["text"], "stop": "end_turn", "api_time": 0.6, "think_time": 0.0}]})
    return {"id": trace_id, "models": ["claude-sonnet-4", "claude-haiku-4"], "block_size": 64, "hash_id_scope": "local",
            "tool_tokens": 128, "system_tokens": 64, "requests": reqs, "totals": {"requests": len(reqs)}}


WEKA_REPOS = [
    "cc-traces-weka-no-subagents-051826", "cc-traces-weka-062126", "cc-traces-weka-062126-256k",
    "cc-traces-weka-with-subagents-060226", "cc-traces-weka-with-subagents-060226-256k",
    "cc-traces-weka-with-subagents-060526", "cc-traces-weka-with-subagents-060526-256k",
    "cc-traces-weka-with-subagents-060826", "cc-traces-weka-with-subagents-060826-256k",
    "cc-traces-weka-061326", "cc-traces-weka-061326-256k", "cc-traces-weka-061526", "cc-traces-weka-061526-256k",
]


def weka():
    for name in WEKA_REPOS:
        repo = "semianalysisai/" + name
        sub = "no-subagents" not in name
        add_file(repo, "README.md", card([("default", [("train", "data/train-*")], False)], repo))
        rows = [weka_trace(f"{name}-trace-{i}", sub and i == 0) for i in range(2)]
        add_file(repo, "data/train-00000-of-00001.jsonl", "".join(json.dumps(r) + "\n" for r in rows))


def sharegpt():
    repo = "anon8231489123/ShareGPT_Vicuna_unfiltered"
    convs = [
        {"id": "a1", "conversations": [{"from": "human", "value": "Explain what a hash map is in two sentences please."},
                                        {"from": "gpt", "value": "A hash map stores key value pairs and finds values by hashing keys into buckets quickly."}]},
        {"id": "a2", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "Too short a prompt to keep."}]},
        {"id": "a3", "conversations": [{"from": "human", "value": "Write a haiku about the autumn rain on the roof."},
                                        {"from": "gpt", "value": "Rain taps on the roof, autumn leaves drift through the dusk, the house breathes slowly."},
                                        {"from": "human", "value": "Now one about winter snow and silence at night."},
                                        {"from": "gpt", "value": "Snow hushes the town, lamps glow on the empty street, the night holds its breath."}]},
    ]
    add_file(repo, "ShareGPT_V3_unfiltered_cleaned_split.json", json.dumps(convs, indent=2))
    add_file(repo, "README.md", "---\nlicense: apache-2.0\n---\n")


def main():
    shutil.rmtree(HUB, ignore_errors=True)
    for f in (numina_tir, aime, numina_cot, numina_15, mmstar, mmvu, vision_arena, llava, gsm8k, math500, humaneval, mbpp,
              mt_bench, instruct_coder, blazedit, asr, exgentic, weka, sharegpt):
        f()
    spec = os.path.join(HERE, "spec_bench", "question.jsonl")
    os.makedirs(os.path.dirname(spec), exist_ok=True)
    qs = [{"question_id": 81, "category": "writing", "turns": ["Compose an engaging travel blog post about a trip to Hawaii.", "Rewrite it in limericks."]},
          {"question_id": 82, "category": "translation", "turns": ["Translate 'good morning' into French.", "And into German?"]},
          {"question_id": 83, "category": "qa", "turns": [""]}]
    with open(spec, "w") as f:
        f.write("".join(json.dumps(q) + "\n" for q in qs))


if __name__ == "__main__":
    main()
