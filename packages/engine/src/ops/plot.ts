// Output of the drawing: plot (PDF / SVG / PNG files), wblock (a selection or block as a new DXF
// drawing), embed_image (IMAGE + IMAGEDEF + reactor, one undo step) and preview (a PNG or SVG of
// the active drawing in the answer, which the MCP server turns into image content). The work is
// done in src/plot and src/render; these entries map fields, paths and errors.
import { dirname } from 'node:path';
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { DocStore } from '../store/document-store.js';
import { point } from '../entities/create.js';
import { embedImage as embed } from '../plot/images.js';
import { linkedImages } from '../plot/linked-images.js';
import { parseMargins, parsePlotScale, plot as plotLayouts } from '../plot/plot.js';
import { monochromeStyle } from '../plot/plot-style.js';
import { wblock as writeBlock } from '../plot/wblock.js';
import { findLayout } from '../render/layouts.js';
import { renderPreview } from '../render/preview.js';
import { defineOp, type OpContext } from './types.js';

/** Folder that relative IMAGEDEF file names are resolved against: the drawing's own folder. */
function baseDirOf(store: DocStore): string | undefined {
  return store.path ? dirname(store.path) : undefined;
}

/** The images the drawing links, as far as they lie inside the workspace. */
function imagesOf(ctx: OpContext): Promise<Map<string, string | null>> {
  return linkedImages(ctx.store!.doc, ctx.engine.workspace, baseDirOf(ctx.store!));
}

const FILE_ERRORS = ['path_outside_root', 'not_a_file', 'invalid_path', 'io_timeout'];

function layoutOrThrow(store: DocStore, name: string | undefined): string {
  const l = findLayout(store.doc, name);
  if (!l) {
    throw new OpError('unknown_layout', `no layout named ${JSON.stringify(name)} (layouts: ${store.doc.layouts().map((x) => x.name).join(', ')})`, { layout: name });
  }
  return l.name;
}

export const plot = defineOp({
  name: 'plot',
  summary: 'Plots layouts to PDF, SVG or PNG with their page setups: {layout?, path, format?, pages?, fit?}; result holds files, pages and warnings (pages that came out empty).',
  input: z.object({
    layout: z.string().optional().describe('layout to plot (default model space)'),
    path: z.string().min(1).describe('output file inside the workspace (relative paths start at its root; missing folders are created); {page} is replaced by the layout name for one file per page'),
    format: z.enum(['pdf', 'svg', 'png']).optional().describe('default: from the extension of path'),
    pages: z.union([z.literal('all'), z.array(z.string()).min(1)]).optional().describe('"all" layouts or a list of layout names (PDF: one page each in one file unless path holds {page})'),
    paper: z.string().optional().describe('paper instead of the page setups (A0-A5, ANSI A-E, Letter, Tabloid, WxH mm); fits the drawing'),
    dpi: z.number().positive().max(2400).optional().describe('PNG: pixels per inch of paper (default 96)'),
    width: z.number().int().positive().max(20000).optional().describe('PNG: width in pixels'),
    height: z.number().int().positive().max(20000).optional().describe('PNG: height in pixels'),
    fit: z.boolean().optional().describe('plot each layout\'s extents fitted to its paper instead of the page setup\'s plot area and scale'),
    scale: z.union([z.string(), z.number().positive()]).optional().describe('"1:100" (1 mm of paper for 100 units), "A:B" or paper mm per unit: the plot area at that scale, centred'),
    margins: z.union([z.number().min(0), z.array(z.number().min(0)).length(4)]).optional().describe('unprintable margins in mm: one value or [left, bottom, right, top]'),
    monochrome: z.boolean().optional().describe('every colour plots black (AutoCAD\'s monochrome.ctb)'),
  }),
  mutates: false,
  effect: 'write_files',
  permissions: ['plots:create'],
  needsDocument: true,
  output: z.object({ format: z.string(), count: z.number().int(), files: z.array(z.string()), pages: z.array(z.looseObject({ layout: z.string(), file: z.string(), paper: z.string(), width: z.number(), height: z.number() })), skipped: z.record(z.string(), z.unknown()), warnings: z.array(z.unknown()) }),
  mcpGroup: 'plot',
  example: { path: 'out/site.pdf', layout: 'Model', paper: 'A3', fit: true },
  http: [{ method: 'POST', path: '/plot', status: 200, wrapper: true }],
  errors: ['unknown_layout', 'io_error', ...FILE_ERRORS, 'budget_exceeded'],
  handler: async (ctx, input) => {
    const store = ctx.store!;
    const { scale, margins, monochrome, ...rest } = input;
    const parsedScale = scale !== undefined ? parsePlotScale(scale) : undefined;
    const res = await plotLayouts(store.doc, {
      ...rest,
      ...(parsedScale === 'fit' ? { fit: true } : parsedScale !== undefined ? { scale: parsedScale } : {}),
      ...(margins !== undefined ? { margins: parseMargins(margins) } : {}),
      ...(monochrome ? { plotStyle: monochromeStyle() } : {}),
      baseDir: baseDirOf(store),
      images: await imagesOf(ctx),
      resolveOutput: (file) => ctx.engine.workspace.forWrite(file, 'plot file', { createFolders: true }),
    });
    return { format: res.format, count: res.files.length, files: res.files, pages: res.pages, skipped: res.skipped, warnings: res.warnings };
  },
});

export const wblock = defineOp({
  name: 'wblock',
  summary: 'Writes entities (handles), a block\'s content (block) or all of model space to a new DXF drawing with the layers, linetypes, styles, blocks and APPIDs they need: {path, handles?, block?, base?}; result holds path and count.',
  input: z.object({
    path: z.string().min(1).describe('DXF file to write inside the workspace (relative paths start at its root; missing folders are created)'),
    handles: z.array(z.string()).min(1).optional().describe('entities to write (any space); wins over block'),
    block: z.string().min(1).optional().describe('a block definition whose content becomes the drawing'),
    base: point.optional().describe('base point of the new drawing ($INSBASE); default the block\'s base point or the origin'),
  }),
  mutates: false,
  effect: 'write_files',
  permissions: ['plots:create'],
  needsDocument: true,
  output: z.object({ path: z.string(), count: z.number().int() }),
  mcpGroup: 'plot',
  example: { path: 'parts/door.dxf', handles: ['2F', '30'] },
  http: [{ method: 'POST', path: '/wblock', status: 200, wrapper: true }],
  errors: ['entity_absent', 'unknown_block', 'io_error', ...FILE_ERRORS],
  handler: async (ctx, input) => {
    const base = input.base as [number, number] | [number, number, number] | undefined;
    const path = await ctx.engine.workspace.forWrite(input.path, 'drawing', { createFolders: true });
    return writeBlock(ctx.store!.doc, { path, handles: input.handles, block: input.block, base });
  },
});

export const embedImage = defineOp({
  name: 'embed_image',
  summary: 'Places a PNG or JPEG as an IMAGE with its IMAGEDEF and reactor (size from the file): {path, insert:[x,y], width?, height?, rotation?}; result holds handle; one undo step.',
  input: z.object({
    path: z.string().min(1).describe('PNG or JPEG file inside the workspace (relative paths start at its root; the drawing links it by absolute path)'),
    insert: point.describe('lower-left corner'),
    width: z.number().positive().optional().describe('drawing units; with only one of width / height the other keeps the pixel aspect; neither: one unit per pixel'),
    height: z.number().positive().optional(),
    rotation: z.number().optional().describe('degrees counter-clockwise'),
    layer: z.string().min(1).optional().describe('default the current layer'),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ handle: z.string(), image_def: z.string(), pixels: z.array(z.number()), size: z.array(z.number()), path: z.string() }),
  mcpGroup: 'plot',
  example: { path: 'logo.png', insert: [0, 0], width: 20 },
  http: [{ method: 'POST', path: '/images', status: 201, wrapper: true }],
  errors: ['file_not_found', 'invalid_image', 'unknown_layer', ...FILE_ERRORS],
  handler: async (ctx, input) => {
    const ins = input.insert as [number, number] | [number, number, number];
    const path = await ctx.engine.workspace.forRead(input.path, 'image');
    // the transaction is the sink: every record it adds or touches is part of this undo step
    const r = embed(ctx.tx!, { path, insert: ins, width: input.width, height: input.height, rotation: input.rotation, layer: input.layer });
    return { handle: r.handle, image_def: r.image_def, pixels: r.pixels, size: r.size, path };
  },
});

export const preview = defineOp({
  name: 'preview',
  summary: 'A rendered image of the active drawing (model space or a layout, fitted to its extents): {layout?, width?, height?, format?, area?}; result holds data (base64), mime_type, width and height.',
  input: z.object({
    layout: z.string().optional().describe('(the layout to render; default model space)'),
    width: z.number().int().min(16).max(4096).optional().describe('pixels (default 1024)'),
    height: z.number().int().min(16).max(4096).optional().describe('pixels (default 768)'),
    format: z.enum(['png', 'svg']).optional().describe('default png'),
    area: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional().describe('[x1, y1, x2, y2] (to show instead of the extents)'),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ layout: z.string(), format: z.enum(['png', 'svg']), mime_type: z.string(), width: z.number().int(), height: z.number().int(), bytes: z.number().int(), data: z.string().describe('the image, base64') }),
  mcpGroup: 'query',
  example: { width: 800, height: 600, format: 'png' },
  http: [],
  errors: ['unknown_layout', 'budget_exceeded'],
  handler: async (ctx, input) => {
    const store = ctx.store!;
    const layout = layoutOrThrow(store, input.layout);
    const width = input.width ?? 1024;
    const height = input.height ?? 768;
    const format = input.format ?? 'png';
    const a = input.area;
    const area = a ? { minX: Math.min(a[0], a[2]), minY: Math.min(a[1], a[3]), maxX: Math.max(a[0], a[2]), maxY: Math.max(a[1], a[3]) } : undefined;
    const bytes = renderPreview(store.doc, { layout, width, height, format, area, baseDir: baseDirOf(store), images: await imagesOf(ctx) });
    return {
      layout, format, mime_type: format === 'png' ? 'image/png' : 'image/svg+xml', width, height, bytes: bytes.length,
      data: bytes.toString('base64'),
    };
  },
});

export const PLOT_OPS = [plot, wblock, embedImage, preview];
