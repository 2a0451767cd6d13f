import { join, resolve } from "node:path";

/** Where `PROXY_STORE` points (validated by the config schema). */
export type StoreLocation =
  | { readonly kind: "none" }
  | { readonly kind: "memory" }
  | { readonly kind: "sqlite"; readonly path: string }
  | { readonly kind: "postgres"; readonly url: string };

export const storeLocation = (store: string, dataDir: string): StoreLocation => {
  if (store === "none") return { kind: "none" };
  if (store === "memory") return { kind: "memory" };
  if (store.startsWith("postgres://") || store.startsWith("postgresql://"))
    return { kind: "postgres", url: store };
  const path = store.slice("sqlite:".length);
  return { kind: "sqlite", path: resolve(path === "" ? join(dataDir, "gateway.sqlite") : path) };
};

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `90m`, `45s` or plain seconds (validated by the config schema) → milliseconds. */
export const durationMs = (value: string): number => {
  const unit = value.at(-1) ?? "";
  return unit in UNIT_MS ? Number(value.slice(0, -1)) * (UNIT_MS[unit] ?? 1000) : Number(value) * 1000;
};

/** The location without credentials, for logs. */
export const describeLocation = (location: StoreLocation): string => {
  if (location.kind === "sqlite") return `sqlite:${location.path}`;
  if (location.kind !== "postgres") return location.kind;
  const url = new URL(location.url);
  return `postgres://${url.host}${url.pathname}`;
};
