import type * as Schema from "effect/Schema";
import type { AnyOptionDeclaration, OptionKind } from "./option.js";
import { RESOURCE_OPTIONS } from "./options-resources.js";
import { SERVING_OPTIONS } from "./options-serving.js";

export type { AnyOptionDeclaration, OptionDeclaration, OptionKind } from "./option.js";

/**
 * Every gateway option, each declared once (options-serving.ts, options-resources.ts): adding an
 * option is one entry there. The config schema (config.ts), `--help` and docs/configuration.md's
 * table (help.ts, `pnpm docs:config`) and the typo warnings are derived from this table.
 */
export const DECLARED_OPTIONS = { ...SERVING_OPTIONS, ...RESOURCE_OPTIONS };
export type OptionKey = keyof typeof DECLARED_OPTIONS;

/** One option as the readers of the table see it: its names, its default as written, its values. */
export interface OptionSpec extends AnyOptionDeclaration {
  readonly key: OptionKey;
  /** `--kebab-case` of the key. */
  readonly flag: string;
  /** The default as `--help` and the doc show it ("" = none). */
  readonly shown: string;
  /** The values of an `enum`, from its schema. */
  readonly values?: ReadonlyArray<string> | undefined;
}

/** A default as an operator writes it: a list comma-separated, an empty list or map as nothing. */
const shown = (kind: OptionKind, value: unknown): string => {
  if (kind === "json") return JSON.stringify(value);
  if (Array.isArray(value)) return value.join(",");
  if (typeof value === "object" && value !== null)
    return Object.entries(value)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(",");
  return String(value);
};

/** The enum values a `Schema.Literals` holds. */
const literalsOf = (schema: Schema.Top): ReadonlyArray<string> | undefined =>
  (schema as { readonly literals?: ReadonlyArray<string> }).literals;

export const OPTIONS: ReadonlyArray<OptionSpec> = Object.entries(DECLARED_OPTIONS).map(
  ([key, declaration]: [string, AnyOptionDeclaration]) => ({
    ...declaration,
    key: key as OptionKey,
    flag: `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    shown: shown(declaration.kind, declaration.default),
    values: declaration.kind === "enum" ? literalsOf(declaration.schema) : undefined,
  }),
);
