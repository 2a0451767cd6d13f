import { utf8Width } from "./chars.js";

/** Where a scanned run ends, the UTF-8 bytes it spans, and its text as the validator sees it. */
export interface StringRun {
  end: number;
  bytes: number;
  text: string;
  /** High surrogates ending `text` (no commit point after them: their pairs are not complete yet). */
  openSurrogates: number;
}

export const createStringRun = (): StringRun => ({ end: 0, bytes: 0, text: "", openSurrogates: 0 });

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const hexValue = (c: number) => (c <= 57 ? c - 48 : c >= 97 ? c - 87 : c - 55);
const isSimpleEscape = (c: number) =>
  c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116;

/**
 * Scans the inside of a JSON string from `from` (not inside an escape) as far as the
 * character-by-character path would only append: ordinary characters and complete, valid
 * escapes. Stops before a closing quote, a control character (it gets escaped), an escape the
 * chunk cuts off or that is invalid, and before the UTF-8 byte count would pass `budget`.
 *
 * `encoded`: `s` is the content of an outer JSON string whose decoded text is the inside of a
 * JSON string (arguments written as a string): outer escapes are decoded too (the text between
 * them is sliced, not copied per character), and the run ends at the outer string's quote. The run
 * always ends where both levels are outside an escape.
 */
export function scanStringRun(
  s: string,
  from: number,
  budget: number,
  encoded: boolean,
  run: StringRun,
): void {
  if (!encoded) {
    scanRawRun(s, from, budget, run);
    return;
  }
  let j = from;
  let bytes = 0;
  let inner = 0; // 0 none, 1 after backslash, 2..5 reading \uXXXX digits (decoded level)
  /** Decoded text before `piece` (only once an outer escape was decoded), and where `piece` starts. */
  let decoded = "";
  let piece = from;
  let safeEnd = from;
  let safeBytes = 0;
  let safeDecoded = "";
  let safePiece = from;
  let highs = 0;
  let safeHighs = 0;
  while (j < s.length) {
    let c = s.charCodeAt(j);
    let width = 1;
    let step = 1;
    if (!encoded) {
      if (c >= 0x80) width = utf8Width(c);
    } else if (c === 92) {
      if (j + 1 >= s.length) break;
      const e = s.charCodeAt(j + 1);
      if (e === 117) {
        if (j + 5 >= s.length) break;
        let v = 0;
        let k = j + 2;
        for (; k < j + 6; k += 1) {
          const h = s.charCodeAt(k);
          if (!isHex(h)) break;
          v = v * 16 + hexValue(h);
        }
        if (k < j + 6) break;
        c = v;
        width = 6;
      } else {
        if (!isSimpleEscape(e)) break;
        c = e === 98 ? 8 : e === 102 ? 12 : e === 110 ? 10 : e === 114 ? 13 : e === 116 ? 9 : e;
        width = 2;
      }
      step = width;
      decoded += s.slice(piece, j) + String.fromCharCode(c);
      piece = j + step;
    } else if (c === 34 || c < 0x20) break;
    else if (c >= 0x80) width = utf8Width(c);
    if (bytes + width > budget) break;
    if (inner === 0) {
      if (c === 34 || c < 0x20) break;
      if (c === 92) inner = 1;
      highs = c >= 0xd800 && c <= 0xdbff ? highs + 1 : 0;
    } else if (inner === 1) {
      if (c === 117) inner = 2;
      else if (isSimpleEscape(c)) inner = 0;
      else break;
    } else if (isHex(c)) inner = inner === 5 ? 0 : inner + 1;
    else break;
    j += step;
    bytes += width;
    if (inner === 0) {
      safeEnd = j;
      safeBytes = bytes;
      safeDecoded = decoded;
      safePiece = piece;
      safeHighs = highs;
    }
  }
  run.end = safeEnd;
  run.bytes = safeBytes;
  run.text = safeDecoded + s.slice(safePiece, safeEnd);
  run.openSurrogates = safeHighs;
}

/** `scanStringRun` for string content written directly (one level of escapes, kept as written). */
function scanRawRun(s: string, from: number, budget: number, run: StringRun): void {
  let j = from;
  let bytes = 0;
  let highs = 0;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 92) {
      // A complete, valid escape is taken whole; anything else ends the run before the backslash.
      if (j + 1 >= s.length) break;
      const e = s.charCodeAt(j + 1);
      let width = 2;
      if (e === 117) {
        if (j + 5 >= s.length) break;
        let k = j + 2;
        while (k < j + 6 && isHex(s.charCodeAt(k))) k += 1;
        if (k < j + 6) break;
        width = 6;
      } else if (!isSimpleEscape(e)) break;
      if (bytes + width > budget) break;
      bytes += width;
      j += width;
      highs = 0;
      continue;
    }
    if (c === 34 || c < 0x20) break;
    const width = c < 0x80 ? 1 : utf8Width(c);
    if (bytes + width > budget) break;
    bytes += width;
    j += 1;
    highs = c >= 0xd800 && c <= 0xdbff ? highs + 1 : 0;
  }
  run.end = j;
  run.bytes = bytes;
  run.text = s.slice(from, j);
  run.openSurrogates = highs;
}
