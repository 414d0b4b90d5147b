// MULTILEADER (MLEADER) read from its tags for drawing. The dxf package keeps the entity's tags
// verbatim (no declaration: its CONTEXT_DATA / LEADER / LEADER_LINE groups reuse group codes with
// other meanings at each level), so this reads them with a small state machine over the levels.
import type { DxfRecord } from '../dxf.js';
import { rawTags } from './records.js';

export interface MLeaderLine {
  /** Vertices from the arrow end towards the landing. */
  vertices: number[][];
}

export interface MLeaderBranch {
  /** Where the leader lines end and the dogleg (landing) starts. */
  landing: number[] | null;
  /** Unit vector of the dogleg, when the branch has one. */
  dogleg: number[] | null;
  doglegLength: number;
  lines: MLeaderLine[];
}

export interface MLeaderData {
  /** 0: no lines, 1: straight, 2: spline. */
  lineType: number;
  /** Raw MLEADER colours: 0xC0...: ByLayer, 0xC1...: ByBlock, 0xC2 RRGGBB, 0xC3 ACI. */
  lineColor: number;
  arrowHandle: string;
  arrowSize: number;
  doglegEnabled: boolean;
  /** Whether the text has a frame (entity code 292), drawn the landing gap away from it. */
  textFrame: boolean;
  landingGap: number;
  branches: MLeaderBranch[];
  text: {
    content: string;
    location: number[];
    direction: number[];
    height: number;
    width: number;
    attachment: number;
    styleHandle: string;
    color: number;
  } | null;
  block: {
    handle: string;
    location: number[];
    scale: number[];
    /** Radians. */
    rotation: number;
    color: number;
  } | null;
}

const BY_LAYER = 0xc0000000 | 0;

/** The entity's leader and content data; null when it has no AcDbMLeader part. */
export function readMLeader(rec: DxfRecord): MLeaderData | null {
  const tags = rawTags(rec);
  let i = tags.findIndex(([c, v]) => c === 100 && v === 'AcDbMLeader');
  if (i < 0) return null;
  const out: MLeaderData = { lineType: 1, lineColor: BY_LAYER, arrowHandle: '', arrowSize: 0, doglegEnabled: true, textFrame: false, landingGap: 0, branches: [], text: null, block: null };
  const ctx = {
    arrowSize: 0,
    hasText: false,
    hasBlock: false,
    content: '',
    textLocation: [0, 0, 0],
    textDirection: [1, 0, 0],
    textHeight: 0,
    textWidth: 0,
    attachment: 1,
    textStyle: '',
    textColor: BY_LAYER,
    blockHandle: '',
    blockLocation: [0, 0, 0],
    blockScale: [1, 1, 1],
    blockRotation: 0,
    blockColor: BY_LAYER,
  };
  let entityTextColor: number | undefined;
  let entityTextStyle = '';
  let entityBlockHandle = '';
  let level: 'entity' | 'context' | 'leader' | 'line' = 'entity';
  let branch: MLeaderBranch | null = null;
  let line: MLeaderLine | null = null;
  const n = tags.length;
  const num = (k: number): number => Number(tags[k]![1]);
  /** The point whose x is at `k`, with y and z from the codes 10 and 20 above it when they follow. */
  const point = (k: number): number[] => {
    const code = tags[k]![0];
    const p = [num(k), 0, 0];
    if (k + 1 < n && tags[k + 1]![0] === code + 10) p[1] = num(k + 1);
    if (k + 2 < n && tags[k + 2]![0] === code + 20) p[2] = num(k + 2);
    return p;
  };
  for (i++; i < n; i++) {
    const [code, value] = tags[i]!;
    if (level === 'line') {
      if (code === 305) {
        line = null;
        level = 'leader';
      } else if (code === 10) line!.vertices.push(point(i));
      continue;
    }
    if (level === 'leader') {
      if (code === 303) {
        branch = null;
        level = 'context';
      } else if (code === 304) {
        line = { vertices: [] };
        branch!.lines.push(line);
        level = 'line';
      } else if (code === 10) branch!.landing = point(i);
      else if (code === 11) branch!.dogleg = point(i);
      else if (code === 40) branch!.doglegLength = Number(value);
      continue;
    }
    if (level === 'context') {
      switch (code) {
        case 301:
          level = 'entity';
          break;
        case 302:
          branch = { landing: null, dogleg: null, doglegLength: 0, lines: [] };
          out.branches.push(branch);
          level = 'leader';
          break;
        case 140:
          ctx.arrowSize = Number(value);
          break;
        case 145:
          out.landingGap = Number(value);
          break;
        case 41:
          ctx.textHeight = Number(value);
          break;
        case 290:
          ctx.hasText = value.trim() === '1';
          break;
        case 296:
          ctx.hasBlock = value.trim() === '1';
          break;
        case 304:
          ctx.content = value;
          break;
        case 340:
          ctx.textStyle = value;
          break;
        case 12:
          ctx.textLocation = point(i);
          break;
        case 13:
          ctx.textDirection = point(i);
          break;
        case 43:
          ctx.textWidth = Number(value);
          break;
        case 171:
          ctx.attachment = Number(value);
          break;
        case 90:
          ctx.textColor = Number(value) | 0;
          break;
        case 341:
          ctx.blockHandle = value;
          break;
        case 15:
          ctx.blockLocation = point(i);
          break;
        case 16:
          ctx.blockScale = point(i);
          break;
        case 46:
          ctx.blockRotation = Number(value);
          break;
        case 93:
          ctx.blockColor = Number(value) | 0;
          break;
      }
      continue;
    }
    switch (code) {
      case 300:
        level = 'context';
        break;
      case 170:
        out.lineType = Number(value);
        break;
      case 91:
        out.lineColor = Number(value) | 0;
        break;
      case 342:
        out.arrowHandle = value;
        break;
      case 42:
        out.arrowSize = Number(value);
        break;
      case 291:
        out.doglegEnabled = value.trim() !== '0';
        break;
      case 292:
        out.textFrame = value.trim() === '1';
        break;
      case 343:
        entityTextStyle = value;
        break;
      case 92:
        entityTextColor = Number(value) | 0;
        break;
      case 344:
        entityBlockHandle = value;
        break;
    }
  }
  if (ctx.arrowSize > 0) out.arrowSize = ctx.arrowSize;
  if (ctx.hasText && ctx.content !== '') {
    out.text = {
      content: ctx.content,
      location: ctx.textLocation,
      direction: ctx.textDirection,
      height: ctx.textHeight,
      width: ctx.textWidth,
      attachment: ctx.attachment >= 1 && ctx.attachment <= 9 ? ctx.attachment : 1,
      styleHandle: ctx.textStyle || entityTextStyle,
      color: entityTextColor ?? ctx.textColor,
    };
  }
  const blockHandle = ctx.blockHandle || entityBlockHandle;
  if (ctx.hasBlock && blockHandle) {
    out.block = { handle: blockHandle, location: ctx.blockLocation, scale: ctx.blockScale, rotation: ctx.blockRotation, color: ctx.blockColor };
  }
  return out;
}
