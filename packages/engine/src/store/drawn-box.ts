// The box of an entity the DXF package has no geometry for but the renderer draws: MLINE,
// MULTILEADER, WIPEOUT, TOLERANCE, ACAD_TABLE, MESH, proxies ... Without it such an entity has no
// place in the spatial index, so a window never selects it, zoom extents leaves it out and box
// queries miss it. What the plot draws of it is what it covers.
import type { DocumentApi, Entity } from '../dxf.js';
import { boundsValid } from '../render/display-list.js';
import { entityRenderer } from '../render/renderer.js';
import type { Box3 } from '../dxf.js';

/** Unbounded by nature: their box stays null. */
const UNBOUNDED = new Set(['RAY', 'XLINE']);

/**
 * Boxes drawn by one renderer. A renderer reads the drawing's tables when it is made (about
 * 0.1 ms), so one serves a pass over many entities while the drawing does not change (the index
 * built on open); a single box makes its own, so it never comes from styles or blocks as they
 * were before an edit.
 */
export class DrawnBoxes {
  private draw: ReturnType<typeof entityRenderer> | null = null;

  constructor(private readonly doc: DocumentApi) {}

  box(e: Entity): Box3 | null {
    if (UNBOUNDED.has(e.type)) return null;
    this.draw ??= entityRenderer(this.doc, { everyLayer: true, honorPlotFlag: false });
    const r = this.draw(e);
    if (!r || !r.list.prims.length || !boundsValid(r.list.bounds)) return null;
    const b = r.list.bounds;
    return { min: [b.minX, b.minY, 0], max: [b.maxX, b.maxY, 0] };
  }
}

export function drawnBox(e: Entity, doc: DocumentApi): Box3 | null {
  return new DrawnBoxes(doc).box(e);
}
