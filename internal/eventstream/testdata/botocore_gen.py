"""Regenerates botocore.json: event streams built here (with Python's
struct and zlib, not the Go encoder) and what botocore's own decoder
makes of each: the messages, or the name of the error it raises.

    python3 botocore_gen.py > botocore.json   (botocore from PyPI)
"""
import json
import struct
import uuid
import zlib

import botocore
from botocore.eventstream import EventStreamBuffer


def header(name, typ, value=b""):
    n = name.encode()
    out = struct.pack(">B", len(n)) + n + struct.pack(">B", typ)
    if typ in (6, 7):
        out += struct.pack(">H", len(value))
    return out + value


def frame(headers, payload, total_delta=0, prelude_crc_delta=0, msg_crc_delta=0, hlen_override=None):
    hb = b"".join(headers)
    hlen = len(hb) if hlen_override is None else hlen_override
    total = 16 + len(hb) + len(payload) + total_delta
    prelude = struct.pack(">II", total, hlen)
    prelude += struct.pack(">I", (zlib.crc32(prelude) + prelude_crc_delta) & 0xFFFFFFFF)
    body = prelude + hb + payload
    return body + struct.pack(">I", (zlib.crc32(body) + msg_crc_delta) & 0xFFFFFFFF)


def s(name, value):
    return header(name, 7, value.encode())


def part(payload):
    return frame([s(":event-type", "PayloadPart"), s(":content-type", "application/octet-stream"), s(":message-type", "event")], payload)


every_type = [
    header("t", 0), header("f", 1), header("b", 2, struct.pack(">b", -5)),
    header("sh", 3, struct.pack(">h", -300)), header("i", 4, struct.pack(">i", 70000)),
    header("l", 5, struct.pack(">q", -(1 << 40))), header("by", 6, b"\x00\xffraw"),
    s("str", "héllo"), header("ts", 8, struct.pack(">q", 1765000000123)),
    header("u", 9, uuid.UUID("12345678-1234-5678-1234-567812345678").bytes),
]

cases = {
    "one payload part": part(b'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n'),
    "three parts, a line split across two": part(b'{"a":') + part(b'1}\n{"b"') + part(b":2}\n"),
    "every header type": frame(every_type, b"payload"),
    "no headers, no payload": frame([], b""),
    "exception": frame([s(":exception-type", "ModelStreamError"), s(":content-type", "application/json"), s(":message-type", "exception")], b'{"Message":"boom"}'),
    "prelude checksum wrong": frame([s("a", "b")], b"x", prelude_crc_delta=1),
    "message checksum wrong": frame([s("a", "b")], b"x", msg_crc_delta=1),
    "headers longer than the limit": frame([], b"", hlen_override=128 * 1024 + 1),
    "payload longer than the limit": struct.pack(">II", 16 + 24 * 1024 * 1024 + 1, 0) + struct.pack(">I", zlib.crc32(struct.pack(">II", 16 + 24 * 1024 * 1024 + 1, 0))),
    "truncated message": part(b"abc\n")[:-3],
}


def value(v):
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, str):
        return {"string": v}
    if isinstance(v, uuid.UUID):
        return {"hex": v.bytes.hex()}
    return {"hex": bytes(v).hex()}


out = {"botocore": botocore.__version__, "cases": []}
for name, data in cases.items():
    buf = EventStreamBuffer()
    buf.add_data(data)
    msgs, err = [], ""
    try:
        for m in buf:
            msgs.append({"headers": {k: value(v) for k, v in m.headers.items()}, "payload": m.payload.hex()})
    except Exception as e:  # botocore's error class is the expectation
        err = type(e).__name__
    out["cases"].append({"name": name, "stream": data.hex(), "messages": msgs, "error": err})
print(json.dumps(out, indent=1))
