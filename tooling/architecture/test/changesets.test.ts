import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = fileURLToPath(new URL("../node_modules/@changesets/cli/bin.js", import.meta.url));

describe("changesets", { timeout: 60_000 }, () => {
  it("every pending changeset parses (`changeset status` succeeds)", async () => {
    const result = await new Promise<{ code: number; output: string }>((resolve) =>
      execFile(process.execPath, [cli, "status"], { cwd: root }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      ),
    );
    expect(result.code, result.output).toBe(0);
  });
});
