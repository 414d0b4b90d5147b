// RAY: AcDbRay (ezdxf entities/xline.py), a half-infinite line from `start` along `unit_vector`.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';
import { XLINE_ATTRS } from './xline.js';

export const RAY: RecordDef = registerDef({
  type: 'RAY',
  minVersion: 'AC1012',
  subclasses: [{ marker: 'AcDbRay', attrs: XLINE_ATTRS }],
});
