import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaIssue from "effect/SchemaIssue";
import * as SchemaParser from "effect/SchemaParser";

const PositiveInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1));
const Secret = Schema.String.check(Schema.isMinLength(8));

/** Per-key limits; tokens are input (cached included) plus output; windows are UTC minutes and days. */
export const KeyLimits = Schema.Struct({
  rpm: Schema.optional(PositiveInt),
  tpm: Schema.optional(PositiveInt),
  tokensPerDay: Schema.optional(PositiveInt),
  /** Hosted web searches per UTC day: past it, a request asking for the search is refused (429). */
  webSearchesPerDay: Schema.optional(PositiveInt),
});
export type KeyLimits = typeof KeyLimits.Type;

/** A key with a name (usage is accounted under it) and optional limits; the secret inline or from env. */
export const NamedApiKey = Schema.Struct({
  name: Schema.String.check(
    Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, {
      message: "must be 1-64 letters, digits, '.', '_', '@' or '-'",
    }),
  ),
  key: Schema.optional(Secret),
  keyEnv: Schema.optional(
    Schema.String.check(
      Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be an environment variable name" }),
    ),
  ),
  limits: Schema.optional(KeyLimits),
});

/** One `apiKeys` entry: the key itself, or a named key. */
export const ApiKeyEntry = Schema.Union([Secret, NamedApiKey]);
export type ApiKeyEntry = typeof ApiKeyEntry.Type;

/** A usable key: its secret, and its name and limits when it was declared with them. */
export interface ApiKey {
  readonly key: string;
  readonly name?: string | undefined;
  readonly limits?: KeyLimits | undefined;
}

const decodeStrict = SchemaParser.decodeUnknownResult(Schema.Array(ApiKeyEntry));
const formatter = SchemaIssue.makeFormatterStandardSchemaV1();

/**
 * What the schema cannot say about `apiKeys`: unknown fields (`limit` for `limits`), a named key
 * with neither or both of `key` and `keyEnv`, an unset `keyEnv` variable, a name used twice, one
 * secret under two entries (named by their names, never by the secret).
 */
export const apiKeysProblem = (
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined => {
  const strict = decodeStrict(raw, { onExcessProperty: "error" });
  if (!Result.isSuccess(strict)) {
    const issue = formatter(strict.failure).issues[0];
    const path = (issue?.path ?? [])
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("");
    return `apiKeys${path}: ${issue?.message ?? "invalid"}`;
  }
  const names = new Set<string>();
  // Which entry holds each secret: one secret under two entries would be accounted to the last.
  const holders = new Map<string, string>();
  for (const [i, entry] of strict.success.entries()) {
    const label = typeof entry === "string" ? `apiKeys[${i}]` : `apiKeys[${i}] ('${entry.name}')`;
    if (typeof entry !== "string") {
      if ((entry.key === undefined) === (entry.keyEnv === undefined))
        return `apiKeys[${i}]: give exactly one of "key" and "keyEnv"`;
      if (entry.keyEnv !== undefined && (env[entry.keyEnv] ?? "").length < 8)
        return `apiKeys[${i}].keyEnv: the environment variable ${entry.keyEnv} is not set (or shorter than 8 characters)`;
      if (names.has(entry.name)) return `apiKeys[${i}].name: the name '${entry.name}' is already used`;
      names.add(entry.name);
    }
    const secret = typeof entry === "string" ? entry : (entry.key ?? env[entry.keyEnv ?? ""] ?? "");
    const first = holders.get(secret);
    if (first !== undefined) return `${label} has the same key as ${first}; give each entry its own key`;
    holders.set(secret, label);
  }
  return undefined;
};

/** The entries with every `keyEnv` read from the environment (after `apiKeysProblem` found none). */
export const resolveApiKeys = (
  entries: ReadonlyArray<ApiKeyEntry>,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<ApiKeyEntry> =>
  entries.map((entry) =>
    typeof entry === "string" || entry.keyEnv === undefined
      ? entry
      : { name: entry.name, key: env[entry.keyEnv] ?? "", ...(entry.limits ? { limits: entry.limits } : {}) },
  );

/** Every entry as a usable key (a string is an unnamed key without limits). */
export const apiKeysOf = (entries: ReadonlyArray<ApiKeyEntry>): ReadonlyArray<ApiKey> =>
  entries.flatMap((entry) =>
    typeof entry === "string"
      ? [{ key: entry }]
      : entry.key === undefined
        ? []
        : [{ key: entry.key, name: entry.name, limits: entry.limits }],
  );
