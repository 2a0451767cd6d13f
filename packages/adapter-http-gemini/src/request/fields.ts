import { invalidRequest } from "@proxy/core";

/** Small typed readers for the request decoder: each failure is a 400 naming the field path. */

export type Obj = Readonly<Record<string, unknown>>;

export const isObject = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u);

const describe = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "a list" : typeof u === "object" ? "an object" : `a ${typeof u}`;

const wrong = (param: string, expected: string, got: unknown) =>
  invalidRequest(`Invalid value at '${param}': expected ${expected}, got ${describe(got)}.`, param);

export const objectAt = (u: unknown, param: string): Obj => {
  if (!isObject(u)) throw wrong(param, "an object", u);
  return u;
};

export const optionalObject = (u: unknown, param: string): Obj | undefined =>
  u === undefined || u === null ? undefined : objectAt(u, param);

export const listAt = (u: unknown, param: string): ReadonlyArray<unknown> => {
  if (!Array.isArray(u)) throw wrong(param, "a list", u);
  return u;
};

export const optionalList = (u: unknown, param: string): ReadonlyArray<unknown> | undefined =>
  u === undefined || u === null ? undefined : listAt(u, param);

export const stringAt = (u: unknown, param: string): string => {
  if (typeof u !== "string") throw wrong(param, "a string", u);
  return u;
};

export const optionalString = (u: unknown, param: string): string | undefined =>
  u === undefined || u === null ? undefined : stringAt(u, param);

export const optionalBoolean = (u: unknown, param: string): boolean | undefined => {
  if (u === undefined || u === null) return undefined;
  if (typeof u !== "boolean") throw wrong(param, "a boolean", u);
  return u;
};

export const optionalNumber = (u: unknown, param: string): number | undefined => {
  if (u === undefined || u === null) return undefined;
  if (typeof u !== "number" || !Number.isFinite(u)) throw wrong(param, "a number", u);
  return u;
};

export const optionalInteger = (u: unknown, param: string, min: number): number | undefined => {
  const n = optionalNumber(u, param);
  if (n !== undefined && (!Number.isInteger(n) || n < min))
    throw invalidRequest(
      `Invalid value at '${param}': expected an integer of at least ${min}, got ${n}.`,
      param,
    );
  return n;
};

export const oneOf = <const T extends string>(u: unknown, param: string, allowed: ReadonlyArray<T>): T => {
  const s = stringAt(u, param);
  if (!(allowed as ReadonlyArray<string>).includes(s))
    throw invalidRequest(
      `Invalid value at '${param}': "${s}" is not one of ${allowed.map((a) => `"${a}"`).join(", ")}.`,
      param,
    );
  return s as T;
};
