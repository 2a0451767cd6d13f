import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Labels of the issue tracker and of earlier sessions ("issue 25 item 12c", "seed 001", "D1–D5")
 * mean nothing to a reader of the repository: a doc or comment says what it means instead.
 */
const LABEL = /\b(?:issue|seed|round) #?\d+|\bitem \d+[a-z]\b|\bD\d\s*[–-]\s*D\d\b/i;

/** Text the repository's readers read: docs, changesets, sources and tests (their comments). */
const READ = /\.(?:md|ts|mts|mjs|cjs|js|json|yaml|html|css)$|^\.ci\//;

const labelled = (text: string): string[] =>
  text.split("\n").flatMap((line, i) => (LABEL.test(line) ? [`${i + 1}: ${line.trim()}`] : []));

describe("no doc or comment cites a label the repository does not define", () => {
  it("finds the labels it is meant to find, and not ordinary words", () => {
    for (const cited of ["as issue 25 item 12c says", "see seed 001", "D1–D5 hold", "(round 3)", "issue #36"])
      expect(labelled(cited), cited).toHaveLength(1);
    for (const plain of [
      "an issue with 2 keys",
      "d1 = await pool()",
      "fake-d8",
      "seeded 10 rows",
      "item 3 of 5",
    ])
      expect(labelled(plain), plain).toEqual([]);
  });

  it("holds for every tracked file", () => {
    const files = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
      .split("\n")
      .filter(
        (f) => READ.test(f) && f !== "pnpm-lock.yaml" && !f.endsWith("architecture/test/labels.test.ts"),
      );
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => labelled(readFileSync(join(root, f), "utf8")).map((l) => `${f}:${l}`));
    expect(found).toEqual([]);
  });
});
