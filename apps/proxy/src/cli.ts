#!/usr/bin/env node
// `codex-tool-gateway`: flags mirror the environment options one to one (see docs/configuration.md).
import { parseArgs } from "node:util";
import { optionMeant } from "./config/config.js";
import { helpText } from "./config/help.js";
import { OPTIONS } from "./config/options.js";
import { main, VERSION } from "./gateway.js";

const parse = () => {
  try {
    return parseArgs({
      options: {
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
        ...Object.fromEntries(OPTIONS.map((o) => [o.flag.slice(2), { type: "string" as const }])),
      },
      strict: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    // One line: an unknown flag names the option meant when one is close.
    const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec((error as Error).message)?.[1];
    const meant = unknown ? optionMeant(unknown.replace(/^-+/, "")) : undefined;
    const what = unknown ? `unknown option ${unknown}` : (error as Error).message.split("\n")[0];
    process.stderr.write(
      `codex-tool-gateway: ${what}${meant ? ` (did you mean ${meant.flag}?)` : ""}; 'codex-tool-gateway --help' lists the options.\n`,
    );
    process.exit(2);
  }
};

const values = parse();
if (values.help) {
  process.stdout.write(helpText());
} else if (values.version) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const flags: Record<string, string> = {};
  for (const o of OPTIONS) {
    const v = values[o.flag.slice(2)];
    if (typeof v === "string") flags[o.key] = v;
  }
  await main(flags);
}
