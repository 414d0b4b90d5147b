// How numbers become DXF text: floats in shortest round-trip form with a decimal point kept
// ("1.0", as ezdxf writes them and AutoCAD reads them), integers without one.
import { isFloatCode } from './group-codes.js';

export function formatFloat(n: number): string {
  if (!Number.isFinite(n)) return '0.0';
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return n === 0 ? '0.0' : n + '.0';
  return String(n);
}

export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return '0';
  return String(Number.isInteger(n) ? n : Math.round(n));
}

/** Formats a number by its group code's type. */
export function formatNumber(code: number, n: number): string {
  return isFloatCode(code) ? formatFloat(n) : formatInt(n);
}
