// One measurement in a fresh process, so peak memory is that of the measured step alone:
//   read FILE            -> Linework reads the file
//   write FILE OUT       -> Linework reads, then writes ASCII DXF (write time measured)
//   write-binary FILE OUT -> the same, writing binary DXF
//   generate N OUT       -> Linework builds a drawing of N mixed entities and saves it
// Prints one JSON line: { seconds, entities, maxRss } (maxRss in bytes).
// Plain JavaScript on the built package (packages/dxf/dist) under plain node: what ships is what
// is measured, without a TypeScript loader's own memory and start-up in the figures.
import { readDxf, saveDxf, newDocument } from '../../packages/dxf/dist/index.js';

function maxRss() {
  return process.resourceUsage().maxRSS * 1024;
}

function countEntities(doc) {
  let n = 0;
  for (const b of doc.blocks.values()) n += b.entities.length;
  return n;
}

/** A deterministic mix of the common entity types over ten layers. */
function generate(n) {
  const doc = newDocument();
  for (let i = 0; i < 10; i++) doc.addTableEntry('LAYER', `L${i}`, { color: i + 1 });
  const block = doc.addBlock('MARK', [0, 0, 0]);
  doc.addEntity({ kind: 'entity', type: 'CIRCLE', handle: '', owner: '', attrs: { layer: '0', center: [0, 0, 0], radius: 0.5 } }, block.name);
  const side = Math.ceil(Math.sqrt(n));
  for (let i = 0; i < n; i++) {
    const x = (i % side) * 10 + 0.123456789;
    const y = Math.floor(i / side) * 10 + 0.987654321;
    const layer = `L${i % 10}`;
    let e;
    switch (i % 7) {
      case 0:
        e = { kind: 'entity', type: 'LINE', handle: '', owner: '', attrs: { layer, start: [x, y, 0], end: [x + 5.5, y + 3.25, 0] } };
        break;
      case 1:
        e = { kind: 'entity', type: 'CIRCLE', handle: '', owner: '', attrs: { layer, center: [x, y, 0], radius: 2.75 } };
        break;
      case 2:
        e = { kind: 'entity', type: 'ARC', handle: '', owner: '', attrs: { layer, center: [x, y, 0], radius: 3.5, start_angle: 15, end_angle: 195.5 } };
        break;
      case 3:
        e = { kind: 'entity', type: 'TEXT', handle: '', owner: '', attrs: { layer, insert: [x, y, 0], height: 1.25, text: `T${i}` } };
        break;
      case 4:
        e = { kind: 'entity', type: 'LWPOLYLINE', handle: '', owner: '', attrs: { layer, flags: 1, points: [[x, y, 0, 0, 0], [x + 4, y, 0, 0, 0.5], [x + 4, y + 4, 0, 0, 0], [x, y + 4, 0, 0, 0]] } };
        break;
      case 5:
        e = { kind: 'entity', type: 'INSERT', handle: '', owner: '', attrs: { layer, name: 'MARK', insert: [x, y, 0], rotation: 30 } };
        break;
      default:
        e = { kind: 'entity', type: 'POINT', handle: '', owner: '', attrs: { layer, location: [x, y, 0] } };
    }
    doc.addEntity(e);
  }
  return doc;
}

async function main() {
  const [cmd, a, b] = process.argv.slice(2);
  if (cmd === 'read') {
    const t0 = performance.now();
    const doc = await readDxf(a);
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({ seconds, entities: countEntities(doc), maxRss: maxRss() }));
  } else if (cmd === 'write' || cmd === 'write-binary') {
    const doc = await readDxf(a);
    const t0 = performance.now();
    await saveDxf(doc, b, { binary: cmd === 'write-binary' });
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({ seconds, entities: countEntities(doc), maxRss: maxRss() }));
  } else if (cmd === 'generate') {
    const doc = generate(Number(a));
    const t0 = performance.now();
    await saveDxf(doc, b);
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({ seconds, entities: countEntities(doc), maxRss: maxRss() }));
  } else {
    throw new Error(`unknown worker command ${cmd}`);
  }
}

await main();
