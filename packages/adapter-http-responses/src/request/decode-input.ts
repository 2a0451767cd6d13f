import { GatewayError } from "@proxy/core";
import { issueToGatewayError } from "@proxy/http-surface";
import * as Result from "effect/Result";
import type * as Schema from "effect/Schema";
import * as SchemaParser from "effect/SchemaParser";
import {
  type Input,
  type InputItem,
  ITEM_SCHEMAS,
  type MessageContentPart,
  PART_SCHEMAS,
} from "./input-schema.js";

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

const quoteAll = (keys: ReadonlyArray<string>) => keys.map((k) => `'${k}'`).join(", ");

/**
 * Decodes one tagged value with the schema its `type` selects, so a bad value is reported at its
 * own path (`input[3].call_id`) instead of as "none of the N item shapes matched".
 */
const decodeTagged = <T>(
  raw: unknown,
  table: Readonly<Record<string, Schema.Top>>,
  path: string,
  defaultType: string | undefined,
): T => {
  if (!isRecord(raw))
    throw new GatewayError("invalid_request", `Invalid type for '${path}': expected an object.`, {
      param: path,
      code: "invalid_type",
    });
  const type = raw.type ?? defaultType;
  const schema = typeof type === "string" && Object.hasOwn(table, type) ? table[type] : undefined;
  if (schema === undefined) {
    const param = `${path}.type`;
    const message =
      type === undefined
        ? `Missing required parameter: '${param}'.`
        : `Invalid value for '${param}': ${JSON.stringify(type)}. Supported values are: ${quoteAll(Object.keys(table))}.`;
    throw new GatewayError("invalid_request", message, {
      param,
      code: type === undefined ? "missing_required_parameter" : "invalid_value",
    });
  }
  const decoded = SchemaParser.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(raw);
  if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure, path);
  return decoded.success as T;
};

/** Finds an item this gateway issued earlier, for `item_reference` inputs. */
export type ItemResolver = (id: string) => unknown;

const decodeItem = (rawItem: unknown, path: string): InputItem => {
  // Easy input messages carry a role and no type.
  const defaultType = isRecord(rawItem) && "role" in rawItem ? "message" : undefined;
  const item = decodeTagged<InputItem>(rawItem, ITEM_SCHEMAS, path, defaultType);
  if ((item.type !== undefined && item.type !== "message") || typeof item.content === "string") return item;
  const content = item.content.map((part, j) =>
    decodeTagged<MessageContentPart>(part, PART_SCHEMAS, `${path}.content[${j}]`, undefined),
  );
  return { ...item, content };
};

/**
 * `input` (string or raw array) → typed items; throws GatewayError("invalid_request") naming the
 * path. An `item_reference` is replaced by the item it names when `resolve` knows it, and dropped
 * otherwise (nothing is stored durably; see docs/responses.md).
 */
export const decodeInput = (
  raw: string | ReadonlyArray<unknown>,
  resolve?: ItemResolver,
  base = "input",
): Input => {
  if (typeof raw === "string") return raw;
  return raw.flatMap((rawItem, i): InputItem[] => {
    const path = `${base}[${i}]`;
    const item = decodeItem(rawItem, path);
    if (item.type !== "item_reference") return [item];
    const referenced = resolve?.(item.id);
    return referenced === undefined ? [] : [decodeItem(referenced, path)];
  });
};
