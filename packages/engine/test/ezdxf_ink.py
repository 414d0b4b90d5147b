"""What ezdxf's drawing add-on draws inside each viewport of a paper-space layout.

    python3 ezdxf_ink.py FILE.dxf LAYOUT [LAYOUT ...]

Draws each layout with ezdxf's Frontend into a recording backend that accepts viewport clipping
(ezdxf then draws each viewport's model-space content through its view transformation) and prints
one JSON object: {layout: {"viewports": [{"handle", "center": [x, y], "size": [w, h], "ink": n}],
"prims": n}}, where "ink" counts the points of lines, paths, polygons and texts drawn while ezdxf
draws that viewport that fall inside its clipping box. ezdxf 0.18 draws the viewports with id > 1
and status > 0 only: those of a layout that was not the current one (status 0) get no ink here.
Each layout also gets its "extents" (ezdxf.bbox) and its page setup's "plot_type" and
"plot_window" [x1, y1, x2, y2].
"""
import json
import sys

import ezdxf
import ezdxf.bbox
from ezdxf.addons.drawing import Frontend, RenderContext
from ezdxf.addons.drawing.debug_backend import BasicBackend


class InkBackend(BasicBackend):
    def __init__(self):
        super().__init__()
        self.clip = None
        self.viewport = None
        self.ink = {}
        self.prims = 0

    def set_clipping_path(self, path=None, scale=1.0):
        self.clip = None
        if path is not None:
            pts = list(path.flattening(0.01))
            if pts:
                xs = [p.x for p in pts]
                ys = [p.y for p in pts]
                self.clip = (min(xs), min(ys), max(xs), max(ys))
        return True

    def _count(self, points):
        self.prims += 1
        if self.clip is None or self.viewport is None:
            return
        x0, y0, x1, y1 = self.clip
        n = sum(1 for p in points if x0 - 1e-6 <= p.x <= x1 + 1e-6 and y0 - 1e-6 <= p.y <= y1 + 1e-6)
        if n:
            self.ink[self.viewport] = self.ink.get(self.viewport, 0) + n

    def draw_point(self, pos, properties):
        self._count([pos])

    def draw_line(self, start, end, properties):
        self._count([start, end])

    def draw_filled_polygon(self, points, properties):
        self._count(list(points))

    def draw_text(self, text, transform, properties, cap_height):
        self._count([transform.transform((0, 0, 0))])


class InkFrontend(Frontend):
    """Tells the backend which viewport is being drawn."""

    def draw_viewport_entity(self, entity, properties):
        self.out.viewport = entity.dxf.handle
        try:
            super().draw_viewport_entity(entity, properties)
        finally:
            self.out.viewport = None


def main():
    doc = ezdxf.readfile(sys.argv[1])
    out = {}
    for name in sys.argv[2:]:
        layout = doc.layouts.get(name)
        backend = InkBackend()
        InkFrontend(RenderContext(doc), backend).draw_layout(layout, finalize=True)
        vps = []
        for vp in layout.query("VIEWPORT"):
            c = vp.dxf.center
            w, h = vp.dxf.width, vp.dxf.height
            ink = backend.ink.get(vp.dxf.handle, 0)
            vps.append({"handle": vp.dxf.handle, "center": [c.x, c.y], "size": [w, h], "ink": ink})
        box = ezdxf.bbox.extents(layout)
        pl = layout.dxf_layout.dxf
        out[name] = {
            "viewports": vps,
            "prims": backend.prims,
            "extents": [box.extmin.x, box.extmin.y, box.extmax.x, box.extmax.y] if box.has_data else None,
            "plot_type": pl.get("plot_type"),
            "plot_window": [pl.get("plot_window_x1"), pl.get("plot_window_y1"), pl.get("plot_window_x2"), pl.get("plot_window_y2")],
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
