// Runs the real codex (METER_CODEX) with this process's arguments and counts the bytes written to
// its stdin: every chunk updates the count in METER_FILE. A pipe hop, so what the gateway writes to
// codex can be measured without changing the gateway.
import { spawn } from "node:child_process";
import { renameSync, writeFileSync } from "node:fs";

const codex = process.env.METER_CODEX ?? "codex";
const file = process.env.METER_FILE ?? "stdin-bytes";
const child = spawn(codex, process.argv.slice(2), { stdio: ["pipe", "inherit", "inherit"] });
let bytes = 0;
process.stdin.on("data", (chunk: Buffer) => {
  bytes += chunk.length;
  // Written aside and renamed: a reader never sees a half-written count.
  writeFileSync(`${file}.tmp`, String(bytes));
  renameSync(`${file}.tmp`, file);
  child.stdin?.write(chunk);
});
process.stdin.on("end", () => child.stdin?.end());
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
