"""Writes the drawing the R12 tests convert: what R12 has no entity type for but can draw.

    python3 r12_fixture.py OUT.dxf

An R2018 drawing (ezdxf) with HATCHes (a pattern with an island, a solid fill, a gradient), a
WIPEOUT over a line, an MLINE, a MULTILEADER, a RAY and an XLINE, a MESH, an IMAGE, lineweights
on a layer and an entity, a dimension style with 2 decimals (DIMDEC) and a dimension using it,
and two paper-space layouts: the active one empty, the other with a frame, a title and a viewport.
"""
import sys

import ezdxf
from ezdxf.math import Vec2
from ezdxf.render import mleader

doc = ezdxf.new("R2018")
doc.layers.add("HEAVY", color=3, lineweight=70)
msp = doc.modelspace()
msp.add_line((0, -5), (120, -5), dxfattribs={"lineweight": 50})

# pattern hatch with an island (even-odd: the island is not hatched)
h = msp.add_hatch(color=1)
h.set_pattern_fill("ANSI31", scale=0.5)
h.paths.add_polyline_path([(0, 0), (30, 0), (30, 20), (0, 20)], is_closed=True, flags=1)
h.paths.add_polyline_path([(10, 5), (20, 5), (20, 15), (10, 15)], is_closed=True, flags=16)
# solid fill with an island
s = msp.add_hatch(color=5)
s.paths.add_polyline_path([(40, 0), (70, 0), (70, 20), (40, 20)], is_closed=True, flags=1)
s.paths.add_polyline_path([(50, 5), (60, 5), (60, 15), (50, 15)], is_closed=True, flags=16)
# gradient (one first colour: red)
g = msp.add_hatch()
g.set_gradient((255, 0, 0), (255, 255, 0))
g.paths.add_polyline_path([(80, 0), (110, 0), (110, 20), (80, 20)], is_closed=True, flags=1)

msp.add_line((0, 30), (30, 30))
msp.add_wipeout([(5, 25), (15, 25), (15, 35), (5, 35)])
msp.add_mline([(40, 25), (70, 25), (70, 40)])
ml = msp.add_multileader_mtext("Standard")
ml.set_content("NOTE", char_height=2.5)
ml.add_leader_line(mleader.ConnectionSide.left, [Vec2(80, 25)])
ml.build(insert=Vec2(90, 35))
msp.add_ray((0, 50), (1, 0.2))
msp.add_xline((60, 50), (0, 1))
mesh = msp.add_mesh()
with mesh.edit_data() as data:
    data.vertices = [(0, 60, 0), (10, 60, 0), (10, 70, 5), (0, 70, 5), (5, 75, 8)]
    data.faces = [(0, 1, 2, 3), (3, 2, 4)]
imgdef = doc.add_image_def("missing.png", size_in_pixel=(64, 32))
msp.add_image(imgdef, insert=(20, 60), size_in_units=(20, 10))

dim_style = doc.dimstyles.new("TWO")
dim_style.dxf.dimdec = 2
dim_style.dxf.dimtxt = 2.5
dim_style.dxf.dimasz = 2.5
msp.add_linear_dim(base=(0, -12), p1=(0, -5), p2=(33.3333, -5), dimstyle="TWO").render()

doc.layouts.new("Sheet")
sheet = doc.layouts.get("Sheet")
sheet.add_lwpolyline([(0, 0), (270, 0), (270, 190), (0, 190)], close=True)
sheet.add_text("TITLE", dxfattribs={"height": 5, "insert": (200, 10)})
sheet.add_viewport(center=(135, 100), size=(250, 160), view_center_point=(60, 30), view_height=100)
doc.layouts.set_active_layout("Layout1")
doc.saveas(sys.argv[1])
