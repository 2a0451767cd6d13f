/** Only the peer section, printed as JSON (does not rewrite the report): `pnpm --filter @proxy/bench run peer`. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeFromEnv } from "./before.js";
import { peerConfigFromEnv, runPeerBench } from "./peer/peer-bench.js";

const workDir = await mkdtemp(join(tmpdir(), "bench-peer-"));
const result = await runPeerBench(
  peerConfigFromEnv(process.env),
  workDir,
  (line) => process.stderr.write(`[peer] ${line}\n`),
  beforeFromEnv(process.env),
);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
