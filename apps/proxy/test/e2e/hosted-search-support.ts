import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";
import { startRecordingForwarder } from "./recording-forwarder.js";

/** The answer the scripted model writes after its search: two cited pages, one cited twice. */
export const SEARCH_ANSWER =
  "Oslo is sunny today, per [Yr](https://www.yr.no/oslo) and [Met Norway](https://www.met.no/en). Yr again: https://www.yr.no/oslo.";
export const SEARCH_QUERY = "weather oslo today";

/** The hosted tools codex offered the model in one request (everything but function tools). */
export const hostedToolsOf = (r: RecordedRequest | undefined) =>
  ((r?.body.tools ?? []) as Array<{ type?: string }>).filter((t) => t.type !== "function");

const offersSearch = (r: RecordedRequest) => hostedToolsOf(r).some((t) => t.type === "web_search");

/**
 * The scripted model: searches the web (a `web_search_call`, streamed as OpenAI streams it) and
 * answers with links when codex offers it `web_search`; answers "no search" otherwise.
 */
export const searchingModel = (r: RecordedRequest): ScriptedResponse =>
  offersSearch(r)
    ? {
        reasoning: "I should look this up.",
        webSearches: [{ id: `ws_${r.index}`, query: SEARCH_QUERY, sources: ["https://www.yr.no/oslo"] }],
        chunks: [SEARCH_ANSWER.slice(0, 40), SEARCH_ANSWER.slice(40)],
      }
    : { text: "no search" };

/** What a CLI's search run has: the gateway over real codex, the recording forwarder before it, a scratch dir. */
export interface CliSearchRun {
  e2e: Awaited<ReturnType<typeof startE2E>>;
  forwarder: Awaited<ReturnType<typeof startRecordingForwarder>>;
  work: string;
}

/**
 * Starts, for the enclosing describe block, a gateway over real codex scripted by `script`, a recording
 * forwarder in front of it (the CLI's requests, pinned by the tests) and a working directory for the CLI.
 */
export const useCliSearchRun = (
  script: Parameters<typeof startE2E>[0],
  env: Record<string, string>,
  workPrefix: string,
): CliSearchRun => {
  const run = {} as CliSearchRun;
  beforeAll(async () => {
    run.e2e = await startE2E(script, env);
    run.forwarder = await startRecordingForwarder(run.e2e.url);
    run.work = await mkdtemp(join(tmpdir(), workPrefix));
  }, 60_000);
  afterAll(async () => {
    await run.forwarder?.close();
    await run.e2e?.close();
    if (run.work) await rm(run.work, { recursive: true, force: true });
  });
  return run;
};
