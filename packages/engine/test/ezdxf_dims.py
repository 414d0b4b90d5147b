"""Reads a DXF file with ezdxf and describes each model-space DIMENSION twice: its own block as
written (lines, arcs, text) and the block ezdxf renders for it from the same definition points
and dimension style, with ezdxf's measurement. Prints JSON: a list, one item per dimension.

Usage: python3 ezdxf_dims.py FILE.dxf
"""
import json
import math
import sys

import ezdxf


def describe(doc, name):
    out = {"lines": [], "arcs": [], "texts": [], "solids": [], "inserts": [], "arrows": []}
    if not name or name not in doc.blocks:
        return out
    for e in doc.blocks[name]:
        t = e.dxftype()
        if t == "LINE":
            out["lines"].append([list(e.dxf.start)[:2], list(e.dxf.end)[:2]])
        elif t == "ARC":
            out["arcs"].append([list(e.dxf.center)[:2], e.dxf.radius, e.dxf.start_angle, e.dxf.end_angle])
        elif t == "MTEXT":
            out["texts"].append({"insert": list(e.dxf.insert)[:2], "text": e.text, "rotation": e.dxf.get("rotation", 0)})
        elif t == "TEXT":
            out["texts"].append({"insert": list(e.dxf.align_point or e.dxf.insert)[:2], "text": e.dxf.text, "rotation": e.dxf.rotation})
        elif t == "SOLID":
            # a filled arrow: tip vtx1, its back the middle of vtx0 and vtx2
            tip, back = e.dxf.vtx1, (e.dxf.vtx0 + e.dxf.vtx2) / 2
            out["solids"].append(list(tip)[:2])
            out["arrows"].append({"tip": list(tip)[:2], "angle": math.degrees(math.atan2(tip.y - back.y, tip.x - back.x)) % 360,
                                  "size": (tip - back).magnitude})
        elif t == "INSERT" and e.dxf.name.upper() in ("_OBLIQUE", "OBLIQUE"):
            # a tick: the block's stroke from (-1/2, -1/2) to (1/2, 1/2), placed
            m = e.matrix44()
            out["lines"].append([list(m.transform((-0.5, -0.5, 0)))[:2], list(m.transform((0.5, 0.5, 0)))[:2]])
        elif t == "INSERT":
            out["inserts"].append({"name": e.dxf.name, "insert": list(e.dxf.insert)[:2], "rotation": e.dxf.rotation})
            out["arrows"].append({"tip": list(e.dxf.insert)[:2], "angle": e.dxf.rotation % 360, "size": e.dxf.xscale})
    return out


def main() -> int:
    doc = ezdxf.readfile(sys.argv[1])
    result = []
    for dim in doc.modelspace().query("DIMENSION"):
        measurement = dim.get_measurement()
        if not isinstance(measurement, (int, float)):
            measurement = list(measurement)[:2]
        own = describe(doc, dim.dxf.geometry)
        item = {"handle": dim.dxf.handle, "dimtype": dim.dimtype, "measurement": measurement,
                "actual_measurement": dim.dxf.get("actual_measurement"), "own": own}
        item["text_midpoint"] = list(dim.dxf.text_midpoint)[:2]
        try:
            renderer = dim.override().render()
            item["ezdxf"] = describe(doc, dim.dxf.geometry)
            # what ezdxf's renderer measured (radians for angles) and where it put the text
            item["rendered_measurement"] = renderer.measurement.raw_value
            item["ezdxf_text_midpoint"] = list(dim.dxf.text_midpoint)[:2]
        except Exception as exc:  # noqa: BLE001 - report what ezdxf cannot render
            item["ezdxf_error"] = str(exc)
        result.append(item)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
