/**
 * Runs the core's parser benchmark (`runParserBench()` from packages/core/bench/parser-bench.ts)
 * in a fresh process with --expose-gc, so its heap figures do not include this runner's, and
 * sends the JSON back.
 */
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Built (dist/package-bench/, bundled by tsup) when this module runs built; the source under tsx. */
const CORE_BENCH = fileURLToPath(
  import.meta.url.endsWith(".js")
    ? new URL("../package-bench/parser-bench.js", import.meta.url)
    : new URL("../../../../packages/core/bench/parser-bench.ts", import.meta.url),
);

const run = async (): Promise<unknown> => {
  if (!existsSync(CORE_BENCH)) return { missing: "packages/core/bench/parser-bench.ts not found" };
  const mod = (await import(pathToFileURL(CORE_BENCH).href)) as { runParserBench?: () => Promise<unknown> };
  if (typeof mod.runParserBench !== "function")
    return { missing: "parser-bench.ts exports no runParserBench()" };
  return {
    source: "packages/core/bench/parser-bench.ts, runParserBench()",
    ...((await mod.runParserBench()) as object),
  };
};

process.send?.({ result: await run() });
process.disconnect?.();
