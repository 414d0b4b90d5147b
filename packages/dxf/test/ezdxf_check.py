"""Independent check of written DXF files with ezdxf (Debian's python3-ezdxf).

Reads a JSON list of {"original": path, "written": path} on stdin and prints one JSON object per
pair on stdout: ezdxf's audit of both files and the differences found between them in entity
counts by type per layout/block, layer names, block names, xdata application names per entity
and a coarse geometry fingerprint (sum of key coordinates per entity type).

Modes (argv[1]): "compare" (default) as above; "write VERSION OUT" writes a small drawing with
ezdxf in that DXF version to OUT (to test reading what ezdxf writes).
"""
import json
import math
import sys
from collections import Counter

import ezdxf
from ezdxf import recover

POINT_ATTRS = ("start", "end", "center", "insert", "location", "defpoint", "base_point", "vtx0", "vtx1", "vtx2")


def load(path):
    """ezdxf's recover mode, or plain readfile + audit where recover fails (binary DXF)."""
    try:
        doc, auditor = recover.readfile(path)
    except Exception:  # ezdxf 0.18 recover cannot read binary DXF and crashes on some files
        doc = ezdxf.readfile(path)
        auditor = doc.audit()
    return doc, auditor


def fingerprint_of(e):
    total = 0.0
    for name in POINT_ATTRS:
        if e.dxf.hasattr(name):
            v = e.dxf.get(name)
            try:
                total += sum(float(c) for c in v)
            except TypeError:
                pass
    t = e.dxftype()
    if t == "LWPOLYLINE":
        total += sum(p[0] + p[1] for p in e.get_points("xy"))
    elif t == "POLYLINE":
        total += sum(v.dxf.location.x + v.dxf.location.y + v.dxf.location.z for v in e.vertices)
    return total


def layout_key(name):
    n = name.upper()
    if n in ("*MODEL_SPACE", "$MODEL_SPACE"):
        return "*MODEL_SPACE"
    if n in ("*PAPER_SPACE", "$PAPER_SPACE"):
        return "*PAPER_SPACE"
    return n


def summary(doc):
    counts = {}
    xdata = Counter()
    geometry = Counter()
    for block in doc.blocks:
        key = layout_key(block.name)
        c = Counter()
        for e in block:
            t = e.dxftype()
            c[t] += 1
            apps = sorted(e.xdata.data.keys()) if e.xdata else []
            if apps:
                xdata[t + ":" + ",".join(apps)] += 1
            try:
                geometry[t] += fingerprint_of(e)
            except Exception:
                pass
        if c:
            counts[key] = dict(c)
    return {
        "counts": counts,
        "layers": sorted({layer.dxf.name.upper() for layer in doc.layers}),
        "blocks": sorted({layout_key(b.name) for b in doc.blocks} - {"*MODEL_SPACE", "*PAPER_SPACE"}),
        "xdata": dict(xdata),
        "geometry": {t: v for t, v in geometry.items()},
    }


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def compare(orig, written):
    problems = []
    if orig["counts"] != written["counts"]:
        for key in sorted(set(orig["counts"]) | set(written["counts"])):
            a, b = orig["counts"].get(key, {}), written["counts"].get(key, {})
            if a != b:
                problems.append(f"entity counts of {key}: {a} != {b}")
    for what in ("layers", "blocks"):
        if orig[what] != written[what]:
            lost = sorted(set(orig[what]) - set(written[what]))
            added = sorted(set(written[what]) - set(orig[what]))
            problems.append(f"{what}: lost {lost[:10]}, added {added[:10]}")
    if orig["xdata"] != written["xdata"]:
        problems.append(f"xdata apps: {orig['xdata']} != {written['xdata']}")
    for t in sorted(set(orig["geometry"]) | set(written["geometry"])):
        a, b = orig["geometry"].get(t, 0.0), written["geometry"].get(t, 0.0)
        if not close(a, b):
            problems.append(f"geometry of {t}: {a} != {b}")
    return problems


def check(pair):
    result = {"original": pair["original"], "written": pair["written"]}
    try:
        odoc, oaudit = load(pair["original"])
        result["original_audit"] = [len(oaudit.errors), len(oaudit.fixes)]
        osum = summary(odoc)
    except Exception as exc:  # the original itself may be unreadable for ezdxf
        result["original_error"] = f"{type(exc).__name__}: {exc}"
        osum = None
    try:
        wdoc, waudit = load(pair["written"])
        result["written_audit"] = [len(waudit.errors), len(waudit.fixes)]
        result["written_messages"] = [f"{e.code}: {e.message}" for e in waudit.errors][:10]
        result["written_fix_messages"] = [f"{e.code}: {e.message}" for e in waudit.fixes][:10]
        wsum = summary(wdoc)
    except Exception as exc:
        result["written_error"] = f"{type(exc).__name__}: {exc}"
        wsum = None
    result["problems"] = compare(osum, wsum) if osum is not None and wsum is not None else []
    return result


def write_sample(version, out):
    doc = ezdxf.new(version)
    msp = doc.modelspace()
    doc.layers.add("Walls", color=3)
    msp.add_line((0, 0), (10, 5), dxfattribs={"layer": "Walls"})
    msp.add_circle((5, 5), 2.5)
    msp.add_arc((0, 0), 3, 0, 90)
    msp.add_text("Hello \u00e4\u00f6\u00fc", dxfattribs={"insert": (1, 2), "height": 0.5})
    msp.add_polyline2d([(0, 0), (1, 1), (2, 0)])
    if version != "R12":
        msp.add_lwpolyline([(0, 0), (4, 0), (4, 4)], dxfattribs={"closed": True})
        msp.add_ellipse((0, 0), major_axis=(3, 0), ratio=0.5)
        msp.add_mtext("multi\\Pline")
    block = doc.blocks.new("DOOR")
    block.add_line((0, 0), (1, 0))
    msp.add_blockref("DOOR", (3, 3))
    line = msp.add_line((1, 1), (2, 2))
    line.set_xdata("ACAD", [(1000, "xdata")])
    doc.saveas(out)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "compare"
    if mode == "write":
        write_sample(sys.argv[2], sys.argv[3])
        return
    pairs = json.load(sys.stdin)
    for pair in pairs:
        print(json.dumps(check(pair)), flush=True)


if __name__ == "__main__":
    main()
