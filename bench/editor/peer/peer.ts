// The peer of the editor benchmark: the npm package dxf-viewer (three.js, batched geometry and
// instancing) loading the same file in the same browser, with the same hooks the bench calls on
// Linework's page: ready, load time, one synchronised frame after a pan or zoom step.
import { DxfViewer } from 'dxf-viewer';
import * as three from 'three';
import DxfWorker from './worker.ts?worker';
import fontUrl from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf?url';

const params = new URLSearchParams(location.search);
const viewer = new DxfViewer(document.getElementById('view')!, {
  clearColor: new three.Color('#212830'), autoResize: true, antialias: false, colorCorrection: true, preserveDrawingBuffer: true,
});
const hooks: Record<string, unknown> = { ready: false, error: null };
(window as unknown as { peer: unknown }).peer = hooks;
/** Opens a file in the loaded viewer: resolves with the ms until its first frame is drawn. */
hooks.load = async (url: string): Promise<number> => {
  const t0 = performance.now();
  await viewer.Load({ url, fonts: [fontUrl], workerFactory: () => new DxfWorker() });
  const gl = viewer.GetRenderer()!.getContext();
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  return performance.now() - t0;
};
(params.get('dxf') ? (hooks.load as (u: string) => Promise<number>)(params.get('dxf')!) : Promise.resolve(0)).then((ms) => {
  hooks.loadMs = ms;
  /** Moves the view by (dx, dy) pixels and zooms by f, renders one frame and waits for the GPU. */
  hooks.frameSync = (dx: number, dy: number, f: number) => {
    const gl = viewer.GetRenderer()!.getContext();
    const cam = viewer.GetCamera() as three.OrthographicCamera;
    const t = performance.now();
    const w = (cam.right - cam.left) / cam.zoom;
    const px = w / viewer.GetCanvas().clientWidth;
    cam.position.x -= dx * px;
    cam.position.y += dy * px;
    cam.zoom *= f;
    cam.updateProjectionMatrix();
    viewer.Render();
    // readPixels waits for the frame (Chromium's finish() does not)
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    return performance.now() - t;
  };
  hooks.ready = true;
}, (err: unknown) => {
  hooks.error = String((err as Error)?.message ?? err);
});
