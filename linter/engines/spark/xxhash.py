"""Spark's ``xxhash64(string)`` computed in Python, for the site graph's buckets
(model.Model._graph): the expressions probe the buckets with Spark's own
function, so the driver must place each name where Spark will look for it.

Spark hashes a string's UTF-8 bytes with the standard XXH64 (seed 42, the
algorithm's reference form: little-endian words, 32-byte stripes). Asking Spark
instead cost a job and ~0.7 s of a fresh run's JVM warming; the test compares
the two on names of every length class and on non-ASCII text.
"""
from __future__ import annotations

import struct

SPARK_SEED = 42
_MASK = (1 << 64) - 1
_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _MASK, 31) * _P1) & _MASK


def _merge(acc: int, value: int) -> int:
    return ((acc ^ _round(0, value)) * _P1 + _P4) & _MASK


def xxhash64(data: bytes, seed: int = SPARK_SEED) -> int:
    """XXH64 of ``data``, as the signed 64-bit integer Spark returns."""
    length, offset = len(data), 0
    if length >= 32:
        v1, v2, v3, v4 = (seed + _P1 + _P2) & _MASK, (seed + _P2) & _MASK, seed & _MASK, (seed - _P1) & _MASK
        while offset + 32 <= length:
            a, b, c, d = struct.unpack_from("<4Q", data, offset)
            v1, v2, v3, v4 = _round(v1, a), _round(v2, b), _round(v3, c), _round(v4, d)
            offset += 32
        acc = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _MASK
        for lane in (v1, v2, v3, v4):
            acc = _merge(acc, lane)
    else:
        acc = (seed + _P5) & _MASK
    acc = (acc + length) & _MASK
    while offset + 8 <= length:
        (word,) = struct.unpack_from("<Q", data, offset)
        acc = (_rotl(acc ^ _round(0, word), 27) * _P1 + _P4) & _MASK
        offset += 8
    if offset + 4 <= length:
        (word,) = struct.unpack_from("<I", data, offset)
        acc = (_rotl(acc ^ (word * _P1 & _MASK), 23) * _P2 + _P3) & _MASK
        offset += 4
    while offset < length:
        acc = (_rotl(acc ^ (data[offset] * _P5 & _MASK), 11) * _P1) & _MASK
        offset += 1
    acc ^= acc >> 33
    acc = (acc * _P2) & _MASK
    acc ^= acc >> 29
    acc = (acc * _P3) & _MASK
    acc ^= acc >> 32
    return acc - (1 << 64) if acc >= 1 << 63 else acc


def spark_string_hash(text: str) -> int:
    """``xxhash64(text)`` in Spark SQL. A lone surrogate (which JSON can spell) reaches
    the JVM as U+FFFD, as PySpark hands strings over: the same here."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")
    return xxhash64(data)
