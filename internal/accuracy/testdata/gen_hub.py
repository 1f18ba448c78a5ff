"""Regenerates testdata/hub: a HuggingFace hub cache holding small
fixtures of the accuracy benchmarks' repositories, laid out as the real
repositories are (file names and formats, dataset card configs, column
names and types), with made-up rows.

    /work/aip/bin/python gen_hub.py    # any Python with pyarrow

Layout: datasets--ORG--NAME/blobs/<sha256>, snapshots/<commit>/<path> as
a relative symlink to the blob, refs/main; commit = sha1(repo id).
"""

import hashlib
import io
import json
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
HUB = os.path.join(HERE, "hub")


def add_file(repo, path, data):
    if isinstance(data, str):
        data = data.encode()
    root = os.path.join(HUB, "datasets--" + repo.replace("/", "--"))
    sha = hashlib.sha256(data).hexdigest()
    blob = os.path.join(root, "blobs", sha)
    os.makedirs(os.path.dirname(blob), exist_ok=True)
    with open(blob, "wb") as f:
        f.write(data)
    commit = hashlib.sha1(repo.encode()).hexdigest()
    link = os.path.join(root, "snapshots", commit, path)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.relpath(blob, os.path.dirname(link)), link)
    os.makedirs(os.path.join(root, "refs"), exist_ok=True)
    with open(os.path.join(root, "refs", "main"), "w") as f:
        f.write(commit)


def parquet(rows):
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buf)
    return buf.getvalue()


def card(configs):
    lines = ["---", "configs:"]
    for name, splits in configs:
        lines.append(f"- config_name: {name}")
        lines.append("  data_files:")
        for split, pattern in splits:
            lines.append(f"  - split: {split}")
            lines.append(f"    path: {pattern}")
    lines += ["---", "", "Fixture.", ""]
    return "\n".join(lines)


shutil.rmtree(HUB, ignore_errors=True)

# openai/gsm8k: main/test-00000-of-00001.parquet, columns question, answer.
gsm = [
    {"question": f"Tom has {a} apples and buys {b} more. How many apples does he have?",
     "answer": f"Tom has {a} apples.\nHe buys {b}: {a}+{b}=<<{a}+{b}={a+b}>>{a+b}.\n#### {a+b}"}
    for a, b in [(3, 4), (10, 5), (7, 8), (120, 1380)]
]
add_file("openai/gsm8k", "README.md", card([("main", [("train", "main/train-*"), ("test", "main/test-*")]),
                                             ("socratic", [("test", "socratic/test-*")])]))
add_file("openai/gsm8k", "main/test-00000-of-00001.parquet", parquet(gsm))
add_file("openai/gsm8k", "main/train-00000-of-00001.parquet", parquet(gsm[:1]))
add_file("openai/gsm8k", "socratic/test-00000-of-00001.parquet", parquet(gsm[:1]))

# lighteval/mmlu: <subject>/{dev,test}-*.parquet; question, subject,
# choices (list), answer (int64 class label).
def mmlu_rows(subject, n, offset):
    return [{"question": f"{subject} question {offset+i}?", "subject": subject,
             "choices": [f"option {offset+i}-{c}" for c in "wxyz"], "answer": (offset + i) % 4}
            for i in range(n)]

subjects = ["abstract_algebra", "anatomy"]
add_file("lighteval/mmlu", "README.md", card([(s, [("test", f"{s}/test-*"), ("dev", f"{s}/dev-*")]) for s in subjects]))
for s in subjects:
    add_file("lighteval/mmlu", f"{s}/test-00000-of-00001.parquet", parquet(mmlu_rows(s, 3, 0)))
    add_file("lighteval/mmlu", f"{s}/dev-00000-of-00001.parquet", parquet(mmlu_rows(s, 5, 100)))

# HuggingFaceH4/MATH-500: test.jsonl; problem, solution, answer, subject,
# level, unique_id.
math500 = [
    {"problem": "What is $\\frac{1}{2}+\\frac{1}{6}$?", "solution": "Add: $\\frac{3}{6}+\\frac{1}{6}=\\boxed{\\frac{2}{3}}$.",
     "answer": "\\frac{2}{3}", "subject": "Prealgebra", "level": 2, "unique_id": "test/prealgebra/1.json"},
    {"problem": "Compute $7\\cdot 6$.", "solution": "$7\\cdot 6 = \\boxed{42}$", "answer": "42",
     "subject": "Prealgebra", "level": 1, "unique_id": "test/prealgebra/2.json"},
]
add_file("HuggingFaceH4/MATH-500", "README.md", card([("default", [("test", "test.jsonl")])]))
add_file("HuggingFaceH4/MATH-500", "test.jsonl", "".join(json.dumps(r) + "\n" for r in math500))

# Idavidrein/gpqa: gpqa_diamond.csv (and the other subsets), Title Case
# columns with spaces.
import csv
cols = ["Question", "Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3",
        "High-level domain", "Subdomain"]
buf = io.StringIO()
w = csv.DictWriter(buf, fieldnames=cols)
w.writeheader()
for i in range(3):
    w.writerow({"Question": f"Which particle is number {i}?", "Correct Answer": f"right {i}",
                "Incorrect Answer 1": f"wrong {i}a", "Incorrect Answer 2": f"wrong {i}b",
                "Incorrect Answer 3": f"wrong {i}c", "High-level domain": "Physics", "Subdomain": "Particles"})
add_file("Idavidrein/gpqa", "README.md", card([("gpqa_diamond", [("train", "gpqa_diamond.csv")]),
                                                ("gpqa_main", [("train", "gpqa_main.csv")])]))
add_file("Idavidrein/gpqa", "gpqa_diamond.csv", buf.getvalue())
add_file("Idavidrein/gpqa", "gpqa_main.csv", buf.getvalue())

# HuggingFaceH4/aime_2024: data/train-00000-of-00001.parquet; id, problem,
# solution, answer (string), url, year.
add_file("HuggingFaceH4/aime_2024", "README.md", card([("default", [("train", "data/train-*")])]))
add_file("HuggingFaceH4/aime_2024", "data/train-00000-of-00001.parquet", parquet(
    [{"id": 60, "problem": "Find the remainder when 2024 is divided by 1000.", "solution": "...", "answer": "24",
      "url": "https://example.invalid/aime", "year": "2024"}]))

# Maxwell-Jia/AIME_2024: aime_2024_problems.parquet; ID, Problem,
# Solution, Answer (int64).
add_file("Maxwell-Jia/AIME_2024", "README.md", card([("default", [("train", "aime_2024_problems.parquet")])]))
add_file("Maxwell-Jia/AIME_2024", "aime_2024_problems.parquet", parquet(
    [{"ID": f"2024-I-{i}", "Problem": f"Problem number {i}.", "Solution": f"Solve {i}.", "Answer": 100 + i} for i in range(1, 4)]))

# Rowan/hellaswag: data/{train,validation,test}-00000-of-00001.parquet;
# ind, activity_label, ctx_a, ctx_b, ctx, endings (list), source_id,
# split, split_type, label (string "0".."3"; "" in test).
def hs_rows(split, specs):
    rows = []
    for i, (label, gold) in enumerate(specs):
        ctx = f"A person in {label.lower()} clip {split} {i} then"
        rows.append({"ind": i, "activity_label": label, "ctx_a": ctx, "ctx_b": "", "ctx": ctx,
                     "endings": [f"{split} {i} ending {c}" for c in "wxyz"], "source_id": f"src-{i}",
                     "split": split, "split_type": "indomain", "label": "" if gold is None else str(gold)})
    return rows

add_file("Rowan/hellaswag", "README.md", card([("default", [("train", "data/train-*"), ("validation", "data/validation-*"),
                                                             ("test", "data/test-*")])]))
add_file("Rowan/hellaswag", "data/train-00000-of-00001.parquet", parquet(hs_rows("train", [
    ("Disc dog", 1), ("Applying sunscreen", 2), ("Disc dog", 0), ("Wakeboarding", 3), ("Cars & Other Vehicles", 0)])))
add_file("Rowan/hellaswag", "data/validation-00000-of-00001.parquet", parquet(hs_rows("validation", [
    ("Applying sunscreen", 0), ("Disc dog", 2), ("Applying sunscreen", 3), ("Cars & Other Vehicles", 1)])))
add_file("Rowan/hellaswag", "data/test-00000-of-00001.parquet", parquet(hs_rows("test", [("Disc dog", None)])))
