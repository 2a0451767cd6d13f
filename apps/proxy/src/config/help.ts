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
    return `${left} ${o.doc}${values}\n  ${"".padEnd(34)} env ${o.env}, default ${o.shown === "" ? "(none)" : o.shown}`;
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

/** The table's header row in docs/configuration.md: where the generated table starts. */
const TABLE_HEADER = "| Env var | CLI flag | Config-file key | Default | Meaning |";

/** docs/configuration.md's table, generated from the same source (a test keeps the doc in sync). */
export const configurationTable = (): string =>
  [
    TABLE_HEADER,
    "| --- | --- | --- | --- | --- |",
    ...OPTIONS.map(
      (o) =>
        `| \`${o.env}\` | \`${o.flag}\` | \`${o.key}\` | ${o.shown === "" ? "(none)" : `\`${o.shown}\``} | ${o.doc}${o.values ? ` One of ${o.values.map((v) => `\`${v}\``).join(", ")}.` : ""} |`,
    ),
  ].join("\n");

/**
 * docs/configuration.md with its option table replaced by the one the declarations render (the
 * text around it is kept): what `pnpm docs:config` writes, and what a test compares the doc with.
 */
export const configurationDoc = (doc: string): string => {
  const lines = doc.split("\n");
  const start = lines.indexOf(TABLE_HEADER);
  if (start < 0) throw new Error(`docs/configuration.md has no option table (no line '${TABLE_HEADER}')`);
  let end = start;
  while (end < lines.length && lines[end]?.startsWith("|")) end++;
  return [...lines.slice(0, start), configurationTable(), ...lines.slice(end)].join("\n");
};
