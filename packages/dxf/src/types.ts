// The shapes every layer above the tag reader shares. Kept free of behaviour so that the reader,
// the writer, the entity declarations, geometry and the engine can be built against them at once.

/** A DXF group: group code plus its value exactly as read (decoded text, not yet typed). */
export type Tag = [code: number, value: string];

export type Vec2 = [number, number];
export type Vec3 = [number, number, number];

/** DXF versions by their $ACADVER name, oldest first. */
export const DXF_VERSIONS = [
  'AC1003', 'AC1006', 'AC1009', 'AC1012', 'AC1014', 'AC1015', 'AC1018', 'AC1021', 'AC1024', 'AC1027', 'AC1032',
] as const;
export type DxfVersion = (typeof DXF_VERSIONS)[number];

/** Release names people type, mapped to $ACADVER. */
export const RELEASE_NAMES: Record<string, DxfVersion> = {
  R12: 'AC1009', R13: 'AC1012', R14: 'AC1014', R2000: 'AC1015', R2004: 'AC1018', R2007: 'AC1021',
  R2010: 'AC1024', R2013: 'AC1027', R2018: 'AC1032',
};

/** How a declared attribute's value is typed. */
export type AttrKind =
  | 'str' // string, written as is
  | 'int' // integer (70-79, 90-99, 170-179, 270-289, 370-389, 400-409, 1060-1071 ...)
  | 'float' // number
  | 'handle' // hex handle string (5, 105, 320-369, 390-399, 480-481, 1005)
  | 'bool' // 0/1 integer exposed as boolean
  | 'point2' // [x, y] from code, code+10
  | 'point3' // [x, y, z] from code, code+10, code+20; z defaults to 0 when absent
  | 'vec3'; // like point3, but a direction (extrusion, axes): not moved by translations

export type AttrValue = string | number | boolean | Vec2 | Vec3;

/**
 * One attribute of a record, declared once. The reader maps group code -> attribute, the writer
 * writes the attributes of a subclass in declaration order, the engine's JSON uses `name`.
 * Names follow ezdxf's `dxfattribs` names (snake_case), so ezdxf's docs describe them.
 */
export interface AttrDef {
  name: string;
  code: number;
  kind: AttrKind;
  /** Value assumed when the tag is absent; a present tag equal to it is still written back. */
  default?: AttrValue;
  /** Written even when absent from the record (with `default`), as AutoCAD requires. */
  required?: boolean;
  /** Earliest version whose files carry this attribute; the writer omits it for older ones. */
  minVersion?: DxfVersion;
}

/**
 * A subclass (the tags following one `100` marker). Either plain declared attributes, or a codec
 * for subclasses with repeated groups (polyline vertices, spline knots, hatch paths, mtext chunks).
 */
export interface SubclassDef {
  /** `100` marker text, e.g. 'AcDbLine'. */
  marker: string;
  attrs: AttrDef[];
  /**
   * Custom reader/writer for the subclass. `read` receives the subclass's tags (marker excluded),
   * fills `rec.attrs` and returns the tags it did not understand, which are kept verbatim and
   * written back after the codec's own output. `write` emits the subclass's tags (marker excluded).
   */
  codec?: SubclassCodec;
  /** Earliest version that writes this subclass; older versions skip it and its attributes. */
  minVersion?: DxfVersion;
}

export interface SubclassCodec {
  read(tags: Tag[], rec: DxfRecord, ctx: CodecContext): Tag[];
  /**
   * `read` on tags given by index, as the reader holds them: when a codec has it, the reader
   * calls it instead of `read`, sparing a pair and a value string per tag (polyline vertices).
   */
  readFrom?(tags: TagSource, rec: DxfRecord, ctx: CodecContext): Tag[];
  write(rec: DxfRecord, out: TagSink, ctx: CodecContext): void;
  /**
   * Replaces each handle the codec keeps in structured attributes (not those declared with kind
   * `handle`, which are found by their declaration) by what `map` returns for it, so references
   * follow when handles are given anew.
   */
  mapHandles?(rec: DxfRecord, map: (handle: string) => string): void;
}

/** Tags `[0, length)` read by index. */
export interface TagSource {
  readonly length: number;
  code(i: number): number;
  /** The value as read (the `Tag`'s string). */
  str(i: number): string;
  /** The value as a number, as `+value` reads it except that an empty value is NaN. */
  num(i: number): number;
}

export interface CodecContext {
  version: DxfVersion;
}

/** Where writers put tags; values are typed, the sink formats them. */
export interface TagSink {
  tag(code: number, value: string | number): void;
  point(code: number, p: readonly number[]): void;
}

/** The declaration of one record type (entity, table entry or object). */
export interface RecordDef {
  /** DXF type name, e.g. 'LINE', 'LAYER', 'DICTIONARY'. */
  type: string;
  /** Subclasses after the common ones (AcDbEntity for entities, AcDbSymbolTableRecord for table entries). */
  subclasses: SubclassDef[];
  /** Earliest version that knows this type at all; saving older drops it and says so. */
  minVersion?: DxfVersion;
}

/** Extended data of one application: the tags after `1001 <app>`, kept in order. */
export interface XDataGroup {
  app: string;
  tags: Tag[];
}

/** An application-defined group `102 {NAME` ... `102 }`; reactors and the extension dictionary included. */
export interface AppDataGroup {
  name: string; // without the brace, e.g. 'ACAD_REACTORS', 'ACAD_XDICTIONARY'
  tags: Tag[];
}

/**
 * Any record of a drawing: entity, table entry or object. Typed types have `attrs` filled from
 * their declaration; unknown types keep every tag in `extra` and are written back unchanged.
 */
export interface DxfRecord {
  type: string;
  /** Hex handle, upper case; '' when the file had none (R12 without $HANDLING). */
  handle: string;
  /** Owner handle (code 330 of the common part); '' when none. */
  owner: string;
  /** Declared attributes by name; only present ones, defaults come from the declaration. */
  attrs: Record<string, AttrValue | unknown>;
  /**
   * Tags not covered by the declaration, by subclass marker (the key '' is the part before the
   * first marker). Written back right after the declared attributes of that subclass.
   */
  extra?: Record<string, Tag[]>;
  /** Subclass markers in file order, kept so unknown subclasses and their order survive. */
  markers?: string[];
  appData?: AppDataGroup[];
  xdata?: XDataGroup[];
}

/** A graphical entity. INSERT keeps its ATTRIBs, POLYLINE its VERTEXes, both with their SEQEND. */
export interface Entity extends DxfRecord {
  kind: 'entity';
  /** ATTRIB or VERTEX entities following this one, in order. */
  children?: Entity[];
  /** The SEQEND closing `children` (kept for its handle, owner and layer). */
  seqend?: Entity;
}
