"""The bytes of a TREC file: read from a path, ``"-"`` (standard input) or an open file
object (binary or text), gzip, bzip2 and xz unpacked whatever the file's name (recognised by
their first bytes), a UTF-8 byte-order mark dropped; and the stem that labels its system."""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import sys
import zlib
from pathlib import Path

from trunc_accessor.errors import InputError, InputTypeError

_BOM = b"\xef\xbb\xbf"
_COMPRESSED = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}


def _compression(head: bytes) -> str | None:
    """"gzip", "xz" or "bzip2" if ``head`` starts with that format's header, else None."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if (head[:3] == b"BZh" and head[3:4] in (b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9")
            and head[4:10] in (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")):
        return "bzip2"
    return None


def _decompress(data: bytes, where: str) -> bytes:
    """``data`` unpacked if its first bytes are a gzip, bzip2 or xz header."""
    kind = _compression(data[:10])
    if kind is None:
        return data
    unpack = {"gzip": gzip.decompress, "xz": lzma.decompress, "bzip2": bz2.decompress}[kind]
    try:
        return unpack(data)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as e:
        raise InputError(f"{where}: a damaged {kind} file ({e})") from None


def _source(src) -> tuple[bytes, str, str]:
    """(decompressed bytes, name for messages, stem for a system label) of a path, ``"-"``
    (standard input) or an open file object."""
    if isinstance(src, str) and src == "-":
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        data, where, stem = stream.read(), "<stdin>", "stdin"
    elif isinstance(src, (str, os.PathLike)):
        where = os.fspath(src)
        if not isinstance(where, str):
            where = os.fsdecode(where)
        data = Path(where).read_bytes()
        stem = _stem(where)
    elif hasattr(src, "read"):
        name = getattr(src, "name", None)
        where = name if isinstance(name, str) else f"<{type(src).__name__}>"
        stem = _stem(name) if isinstance(name, str) else type(src).__name__
        try:
            data = src.read()
        except UnicodeDecodeError as e:
            raise InputError(f"{where}: not UTF-8 text ({e}); open the file in binary mode "
                             "to learn which line") from None
    else:
        raise InputTypeError("a TREC file is given as a path (str or pathlib.Path), '-' for "
                             f"standard input, or an open file object, not {type(src).__name__}")
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    elif not isinstance(data, bytes):
        data = bytes(data)
    data = _decompress(data, where)
    return (data[3:] if data.startswith(_BOM) else data), where, stem


def _stem(name: str) -> str:
    """File name without a compression suffix and then without its last extension."""
    p = Path(name)
    if p.suffix.lower() in _COMPRESSED:
        p = p.with_suffix("")
    return p.stem or p.name or name
