/**
 * `pnpm docs:config`: rewrites docs/configuration.md's option table from the option declarations
 * (apps/proxy/src/config/options-*.ts). `--check` only says whether the doc is current (exit 1 if not).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { configurationDoc } from "../src/config/help.js";

const path = new URL("../../../docs/configuration.md", import.meta.url);
const doc = readFileSync(path, "utf8");
const rendered = configurationDoc(doc);
if (process.argv.includes("--check")) {
  if (rendered !== doc) {
    process.stderr.write("docs/configuration.md's option table is stale: run pnpm docs:config\n");
    process.exit(1);
  }
} else if (rendered !== doc) {
  writeFileSync(path, rendered);
  process.stdout.write("docs/configuration.md: option table regenerated\n");
} else {
  process.stdout.write("docs/configuration.md: option table already current\n");
}
