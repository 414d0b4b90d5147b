// Geometry of typed entities: matrices, OCS, curves, bounding boxes, transformations, queries.
export { Matrix44 } from './matrix44.js';
export {
  add, sub, mul, dot, cross, len, normalize, dist, lerp, ocsFromExtrusion, ocsToWcs, wcsToOcs, ocsAngle, isDefaultExtrusion,
  normAngle, DEG, TAU,
} from './vec.js';
export type { Ocs } from './vec.js';
export {
  bulgeToArc, sweepToBulge, angleInRange, ccwSweep, ellipsePoint, ellipseAngleToParam, ellipseParamToAngle, clampedKnots, BSpline,
  addEllipseArcToBox, chordDistance,
} from './curves.js';
export type { BulgeArc, SplineData } from './curves.js';
export { BoxMemo, boundingBox, extents } from './bbox.js';
export type { BBox } from './bbox.js';
export {
  entityGeometry, flattenPrim, insertMatrix, insertMatrices, textCornersOcs, mtextCorners, mtextPlainLines, hatchLoops, CHAR_WIDTH,
} from './primitives.js';
export type { Primitive, Geometry } from './primitives.js';
export { transformEntity, transformEntities, moveEntity, rotateEntity, scaleEntity, mirrorEntity } from './transform.js';
export { intersections, distanceToPoint, containsPoint, flatten } from './query.js';
export {
  BudgetError, GEOMETRY_LIMITS, setGeometryLimits, insertCells, blockExpansion, referenceExpansion, checkReference, checkSpline, expansionError,
} from './expansion.js';
export type { GeometryLimits, ExpansionMemo } from './expansion.js';
export { cornerCellMatrices } from './primitives.js';
