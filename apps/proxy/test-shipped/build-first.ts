import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * The layer tests the build, so it builds first: `npm test` has just built (turbo answers from
 * its cache in a second or two); a lone `vitest run` of this project gets a dist that matches src.
 */
export default function buildFirst(): void {
  execFileSync(
    `${root}node_modules/.bin/turbo`,
    ["run", "build", "--filter=@proxy/gateway...", "--output-logs=errors-only"],
    { cwd: root, stdio: "inherit", env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } },
  );
}
