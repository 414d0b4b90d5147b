"""ezdxf's view of two DXF files, compared while ignoring handles (the DXF tests and
scripts/dxf-roundtrip/table.ts use it).

Reads a JSON list of {"original": path, "written": path, "as_version"?: "AC1032",
"ignore_header"?: ["$VAR"]} on stdin and
prints one JSON object per pair: ezdxf's audit (errors, fixes) of both and, per category
(entities, tables, blocks, xdata, objects, header), how many records differ between the two files,
with an example. With "as_version" both files' records are exported in that DXF version, so that
a drawing and its conversion to another version can be compared.

A record's view is the tag list ezdxf itself would write for it (its export_dxf into a
TagCollector, optional attributes included), with every handle-valued tag (5, 105, 320-369,
390-399, 480-481, 1005) replaced by the place of the record it points to ("LAYER:WALLS",
"*MODEL_SPACE#12", "DICTIONARY#3"), so renumbered handles compare equal and a reference that
points somewhere else does not. Floats are compared to 10 significant digits.
"""
import json
import sys
from collections import Counter

import ezdxf
from ezdxf import recover
from ezdxf.lldxf.tagwriter import TagCollector
import re

ESCAPE = re.compile(r"\\U\+([0-9A-Fa-f]{4})")
HANDLE_CODES = {5, 105, 1005} | set(range(320, 370)) | set(range(390, 400)) | {480, 481}


def load(path):
    try:
        doc, auditor = recover.readfile(path)
    except Exception:  # ezdxf 0.18's recover mode does not read binary DXF
        doc = ezdxf.readfile(path)
        auditor = doc.audit()
    return doc, auditor


def layout_key(name):
    n = name.upper()
    if n in ("*MODEL_SPACE", "$MODEL_SPACE"):
        return "*MODEL_SPACE"
    if n in ("*PAPER_SPACE", "$PAPER_SPACE"):
        return "*PAPER_SPACE"
    return n


def sub_entities(e):
    t = e.dxftype()
    subs = []
    if t == "POLYLINE":
        subs.extend(e.vertices)
    elif t == "INSERT":
        subs.extend(e.attribs)
    seqend = getattr(e, "seqend", None)
    if subs or (seqend is not None and t in ("POLYLINE", "INSERT") and (t == "POLYLINE" or e.attribs)):
        if seqend is not None:
            subs.append(seqend)
    return subs


def places(doc):
    """handle -> a name of the record's place that does not depend on handles."""
    ids = {}
    records = []  # (category, key, entity)

    def add(h, name):
        if h:
            ids.setdefault(h.upper(), name)

    for table in doc.tables.tables():
        head = getattr(table, "_head", None)
        tname = table.TABLE_TYPE
        if head is not None:
            add(head.dxf.get("handle"), f"TABLE:{tname}")
        seen = Counter()
        for entry in table:
            name = f"{tname}:{entry.dxf.get('name', '').upper()}"
            seen[name] += 1
            if seen[name] > 1:
                name += f"({seen[name]})"
            add(entry.dxf.get("handle"), name)
            records.append(("tables", name, entry))
    for block in doc.blocks:
        bname = layout_key(block.name)
        layout = bname in ("*MODEL_SPACE", "*PAPER_SPACE") or bname.startswith("*PAPER_SPACE")
        cat = "entities" if layout else "blocks"
        br = block.block_record
        if br is not None:
            add(br.dxf.get("handle"), f"BLOCK_RECORD:{bname}")
        if block.block is not None:
            add(block.block.dxf.get("handle"), f"BLOCK:{bname}")
            if not layout:
                records.append((cat, f"BLOCK:{bname}", block.block))
        if block.endblk is not None:
            add(block.endblk.dxf.get("handle"), f"ENDBLK:{bname}")
        for i, e in enumerate(block):
            name = f"{bname}#{i}"
            add(e.dxf.get("handle"), name)
            records.append((cat, name, e))
            for j, s in enumerate(sub_entities(e)):
                sname = f"{name}.{j}"
                add(s.dxf.get("handle"), sname)
                records.append((cat, sname, s))
    counts = Counter()
    for o in doc.objects:
        t = o.dxftype()
        name = f"{t}#{counts[t]}"
        counts[t] += 1
        add(o.dxf.get("handle"), name)
        records.append(("objects", name, o))
    return ids, records


def value(tag, ids):
    code, v = tag.code, tag.value
    if code in HANDLE_CODES:
        h = str(v).upper()
        if h in ("0", ""):
            return "#null"
        return ids.get(h, "#dangling")
    if isinstance(v, float):
        return float(f"{v:.10g}")
    if isinstance(v, bytes):
        return v.hex().upper()
    if isinstance(v, str) and "\\U+" in v:
        # ezdxf decodes \U+XXXX escapes of ASCII files on load but not those of binary files
        return ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), v)
    return v


def record_view(e, ids, dxfversion):
    tc = TagCollector(dxfversion=dxfversion)
    try:
        e.export_dxf(tc)
    except Exception as exc:
        return [("export failed", type(exc).__name__)], []
    tags, xdata = [], []
    target = tags
    for t in tc.tags:
        if t.code == 1001:
            target = xdata
        target.append((t.code, value(t, ids)))
    return tags, xdata


def plain(v):
    if isinstance(v, float):
        return float(f"{v:.10g}")
    if isinstance(v, (str, int)):
        return v
    try:
        return [plain(c) for c in v]
    except TypeError:
        return str(v)


# generated by ezdxf on load when a file has none: random on each load
GENERATED = ("$FINGERPRINTGUID", "$VERSIONGUID")


def view(doc, raw, as_version=None):
    ids, records = places(doc)
    version = as_version or doc.dxfversion
    out = {"entities": {}, "tables": {}, "blocks": {}, "objects": {}, "xdata": {}, "header": {}}
    for cat, name, e in records:
        tags, xdata = record_view(e, ids, version)
        out[cat][name] = tags
        if xdata:
            out["xdata"][name] = xdata
    for key in doc.header.varnames():
        if key in ("$HANDSEED", "$ACADVER", "$DWGCODEPAGE"):
            continue
        if key in GENERATED and str(doc.header[key]).encode() not in raw:
            continue
        out["header"][key] = plain(doc.header[key])
    return out


def diff(a, b):
    res = {}
    for cat in a:
        x, y = a[cat], b[cat]
        changed = [k for k in x if k in y and x[k] != y[k]]
        lost = [k for k in x if k not in y]
        added = [k for k in y if k not in x]
        if changed or lost or added:
            example = None
            if changed:
                k = changed[0]
                xa, ya = x[k], y[k]
                if isinstance(xa, list) and isinstance(ya, list):
                    n = next((i for i in range(min(len(xa), len(ya))) if xa[i] != ya[i]), min(len(xa), len(ya)))
                    example = f"{k}: {xa[max(0, n - 1):n + 2]} != {ya[max(0, n - 1):n + 2]}"
                else:
                    example = f"{k}: {xa} != {ya}"
            elif lost:
                example = f"lost {lost[0]}"
            else:
                example = f"added {added[0]}"
            res[cat] = {"changed": len(changed), "lost": len(lost), "added": len(added), "example": str(example)[:300]}
    return res


def check(pair):
    result = {"original": pair["original"], "written": pair["written"]}
    views = {}
    for which in ("original", "written"):
        try:
            doc, auditor = load(pair[which])
            result[which + "_audit"] = [len(auditor.errors), len(auditor.fixes)]
        except Exception as exc:
            result[which + "_error"] = f"{type(exc).__name__}: {exc}"[:200]
            continue
        with open(pair["original"], "rb") as f:
            raw = f.read()
        views[which] = view(doc, raw, pair.get("as_version"))
        for name in pair.get("ignore_header", []):
            views[which]["header"].pop(name, None)
    if len(views) == 2:
        result["differences"] = diff(views["original"], views["written"])
    return result


def main():
    for pair in json.load(sys.stdin):
        print(json.dumps(check(pair)), flush=True)


if __name__ == "__main__":
    main()
