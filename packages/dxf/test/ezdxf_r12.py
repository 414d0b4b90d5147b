"""What a drawing and its R12 conversion draw, as ezdxf reads each (the R2018 -> R12 tests).

    python3 ezdxf_r12.py ORIGINAL CONVERTED

Prints one JSON object with, for both files and per block (layouts by their R12-neutral names):
  polylines  2D polylines as [closed, [[x, y, start_width, end_width, bulge], ...]]: LWPOLYLINE in
             the original, 2D POLYLINE in the conversion (ezdxf's own accessors)
  texts      the lines of text shown: MTEXT.plain_text() split into lines (blank ones left out)
             and TEXT values
and "colors": for each entity of the original with a true colour (by handle), its colour and, in the
conversion, the ACI colour of the entity with that handle and the ACI ezdxf's palette says is
nearest; "viewports_r12": for each VIEWPORT of the original, the tags ezdxf itself writes for it in
R12 (its export into a TagCollector of AC1009: centre, size, status, id and the ACAD MVIEW xdata)
beside the tags of the VIEWPORT with that handle in the conversion (ezdxf 0.18 does not read the
view back from R12 xdata, so the tags are compared). The audit of the conversion is given as
[errors, fixes].
"""
import json
import sys

import ezdxf
from ezdxf.colors import aci2rgb
from ezdxf.lldxf.tagger import ascii_tags_loader, tag_compiler
from ezdxf.lldxf.tagwriter import TagCollector

from ezdxf_check import layout_key


def r(v):
    return round(float(v), 9)


def summary(doc):
    polylines, texts = {}, {}
    for block in doc.blocks:
        key = layout_key(block.name)
        pl, tx = [], []
        for e in block:
            t = e.dxftype()
            if t == "LWPOLYLINE":
                cw = e.dxf.get("const_width", 0)
                # a constant width stands for the width of every vertex that has none
                pts = [[x, y, s or (cw if not ew else s), ew or (cw if not s else ew), b] for x, y, s, ew, b in e.get_points("xyseb")]
                pl.append([e.closed, [[r(c) for c in p] for p in pts]])
            elif t == "POLYLINE" and e.is_2d_polyline:
                pts = []
                for v in e.vertices:
                    loc = v.dxf.location
                    sw = v.dxf.get("start_width", e.dxf.get("default_start_width", 0))
                    ew = v.dxf.get("end_width", e.dxf.get("default_end_width", 0))
                    pts.append([r(loc.x), r(loc.y), r(sw), r(ew), r(v.dxf.get("bulge", 0))])
                pl.append([e.is_closed, pts])
            elif t == "MTEXT":
                tx.extend(line for line in e.plain_text().split("\n") if line.strip())
            elif t == "TEXT":
                tx.append(e.dxf.text)
        if pl:
            polylines[key] = sorted(pl)
        if tx:
            texts[key] = sorted(tx)
    return {"polylines": polylines, "texts": texts}


def nearest(rgb):
    return min(range(1, 256), key=lambda i: sum((a - b) ** 2 for a, b in zip(aci2rgb(i), rgb)))


def plain(tags):
    out = []
    for t in tags:
        v = t.value
        if isinstance(v, float):
            v = round(v, 9)
        elif not isinstance(v, (int, str)):
            # a point read as one tag: its coordinates as the tags they are written as
            for k, c in enumerate(v):
                out.append([t.code + 10 * k, round(float(c), 9)])
            continue
        out.append([t.code, v])
    return out


def viewport_tags(orig, path):
    """ezdxf's R12 export of each original VIEWPORT beside the raw tags of the converted one."""
    with open(path, "rt", encoding="cp1252", errors="surrogateescape") as f:
        tags = list(tag_compiler(ascii_tags_loader(f)))
    raw = {}
    i = 0
    while i < len(tags):
        if tags[i].code == 0 and tags[i].value == "VIEWPORT":
            j = i + 1
            while j < len(tags) and tags[j].code != 0:
                j += 1
            rec = tags[i:j]
            handle = next((t.value for t in rec if t.code == 5), None)
            raw[handle] = rec
            i = j
        else:
            i += 1
    result = []
    for layout in orig.layouts:
        for vp in layout.query("VIEWPORT"):
            tc = TagCollector(dxfversion="AC1009")
            vp.export_dxf(tc)
            mine = raw.get(vp.dxf.handle)
            def body(ts):
                # without the type, handle, layer and space: the R12 viewport's own data
                return plain([t for t in ts if t.code not in (0, 5, 8, 67, 330, 100)])
            result.append({"handle": vp.dxf.handle, "ezdxf": body(tc.tags), "ours": body(mine) if mine else None})
    return result


def main():
    orig = ezdxf.readfile(sys.argv[1])
    conv = ezdxf.readfile(sys.argv[2])
    auditor = conv.audit()
    colors = []
    for e in orig.entitydb.values():
        if hasattr(e, "dxf") and e.dxf.hasattr("true_color") and e.dxftype() != "LAYER":
            other = conv.entitydb.get(e.dxf.handle)
            colors.append({
                "handle": e.dxf.handle,
                "type": e.dxftype(),
                "aci": other.dxf.get("color") if other is not None else None,
                "nearest": nearest(e.rgb),
            })
    for layer in orig.layers:
        if layer.dxf.hasattr("true_color"):
            other = conv.layers.get(layer.dxf.name)
            colors.append({"layer": layer.dxf.name, "aci": other.color if other else None, "nearest": nearest(layer.rgb)})
    print(json.dumps({
        "original": summary(orig),
        "converted": summary(conv),
        "colors": colors,
        "viewports_r12": viewport_tags(orig, sys.argv[2]),
        "audit": [len(auditor.errors), len(auditor.fixes)],
        "audit_messages": [f"{x.code}: {x.message}" for x in list(auditor.errors) + list(auditor.fixes)][:10],
        "version": conv.dxfversion,
    }))


if __name__ == "__main__":
    main()
