// The editor's state: which drawing and layout are shown, the scene on the GPU, the selection, the
// queue of things the user is asked for, and the event stream that keeps all of it live. Every
// change goes through the session's ops; what comes back (answers and events) updates the screen.
import { Api } from './api.js';
import { decodeFrame } from './frame.js';
import { FLAG_SELECTED } from './gl.js';
import { drawOverlay, type OverlayState } from './overlay.js';
import { Cancelled, type Ask, type Point } from './prompts.js';
import { OSNAP_OFF } from './drawing-aids.js';
import { GRIP_LIMIT, gripsOf, type Grip, type Rec } from './grips.js';
import { Scene } from './scene.js';
import { Atlas } from './text.js';
import { DARK_BG, LIGHT_BG, View } from './view.js';

export interface DocInfo {
  document_id: number;
  name: string;
  modified?: boolean;
}

export interface PendingPrompt {
  request_id: string;
  op: 'getpoint' | 'user_select' | string;
  document_id: number | null;
  message?: string;
  count?: number;
  types?: string[];
  base?: number[];
}

export interface Toggles {
  grid: boolean;
  ortho: boolean;
  osnap: boolean;
  /** Polar tracking (F10), object-snap tracking (F11), dynamic input (F12). */
  polar: boolean;
  otrack: boolean;
  dyn: boolean;
  lwt: boolean;
  dark: boolean;
}

/** Pick box half-size in CSS pixels (AutoCAD's PICKBOX / APERTURE). */
export const PICK_PX = 5;

export class App {
  readonly api: Api;
  readonly view: View;
  documents: DocInfo[] = [];
  docId: number | null = null;
  layouts: string[] = ['Model'];
  layout = 'Model';
  /** Document version the scene shows. */
  version = -1;
  /** The shown document's latest version as its change events tell (the palette redraws on it). */
  docVersion = -1;
  /** The drawing on screen and the frame count when it arrived (a later frame shows it). */
  shown: { document_id: number; frame: number } | null = null;
  selection: string[] = [];
  toggles: Toggles = { grid: false, ortho: false, osnap: true, polar: false, otrack: false, dyn: true, lwt: false, dark: true };
  readonly overlay: OverlayState = { cursor: null, pickBox: PICK_PX, crosshair: true, snap: null, window: null, bands: [], grid: null, dark: true, note: null, grips: [], hotGrip: null, track: null };
  /** The drawing's OSMODE (running object snaps, AutoCAD's bits) and POLARANG (degrees). */
  osmode = 767;
  polarAngle = 90;
  /** Reads and writes of the aids asked so far: only the newest may set them (answers come in any order). */
  private aidsAsked = 0;
  /** Object-snap tracking's acquired points (and the entities they lie on, for extension). */
  acquired: { at: Point; kind: string; handle?: string }[] = [];
  /** The point the cursor stands for now (snapped or tracked): direct distance entry aims along it. */
  aim: Point | null = null;
  /** The grips of the selection and the records they come from. */
  grips: Grip[] = [];
  readonly gripRecs = new Map<string, Rec>();
  private gripSerial = 0;
  /** Entities drawn highlighted before a click (under the cursor, or inside the window being dragged). */
  hover: string[] = [];
  /** Times of the latest hover query (ms, request to highlight) and grip preview (ms, to compute). */
  readonly stats = { hoverMs: 0, previewMs: 0 };
  /** A preview of what the point being asked would do (a grip drag), as screen segments. */
  preview: ((to: Point) => [number, number, number, number][]) | null = null;
  /** What the user is being asked for now (a command step or an engine pick). */
  ask: Ask | null = null;
  /** Engine picks waiting, oldest first. */
  readonly prompts: PendingPrompt[] = [];
  /** The pick being asked now (its request_id). */
  activePrompt: string | null = null;
  /** A command of the command line is running. */
  busy = false;
  lastPoint: Point | null = null;
  /** Listeners the panels register. */
  readonly on = { docs: [] as (() => void)[], layers: [] as (() => void)[], selection: [] as (() => void)[], ask: [] as (() => void)[], message: [] as ((m: string, err?: boolean) => void)[], aids: [] as (() => void)[] };
  /** The whole layout, curves at about a third of a pixel when it fits the screen. */
  base: Scene | null = null;
  /** The whole display list has arrived (a large drawing comes in parts, the view's first). */
  complete = false;
  /** The part on screen at a finer tolerance, once zoomed in far enough (AutoCAD's regen). */
  detail: { scene: Scene; region: [number, number, number, number] } | null = null;
  private detailLoading = false;
  private loading: Promise<void> | null = null;
  private reloadAgain = false;
  private updates: Promise<void> = Promise.resolve();
  lastEventSeq = 0;

  private readonly atlas: Atlas;

  constructor(token: string, readonly glCanvas: HTMLCanvasElement, readonly overlayCanvas: HTMLCanvasElement, private readonly fontReady: Promise<void>) {
    this.api = new Api(token);
    // the atlas measures glyphs with the font: made once it has loaded
    this.atlas = new Atlas();
    this.view = new View(glCanvas, this.atlas);
    this.view.afterFrame = () => this.drawOverlay();
    this.view.onSettle = () => this.checkDetail();
    this.view.onMove = () => this.pickScene();
  }

  emit(what: keyof App['on']): void {
    for (const f of this.on[what] as (() => void)[]) f();
  }

  message(text: string, err = false): void {
    for (const f of this.on.message) f(text, err);
  }

  drawOverlay(): void {
    this.overlay.dark = this.toggles.dark;
    this.overlay.grid = this.toggles.grid ? { spacing: gridSpacing(this.view.scale), origin: [0, 0] } : null;
    drawOverlay(this.overlayCanvas, this.overlay, this.view.dpr, (x, y) => this.view.toScreen(x, y));
  }

  /** Redraws the overlay only (cursor moves do not redraw the drawing). */
  overlayOnly(): void {
    this.drawOverlay();
  }

  // ---- documents and scenes --------------------------------------------------------------------

  async start(): Promise<void> {
    await this.refreshDocuments();
    await this.reload(true);
    this.api.events((event, data) => this.onEvent(event, data), (connected) => {
      const el = document.getElementById('conn');
      if (el) el.textContent = connected ? '' : 'reconnecting…';
      if (connected && this.lastEventSeq > 0) void this.refreshDocuments().then(() => this.reload(false));
    });
  }

  async refreshDocuments(): Promise<void> {
    const st = await this.api.get('/state');
    performance.mark('linework:state');
    this.documents = (st.documents ?? []) as DocInfo[];
    const active = st.document_id as number | null;
    if (this.docId === null || !this.documents.some((d) => d.document_id === this.docId)) this.docId = active ?? this.documents[0]?.document_id ?? null;
    // the layout tabs need not hold up the drawing
    void this.refreshLayouts().then(() => this.emit('docs'));
  }

  async refreshLayouts(): Promise<void> {
    if (this.docId === null) {
      this.layouts = ['Model'];
      return;
    }
    const r = await this.api.op('layout_list', { document_id: this.docId }).catch(() => null);
    const list = (r?.result?.layouts ?? []) as ({ name: string } | string)[];
    this.layouts = list.length ? list.map((l) => (typeof l === 'string' ? l : l.name)) : ['Model'];
    if (!this.layouts.some((l) => l.toLowerCase() === this.layout.toLowerCase())) this.layout = 'Model';
  }

  /** Loads the whole display list of the shown layout (again); `fit` frames the extents. */
  reload(fit: boolean): Promise<void> {
    if (this.loading) {
      this.reloadAgain = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.reloadAgain = false;
        await this.loadScene(fit);
        fit = false;
      } while (this.reloadAgain);
    })().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async loadScene(fit: boolean): Promise<void> {
    this.complete = false;
    if (this.docId === null) {
      this.setScenes(null, null);
      this.complete = true;
      return;
    }
    const bg = this.toggles.dark ? DARK_BG : LIGHT_BG;
    const v = this.view;
    // the parts around the view come first: the current view, or (fitting) the drawing's middle
    const hw = v.width / 2 / v.scale, hh = v.height / 2 / v.scale;
    const around = fit || !this.base ? undefined : [v.cx - hw, v.cy - hh, v.cx + hw, v.cy + hh].join(',');
    let scene: Scene | null = null;
    let stale = false;
    let shownAt = 0;
    await this.api.displayStream({ document_id: this.docId, layout: this.layout, background: bg, view: around }, async (buf) => {
      const frame = decodeFrame(buf);
      if (!scene) {
        await this.fontReady;
        performance.mark('linework:display-list');
        scene = new Scene(this.view.gl, this.atlas, frame);
        performance.mark('linework:scene');
        scene.onImage = () => this.view.invalidate();
        scene.setHover(this.hover);
        this.setScenes(scene, null);
        this.view.background = bg;
        this.version = frame.version;
        this.shown = { document_id: frame.document_id, frame: this.view.stats.frames };
        if (fit) this.view.fit(frame.extents ?? frame.bounds);
        // the drawing first; the selection's highlight and the panels follow
        this.view.invalidate();
        shownAt = performance.now();
        this.emit('layers');
        void this.loadAids();
        return;
      }
      // a later part: drawn with the next frame, at most about three times a second (each frame
      // of a large drawing takes the time the parts would need to arrive)
      if (this.base !== scene) return;
      scene.extend(frame);
      if (frame.version !== this.version) stale = true;
      if (performance.now() - shownAt > 300 || frame.part === (frame.parts ?? 0) - 1) {
        this.view.invalidate();
        shownAt = performance.now();
      }
    });
    if (this.base === scene) this.view.invalidate();
    // the drawing changed while its parts came: the parts disagree, so all again
    if (stale) this.reloadAgain = true;
    this.complete = true;
    performance.mark('linework:complete');
    await this.refreshSelection();
    this.checkDetail();
  }

  private setScenes(base: Scene | null, detail: App['detail']): void {
    if (this.base && this.base !== base) this.base.dispose();
    if (this.detail && this.detail.scene !== detail?.scene) this.detail.scene.dispose();
    this.base = base;
    this.detail = detail;
    this.pickScene();
  }

  /** The scene to draw: the detail while the view lies in its region, else the whole layout. */
  pickScene(): void {
    const d = this.detail;
    const v = this.view;
    const hw = v.width / 2 / v.scale, hh = v.height / 2 / v.scale;
    const inside = d && v.cx - hw >= d.region[0] && v.cx + hw <= d.region[2] && v.cy - hh >= d.region[1] && v.cy + hh <= d.region[3];
    const want = inside ? d.scene : this.base;
    if (v.scene !== want) {
      v.scene = want;
      v.invalidate();
    }
  }

  /**
   * After the view settles: when curves of the whole-layout scene would show their chords (over a
   * pixel), loads the part on screen (and as much again around it) at half a pixel.
   */
  checkDetail(): void {
    this.pickScene();
    const base = this.base;
    const v = this.view;
    if (!base || this.detailLoading || this.docId === null || this.layout.toLowerCase() !== 'model') return;
    if (base.tolerance * v.scale <= 1) return;
    const d = this.detail;
    if (d && v.scene === d.scene && d.scene.tolerance * v.scale <= 1) return;
    const hw = v.width / v.scale, hh = v.height / v.scale;
    const region: [number, number, number, number] = [v.cx - hw, v.cy - hh, v.cx + hw, v.cy + hh];
    const docId = this.docId;
    this.detailLoading = true;
    void this.api.displayList({
      document_id: docId, layout: this.layout, background: base.background, tolerance: 0.5 / v.scale,
      origin: base.origin.join(','), bounds: region.join(','),
    }).then((buf) => {
      if (this.base !== base || this.docId !== docId) return;
      const scene = new Scene(this.view.gl, this.atlas, decodeFrame(buf));
      scene.onImage = () => this.view.invalidate();
      scene.setFlag(FLAG_SELECTED, this.pickSet() ?? this.selection);
      scene.setHover(this.hover);
      this.setScenes(base, { scene, region });
    }).catch(() => undefined).finally(() => {
      this.detailLoading = false;
    });
  }

  /** Applies a change event: the changed entities only, or everything when the change asks for it. */
  private applyChange(e: Record<string, any>): void {
    this.updates = this.updates.then(async () => {
      // a drawing still arriving in parts takes the change after its last part
      if (this.loading) await this.loading;
      if (!this.base) return;
      const hs = e.handles as { added: string[]; updated: string[]; removed: string[] } | undefined;
      if (e.redraw === 'all' || !hs) {
        await this.reload(false);
        return;
      }
      const want = [...hs.added, ...hs.updated];
      const scenes = [this.base, this.detail?.scene].filter((x): x is Scene => !!x);
      await Promise.all(scenes.map(async (scene) => {
        for (const h of [...hs.removed, ...hs.updated]) scene.remove(h);
        if (!want.length) return;
        const buf = await this.api.displayList({
          document_id: this.docId!, layout: this.layout, background: scene.background, handles: want.join(','),
          tolerance: scene.tolerance, origin: scene.origin.join(','),
        });
        if (this.base !== scenes[0]) return;
        for (const h of want) scene.remove(h);
        scene.add(decodeFrame(buf));
        scene.setFlag(FLAG_SELECTED, this.selection);
      }));
      this.version = e.version ?? this.version;
      this.view.invalidate();
    }).catch((err: unknown) => this.message(String((err as Error)?.message ?? err), true));
  }

  async showDocument(id: number): Promise<void> {
    if (this.docId === id) return;
    this.cancelAsk();
    this.docId = id;
    this.layout = 'Model';
    this.emit('docs');
    // the drawing first; its layout tabs follow
    void this.refreshLayouts().then(() => this.emit('docs'));
    await this.reload(true);
  }

  async showLayout(name: string): Promise<void> {
    if (this.layout === name) return;
    this.layout = name;
    this.emit('docs');
    await this.reload(true);
  }

  async refreshSelection(): Promise<void> {
    if (this.docId === null) return;
    const r = await this.api.op('get_selection', { document_id: this.docId }).catch(() => null);
    this.selection = ((r?.result?.entities ?? []) as { handle: string }[]).map((e) => e.handle);
    this.flagSelection();
    this.view.invalidate();
    this.emit('selection');
    void this.loadGrips();
  }

  /** The grips of the selection, from each selected entity's record (at most GRIP_LIMIT entities). */
  async loadGrips(): Promise<void> {
    const serial = ++this.gripSerial;
    const docId = this.docId;
    const hs = this.selection.slice(0, GRIP_LIMIT);
    const recs = await Promise.all(hs.map((h) => this.api.op('entity_get', { document_id: docId, handle: h, detail: 'full' }).then((r) => (r.result?.entities?.[0] ?? null) as Rec | null, () => null)));
    if (serial !== this.gripSerial || docId !== this.docId) return;
    this.gripRecs.clear();
    this.grips = [];
    for (const rec of recs) {
      if (!rec) continue;
      this.gripRecs.set(rec.handle, rec);
      this.grips.push(...gripsOf(rec));
    }
    this.overlay.grips = this.grips.map((g) => g.at);
    this.overlayOnly();
  }

  /** The drawing's OSMODE and POLARANG (its running snaps and polar increment). */
  async loadAids(): Promise<void> {
    const id = this.docId;
    const asked = ++this.aidsAsked;
    const r = await this.api.op('sysvars', { document_id: id, get: ['OSMODE', 'POLARANG'] }).catch(() => null);
    // a read asked before F3 answers with the old OSMODE: it would turn the button back on
    if (!r || id !== this.docId || asked !== this.aidsAsked) return;
    const v = (r.result?.values ?? {}) as Record<string, unknown>;
    if (typeof v.OSMODE === 'number') this.osmode = v.OSMODE;
    if (typeof v.POLARANG === 'number') this.polarAngle = v.POLARANG;
    this.toggles.osnap = !(this.osmode & OSNAP_OFF);
    this.emit('aids');
  }

  /** Writes OSMODE into the drawing (the object snap settings, F3). */
  async setOsmode(value: number): Promise<void> {
    const asked = ++this.aidsAsked;
    this.osmode = value;
    this.toggles.osnap = !(value & OSNAP_OFF);
    this.emit('aids');
    if (this.docId === null) return;
    const r = await this.api.op('sysvars', { document_id: this.docId, set: { OSMODE: value } });
    const v = (r.result?.values ?? {}) as Record<string, unknown>;
    if (typeof v.OSMODE === 'number' && asked === this.aidsAsked) this.osmode = v.OSMODE;
  }

  /** Highlights entities before they are picked (hover, window preview); redraws only theirs. */
  setHover(hs: string[]): void {
    if (hs.length === this.hover.length && hs.every((h, i) => h === this.hover[i])) return;
    this.hover = hs;
    // drawn over the cached picture (a few entities): the drawing is not rendered again
    this.base?.setHover(hs);
    this.detail?.scene.setHover(hs);
    this.view.invalidateHover();
  }

  /** The entities picked so far by a running "select objects" step. */
  pickSet(): string[] | null {
    return this.ask?.kind === 'select' ? this.ask.picked : null;
  }

  showPicked(): void {
    this.flagSelection();
  }

  private flagSelection(): void {
    const hs = this.pickSet() ?? this.selection;
    this.base?.setFlag(FLAG_SELECTED, hs);
    this.detail?.scene.setFlag(FLAG_SELECTED, hs);
    this.view.invalidate();
  }

  async setBackground(dark: boolean): Promise<void> {
    this.toggles.dark = dark;
    await this.reload(false);
  }

  // ---- events ----------------------------------------------------------------------------------

  private onEvent(event: string, data: any): void {
    if (event === 'hello') {
      this.prompts.length = 0;
      for (const p of data.prompts ?? []) this.prompts.push(p);
      this.lastEventSeq = data.seq ?? 0;
      this.nextPrompt();
      return;
    }
    if (event === 'prompt') {
      this.prompts.push(data as PendingPrompt);
      this.nextPrompt();
      return;
    }
    if (event === 'dismiss') {
      const i = this.prompts.findIndex((p) => p.request_id === data.request_id);
      if (i >= 0) this.prompts.splice(i, 1);
      if (this.activePrompt === data.request_id) {
        this.activePrompt = null;
        this.cancelAsk(false);
      }
      this.emit('ask');
      return;
    }
    if (event !== 'engine') return;
    this.lastEventSeq = data.seq;
    const mine = data.document_id === this.docId;
    switch (data.kind) {
      case 'changed':
      case 'undone':
      case 'redone': {
        // the tab's modified marker, without asking the session for its state on every change
        const d = this.documents.find((x) => x.document_id === data.document_id);
        if (d && !d.modified) {
          d.modified = true;
          this.emit('docs');
        }
        if (mine) {
          if (typeof data.version === 'number') this.docVersion = data.version;
          this.applyChange(data);
          // OSMODE / POLARANG set by a client, or an undo taking back F3
          if (data.op === 'sysvars' || data.kind !== 'changed') void this.loadAids();
        }
        if (data.redraw === 'all' && mine) this.emit('layers');
        if (mine && data.op !== 'display_list') void this.refreshSelection();
        break;
      }
      case 'document_opened':
      case 'document_created':
      case 'document_closed':
      case 'document_saved':
        void this.refreshDocuments().then(() => {
          if (this.base === null || !this.documents.some((d) => d.document_id === this.docId)) return this.reload(true);
          return undefined;
        });
        break;
      case 'document_activated':
        // the drawing at once; the tabs as soon as the session's list arrives
        if (data.document_id !== null) void this.showDocument(data.document_id).catch(() => undefined);
        void this.refreshDocuments();
        break;
      case 'selection_changed':
        if (mine) void this.refreshSelection();
        break;
      case 'view_changed':
        if (mine && data.view) {
          const v = data.view as { center: [number, number]; width: number; height: number };
          this.view.fit([v.center[0] - v.width / 2, v.center[1] - v.height / 2, v.center[0] + v.width / 2, v.center[1] + v.height / 2], 0);
        }
        break;
      default:
        break;
    }
  }

  // ---- asking the user --------------------------------------------------------------------------

  /** Asks for something; resolves with the answer or rejects with Cancelled. */
  request<T>(make: (resolve: (v: T) => void, reject: (e: Error) => void) => Ask): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.ask = make(
        (v) => {
          this.ask = null;
          this.overlay.snap = null;
          this.overlay.track = null;
          this.acquired = [];
          this.overlay.bands = [];
          this.emit('ask');
          resolve(v);
        },
        (e) => {
          this.ask = null;
          this.overlay.snap = null;
          this.overlay.track = null;
          this.acquired = [];
          this.overlay.bands = [];
          this.emit('ask');
          reject(e);
        },
      );
      this.emit('ask');
      this.showPicked();
    });
  }

  point(message: string, base?: Point, optional = false, keywords?: readonly string[]): Promise<Point | null> {
    return this.request<Point | null>((resolve, reject) => ({ kind: 'point', message, base, optional, ...(keywords ? { keywords } : {}), resolve, reject }));
  }

  select(message: string, count?: number, types?: string[]): Promise<string[]> {
    return this.request<string[]>((resolve, reject) => ({ kind: 'select', message, count, types, picked: [], resolve, reject }));
  }

  /**
   * Adds what a click or window found to a "select objects" step, with user_select's rules: a type
   * outside `types` and an entity already picked are refused at the cursor (the prompt stays);
   * `count` ends the step when reached.
   */
  addPicked(a: Extract<Ask, { kind: 'select' }>, handles: string[], types: string[], remove: boolean): void {
    if (remove) {
      a.picked = a.picked.filter((h) => !handles.includes(h));
      this.showPicked();
      this.emit('ask');
      return;
    }
    const allowed = a.types?.map((t) => t.toLowerCase());
    const refused: string[] = [];
    for (let i = 0; i < handles.length; i++) {
      const h = handles[i]!, t = types[i] ?? '?';
      if (allowed && !allowed.includes(t.toLowerCase())) {
        refused.push(`${h} is a ${t}; pick ${a.types!.join(' or ')}`);
        continue;
      }
      if (a.picked.includes(h)) {
        // a window may sweep over what was picked already: only a single click is told
        if (handles.length === 1) refused.push(`${h} is already picked`);
        continue;
      }
      if (a.count !== undefined && a.picked.length >= a.count) break;
      a.picked.push(h);
    }
    if (refused.length) this.note(refused.length === 1 ? refused[0]! : `${refused.length} refused: ${refused[0]} …`, true);
    this.showPicked();
    this.emit('ask');
    if (a.count !== undefined && a.picked.length >= a.count) a.resolve(a.picked);
  }

  /** Enter on a "select objects" step: ends it, unless `count` asks for more. */
  endSelect(a: Extract<Ask, { kind: 'select' }>): void {
    // a click just made is still being looked up: Enter counts it
    if (a.inflight) {
      const wait = a.inflight;
      void wait.finally(() => {
        if (a.inflight === wait) a.inflight = undefined;
        if (this.ask === a) this.endSelect(a);
      });
      return;
    }
    if (a.count !== undefined && a.picked.length < a.count) {
      this.note(`Pick ${a.count} object${a.count === 1 ? '' : 's'}: ${a.picked.length} picked so far`, true);
      return;
    }
    a.resolve(a.picked);
  }

  /** A short note at the cursor (a refused pick, a missing answer), also kept in the history. */
  note(text: string, err = false): void {
    this.message(text, err);
    this.overlay.note = { text, err, until: performance.now() + 2500 };
    this.overlayOnly();
    setTimeout(() => this.overlayOnly(), 2600);
  }

  value(message: string, base?: Point, text = false): Promise<string> {
    return this.request<string>((resolve, reject) => ({ kind: 'value', message, base, ...(text ? { text } : {}), resolve, reject }));
  }

  /** Ends what is being asked (Esc); an engine pick is cancelled on the server too. */
  cancelAsk(tellServer = true): void {
    const a = this.ask;
    if (tellServer && this.activePrompt) {
      const id = this.activePrompt;
      this.activePrompt = null;
      void this.api.op('cancel', { id }).catch(() => undefined);
    }
    if (a) a.reject(new Cancelled());
    this.showPicked();
  }

  /** Asks the user for the oldest engine pick when nothing else is being asked. */
  nextPrompt(): void {
    this.emit('ask');
    if (this.busy || this.ask || this.activePrompt) return;
    const p = this.prompts[0];
    if (!p) return;
    if (p.document_id !== null && p.document_id !== this.docId) {
      void this.showDocument(p.document_id).then(() => this.nextPrompt());
      return;
    }
    this.activePrompt = p.request_id;
    const done = (): void => {
      const i = this.prompts.findIndex((x) => x.request_id === p.request_id);
      if (i >= 0) this.prompts.splice(i, 1);
      if (this.activePrompt === p.request_id) this.activePrompt = null;
      this.showPicked();
      this.nextPrompt();
    };
    const run = async (): Promise<void> => {
      if (p.op === 'getpoint') {
        const base = Array.isArray(p.base) ? ([p.base[0]!, p.base[1]!] as Point) : undefined;
        const pt = await this.point(p.message ?? 'Specify a point:', base);
        if (pt) await this.api.op('answer', { id: p.request_id, point: [pt[0], pt[1], 0] });
      } else {
        const hs = await this.select(p.message ?? 'Select objects:', p.count, Array.isArray(p.types) ? p.types : undefined);
        await this.api.op('answer', { id: p.request_id, handles: hs });
      }
    };
    run().then(done, (err: unknown) => {
      if (!(err instanceof Cancelled)) this.message(String((err as Error)?.message ?? err), true);
      done();
    });
  }
}

function gridSpacing(scale: number): number {
  // the power of ten that leaves at least 16 px between grid points
  return Math.pow(10, Math.ceil(Math.log10(16 / scale)));
}
