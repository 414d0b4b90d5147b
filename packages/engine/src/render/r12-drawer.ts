// What saving as R12 puts in place of the entities R12 has no type for (HATCH, WIPEOUT, MLINE,
// MULTILEADER, TOLERANCE, proxies ...): what the renderer draws of them, as R12 primitives. Lines
// stay lines (dash patterns are the INSERT's linetype), fills become SOLID triangles (earcut, as
// the display-list encoder fills them), texts TEXTs. A primitive in the entity's own colour takes
// the INSERT's (BYBLOCK); one in another colour (a gradient's first colour, a MULTILEADER's
// leader colour) its nearest ACI colour; WIPEOUT masks are ACI 255, the paper's white.
import earcut from 'earcut';
import { nearestAci, type DocumentApi, type Entity, type R12Drawer, type R12Drawn } from '../dxf.js';
import type { Prim } from './display-list.js';
import { fillPieces } from './encode.js';
import { entityRenderer } from './renderer.js';

/** The ACI colour of white paper, which a WIPEOUT's mask becomes. */
const MASK_ACI = 255;

function colorOf(p: Prim, own: number): number | undefined {
  if (p.kind === 'path' && p.mask) return MASK_ACI;
  return p.color === own ? undefined : nearestAci(p.color);
}

function toR12(prims: Prim[], own: number): R12Drawn {
  const d: R12Drawn = { lines: [], solids: [], texts: [] };
  for (const p of prims) {
    const color = colorOf(p, own);
    const c = color === undefined ? {} : { color };
    switch (p.kind) {
      case 'polyline': {
        const starts = [0, ...(p.breaks ?? []), p.pts.length / 2];
        for (let i = 0; i + 1 < starts.length; i++) {
          const pts = p.pts.slice(starts[i]! * 2, starts[i + 1]! * 2);
          if (pts.length >= 4) d.lines.push({ pts, closed: p.closed && starts.length === 2, ...(p.width ? { width: p.width } : {}), ...c });
        }
        break;
      }
      case 'path':
        for (const piece of fillPieces(p)) {
          const idx = earcut(piece.flat, piece.holes, 2);
          for (let k = 0; k < idx.length; k += 3) {
            const pts: number[] = [];
            for (const v of [idx[k]!, idx[k + 1]!, idx[k + 2]!]) pts.push(piece.flat[v * 2]!, piece.flat[v * 2 + 1]!);
            d.solids.push({ pts, ...c });
          }
        }
        break;
      case 'text':
        d.texts.push({
          text: p.text, x: p.x, y: p.y, height: p.height, rotation: (p.rotation * 180) / Math.PI, widthFactor: p.widthFactor, oblique: p.oblique,
          align: p.align === 'center' ? 1 : p.align === 'right' ? 2 : 0, ...c,
        });
        break;
      case 'image': {
        // an image drawn inside another entity: its frame
        const [a, b, cc, dd, tx, ty] = p.matrix;
        const at = (x: number, y: number): number[] => [a * x + cc * y + tx, b * x + dd * y + ty];
        d.lines.push({ pts: [...at(0, 0), ...at(p.pxWidth, 0), ...at(p.pxWidth, p.pxHeight), ...at(0, p.pxHeight)], closed: true, ...c });
        break;
      }
    }
  }
  return d;
}

const renderers = new WeakMap<DocumentApi, ReturnType<typeof entityRenderer>>();

/**
 * Draws an entity of `doc` for R12. Every layer is drawn (off or frozen ones too: the R12 drawing
 * keeps their state); the drawing's layers, linetypes and styles are read once per drawing.
 */
export const drawForR12: R12Drawer = (e: Entity, doc: DocumentApi) => {
  let draw = renderers.get(doc);
  if (!draw) {
    draw = entityRenderer(doc, { everyLayer: true, honorPlotFlag: false });
    renderers.set(doc, draw);
  }
  const r = draw(e);
  if (!r || !r.list.prims.length) return null;
  return toR12(r.list.prims, r.color);
};
