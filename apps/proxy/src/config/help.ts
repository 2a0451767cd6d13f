import { BOOLEAN_SPELLINGS } from "./config.js";
import { OPTIONS } from "./options.js";

/** The spellings a `<bool>` takes, for --help and docs/configuration.md. */
export const booleanSpellings = (): string =>
  `${BOOLEAN_SPELLINGS.true.map((s) => `\`${s}\``).join(", ")} or ${BOOLEAN_SPELLINGS.false.map((s) => `\`${s}\``).join(", ")}, in any case`;

/** `codex-tool-gateway --help`, generated from the option table so flags and env vars never drift apart. */
export const helpText = (): string => {
  const rows = OPTIONS.map((o) => {
    const values = o.values ? ` (${o.values.join("|")})` : "";
    const left = `  ${`${o.flag} <${o.kind}>`.padEnd(34)}`;
    return `${left} ${o.doc}${values}\n  ${"".padEnd(34)} env ${o.env}, default ${o.default === "" ? "(none)" : o.default}`;
  });
  return [
    "Usage: codex-tool-gateway [options]",
    "",
    "OpenAI-compatible tool-calling gateway over codex app-server.",
    "",
    "Options:",
    ...rows,
    "  --help                             Show this help.",
    "  --version                          Print the version.",
    "",
    `A <bool> is ${booleanSpellings().replaceAll("`", "")} (the config file takes JSON true and false).`,
    "",
  ].join("\n");
};

/** docs/configuration.md's table, generated from the same source (a test keeps the doc in sync). */
export const configurationTable = (): string =>
  [
    "| Env var | CLI flag | Config-file key | Default | Meaning |",
    "| --- | --- | --- | --- | --- |",
    ...OPTIONS.map(
      (o) =>
        `| \`${o.env}\` | \`${o.flag}\` | \`${o.key}\` | ${o.default === "" ? "(none)" : `\`${o.default}\``} | ${o.doc}${o.values ? ` One of ${o.values.map((v) => `\`${v}\``).join(", ")}.` : ""} |`,
    ),
  ].join("\n");
