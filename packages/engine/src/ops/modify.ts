// The construct/modify ops of this module set, for the catalogue.
import { offsetOp } from './modify-offset.js';
import { extendOp, trimOp } from './modify-trim.js';
import { chamferOp, filletOp } from './modify-corner.js';
import { breakOp, joinOp } from './modify-break-join.js';

export const MODIFY_GEOMETRY_OPS = [offsetOp, trimOp, extendOp, filletOp, chamferOp, breakOp, joinOp];
