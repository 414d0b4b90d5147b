// 3DFACE: AcDbFace (ezdxf entities/solid.py). Vertices in WCS; `invisible_edges` flags hidden edges.
// ezdxf calls code 70 `invisible`, but that name is AcDbEntity's code 60 and a record keeps one
// value per name: sharing it made each tag overwrite the other on write.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';

export const FACE3D: RecordDef = registerDef({
  type: '3DFACE',
  subclasses: [
    {
      marker: 'AcDbFace',
      attrs: [
        { name: 'vtx0', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'vtx1', code: 11, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'vtx2', code: 12, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'vtx3', code: 13, kind: 'point3', default: [0, 0, 0] },
        { name: 'invisible_edges', code: 70, kind: 'int', default: 0 },
      ],
    },
  ],
});
