/**
 * Text the service stores must come back exactly as it was sent. Two kinds of string cannot:
 * PostgreSQL refuses U+0000 in text (SQLite would keep it, so the stores would disagree), and an
 * unpaired surrogate (half of a UTF-16 pair, which JSON lets through as `\ud800`) has no UTF-8 form,
 * so both drivers write U+FFFD in its place. Both are refused where they enter: a body field with
 * 400, a token claim with 401.
 */

// With the u flag a well-formed pair is one astral code point, so \p{Cs} matches only a lone half.
const LONE_SURROGATE = /\p{Cs}/u;

export const UNSTORABLE_TEXT = 'Must not contain U+0000 (NUL) or an unpaired surrogate';

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}
