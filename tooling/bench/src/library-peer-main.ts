/**
 * The library section alone: `@proxy/ai-sdk` beside `@ai-sdk-tool/parser` (see
 * library-peer/library-peer-bench.ts). Writes its figures into results/latest.json (the other
 * sections' figures stay) and re-renders docs/benchmarks.md. Run after `pnpm build`:
 * `node --expose-gc tooling/bench/dist/library-peer-main.js`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { libraryPeerConfigFromEnv, runLibraryPeerBench } from "./library-peer/library-peer-bench.js";
import { renderReport } from "./report.js";
import type { BenchResults } from "./results.js";

const RESULTS = fileURLToPath(new URL("../results/", import.meta.url));
const DOC = fileURLToPath(new URL("../../../docs/benchmarks.md", import.meta.url));
const PLOTS = {
  latency: "plots/latency-vs-connections.svg",
  rps: "plots/rps-vs-connections.svg",
  parser: "plots/parser-mbps.svg",
};

const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const libraryPeer = await runLibraryPeerBench(libraryPeerConfigFromEnv(process.env), log);
const results = JSON.parse(await readFile(`${RESULTS}latest.json`, "utf8")) as BenchResults;
const merged: BenchResults = { ...results, libraryPeer };
await writeFile(`${RESULTS}latest.json`, `${JSON.stringify(merged, null, 2)}\n`);
await writeFile(DOC, renderReport(merged, PLOTS));
log("library-peer: docs/benchmarks.md and results/latest.json updated");
