import { readFileSync } from "node:fs";
import { expect } from "vitest";

/** The code between `// --- <marker>: begin ---` and `: end ---` in a test file appears verbatim in docs/core.md. */
export function expectInCoreDocs(testFile: string, marker: string): void {
  const doc = readFileSync(new URL("../../../../docs/core.md", import.meta.url), "utf8");
  const source = readFileSync(new URL(testFile), "utf8");
  const snippet = source.split(`// --- ${marker}: begin ---\n`)[1]?.split(`// --- ${marker}: end ---`)[0];
  expect(snippet && doc.includes(snippet.trim())).toBe(true);
}
