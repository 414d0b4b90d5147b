"""Independent check of binary DXF written by Linework, with ezdxf (Debian's python3-ezdxf).

argv: pairs of paths, ASCII then binary. For each pair prints one JSON object: whether ezdxf loads
the binary file as a drawing (ezdxf.readfile), the tag counts of both files as ezdxf's own
loaders read them (ascii_tags_loader in the encoding ezdxf finds for the file, binary_tags_loader),
and the first tag that differs, if any: ASCII values are typed by ezdxf's table of group code
types (lldxf.types.tag_type), so "1.0" and 1.0 are the same value.
"""
import json
import sys

import ezdxf
from ezdxf.filemanagement import dxf_file_info
from ezdxf.lldxf.tagger import ascii_tags_loader, binary_tags_loader
from ezdxf.lldxf.types import BINARY_DATA, HEX_HANDLE_CODES, tag_type


def value(code, v):
    if isinstance(v, (bytes, bytearray)):
        return v.hex().upper()
    if code in BINARY_DATA:
        return v.strip().upper()
    if code in HEX_HANDLE_CODES:
        return v.strip().upper()
    if tag_type(code) is str:
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def typed(tags):
    return [(t.code, value(t.code, t.value)) for t in tags]


def ascii_tags(path):
    encoding = dxf_file_info(path).encoding
    with open(path, "rt", encoding=encoding, errors="surrogateescape") as f:
        return typed(ascii_tags_loader(f))


def binary_tags(path):
    with open(path, "rb") as f:
        data = f.read()
    return typed(binary_tags_loader(data, errors="surrogateescape"))


def check(ascii_path, binary_path):
    result = {"ascii": ascii_path, "binary": binary_path}
    try:
        doc = ezdxf.readfile(binary_path)
        result["loads"] = True
        result["entities"] = len(list(doc.entitydb.values()))
    except Exception as e:  # noqa: BLE001 - the message is the answer
        result["loads"] = False
        result["error"] = f"{type(e).__name__}: {e}"
    a = ascii_tags(ascii_path)
    b = binary_tags(binary_path)
    result["ascii_tags"] = len(a)
    result["binary_tags"] = len(b)
    diff = None
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            diff = {"index": i, "ascii": repr(x), "binary": repr(y)}
            break
    if diff is None and len(a) != len(b):
        diff = {"index": min(len(a), len(b)), "ascii": "end" if len(a) < len(b) else repr(a[len(b)]), "binary": "end" if len(b) < len(a) else repr(b[len(a)])}
    result["first_difference"] = diff
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    for i in range(0, len(args), 2):
        print(json.dumps(check(args[i], args[i + 1])))
