import type { TurnSettings } from "@proxy/core/gateway";
import * as Schema from "effect/Schema";

/** How an option's text from the environment or a flag is read before its schema checks it. */
export type OptionKind = "int" | "bool" | "string" | "list" | "map" | "enum" | "json";

/** The core turn setting (`TurnSettings`) whose type is exactly `T`: where an option's value goes. */
export type TurnSettingOf<T> = {
  [K in keyof TurnSettings]: [TurnSettings[K]] extends [T]
    ? [T] extends [TurnSettings[K]]
      ? K
      : never
    : never;
}[keyof TurnSettings];

/**
 * One gateway option, declared once: its environment name (the CLI flag and config-file key come
 * from its key in the table), how its text is read, its schema, its default and its doc.
 * `--help`, the config schema and validation, the typo warnings and docs/configuration.md are
 * all derived from these declarations.
 */
export interface AnyOptionDeclaration {
  readonly env: string;
  readonly kind: OptionKind;
  readonly schema: Schema.Top;
  readonly default: unknown;
  readonly doc: string;
  /** Its value is a secret: an error about it never repeats the value. */
  readonly secret?: true;
  /** The core turn setting it sets (`turnSettingsFrom`). */
  readonly turn?: keyof TurnSettings;
}

/** A declaration whose default has its schema's type and whose turn setting takes that type. */
export interface OptionDeclaration<S extends Schema.Top> extends AnyOptionDeclaration {
  readonly schema: S;
  readonly default: S["Type"];
  readonly turn?: TurnSettingOf<S["Type"]>;
}

/** Checks one declaration (its default against its schema's type, its turn setting's type). */
export const option = <S extends Schema.Top>(declaration: OptionDeclaration<S>): OptionDeclaration<S> =>
  declaration;

export const PositiveInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1));
export const NonNegativeInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0));
export const IntBetween = (minimum: number, maximum: number) =>
  Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum, maximum }));
