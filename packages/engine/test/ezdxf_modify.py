"""Reads a DXF file with ezdxf, audits it and prints the model space geometry by handle as JSON.

Usage: python3 ezdxf_modify.py FILE.dxf
Prints {"errors": n, "fixes": n, "messages": [...], "entities": {handle: {...}}}; the modify
tests compare ezdxf's reading of what the engine wrote with the exact geometry they expect.
"""
import json
import sys

import ezdxf


def vec(v):
    return [float(v[0]), float(v[1]), float(v[2]) if len(v) > 2 else 0.0]


def describe(e):
    t = e.dxftype()
    d = {"type": t, "layer": e.dxf.layer, "color": e.dxf.color, "linetype": e.dxf.linetype, "lineweight": e.dxf.lineweight}
    if t == "LINE":
        d.update(start=vec(e.dxf.start), end=vec(e.dxf.end))
    elif t in ("ARC", "CIRCLE"):
        d.update(center=vec(e.dxf.center), radius=e.dxf.radius, extrusion=vec(e.dxf.extrusion))
        if t == "ARC":
            d.update(start_angle=e.dxf.start_angle, end_angle=e.dxf.end_angle)
    elif t == "ELLIPSE":
        d.update(center=vec(e.dxf.center), major_axis=vec(e.dxf.major_axis), ratio=e.dxf.ratio,
                 start_param=e.dxf.start_param, end_param=e.dxf.end_param)
    elif t == "LWPOLYLINE":
        d.update(points=[list(p) for p in e.get_points("xyb")], closed=bool(e.closed))
    elif t == "POLYLINE":
        d.update(points=[[v.dxf.location.x, v.dxf.location.y, v.dxf.bulge] for v in e.vertices], closed=bool(e.is_closed),
                 is_2d=bool(e.is_2d_polyline), elevation=vec(e.dxf.elevation), z=[v.dxf.location.z for v in e.vertices])
    elif t == "SPLINE":
        k = list(e.knots)
        lo, hi = k[e.dxf.degree], k[-e.dxf.degree - 1]
        d.update(degree=e.dxf.degree, control_points=[vec(p) for p in e.control_points], knots=k,
                 points=[vec(p) for p in e.construction_tool().points([lo + (hi - lo) * i / 16 for i in range(17)])])
    return d


def main() -> int:
    doc = ezdxf.readfile(sys.argv[1])
    auditor = doc.audit()
    messages = [str(e.message) for e in auditor.errors] + [str(f.message) for f in auditor.fixes]
    out = {"errors": len(auditor.errors), "fixes": len(auditor.fixes), "messages": messages[:50],
           "entities": {e.dxf.handle: describe(e) for e in doc.modelspace()}}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
