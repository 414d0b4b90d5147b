"""Writes samples/sample.dxf, the drawing `npm start` opens: a small floor plan with layers, a block
inserted twice, a dimension, a hatch, text and a paper-space layout with a viewport. Run with a
Python that has ezdxf: python3 samples/make-sample.py"""
import pathlib
import ezdxf
from ezdxf.enums import TextEntityAlignment

doc = ezdxf.new("R2018", setup=True)
doc.header["$INSUNITS"] = 6  # metres
for name, color in [("Walls", 7), ("Doors", 3), ("Dims", 1), ("Hatch", 8), ("Text", 2), ("Viewports", 9)]:
    doc.layers.add(name, color=color)
doc.layers.get("Walls").dxf.lineweight = 50

door = doc.blocks.new("DOOR", base_point=(0, 0))
door.add_line((0, 0), (0.9, 0), dxfattribs={"layer": "0"})
door.add_arc((0, 0), 0.9, 0, 90, dxfattribs={"layer": "0"})

msp = doc.modelspace()
outer = [(0, 0), (12, 0), (12, 8), (0, 8)]
inner = [(0.25, 0.25), (11.75, 0.25), (11.75, 7.75), (0.25, 7.75)]
msp.add_lwpolyline(outer, close=True, dxfattribs={"layer": "Walls"})
msp.add_lwpolyline(inner, close=True, dxfattribs={"layer": "Walls"})
msp.add_line((6, 0.25), (6, 4.5), dxfattribs={"layer": "Walls"})
msp.add_line((6, 5.5), (6, 7.75), dxfattribs={"layer": "Walls"})
msp.add_blockref("DOOR", (6, 4.5), dxfattribs={"layer": "Doors", "rotation": 0})
msp.add_blockref("DOOR", (2, 0.25), dxfattribs={"layer": "Doors", "rotation": 0})
msp.add_circle((9, 4), 0.6, dxfattribs={"layer": "Walls"})

hatch = msp.add_hatch(color=8, dxfattribs={"layer": "Hatch"})
hatch.set_pattern_fill("ANSI31", scale=0.05)
hatch.paths.add_polyline_path([(0, 0), (12, 0), (12, 0.25), (0, 0.25)], is_closed=True)

dim = msp.add_linear_dim(base=(0, -1.2), p1=(0, 0), p2=(12, 0), dxfattribs={"layer": "Dims"})
dim.render()
msp.add_text("LIVING", height=0.4, dxfattribs={"layer": "Text"}).set_placement((3, 4), align=TextEntityAlignment.MIDDLE_CENTER)
msp.add_text("BEDROOM", height=0.4, dxfattribs={"layer": "Text"}).set_placement((9, 6), align=TextEntityAlignment.MIDDLE_CENTER)

sheet = doc.layouts.new("Sheet 1")
sheet.page_setup(size=(297, 210), margins=(10, 10, 10, 10), units="mm")
sheet.add_viewport(center=(148.5, 110), size=(250, 160), view_center_point=(6, 3.5), view_height=11, dxfattribs={"layer": "Viewports"})
sheet.add_text("Linework sample - floor plan", height=5, dxfattribs={"layer": "Text"}).set_placement((20, 18))

out = pathlib.Path(__file__).with_name("sample.dxf")
doc.saveas(out)
print(out)
