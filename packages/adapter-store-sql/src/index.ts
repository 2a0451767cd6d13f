import type { ResponseStore } from "@proxy/core";
import { openPostgresDriver } from "./postgres-driver.js";
import type { ConversationLimits } from "./sql-conversations.js";
import { openSqlStore } from "./sql-response-store.js";
import { openSqliteDriver } from "./sqlite-driver.js";

export { MIGRATIONS, migrate } from "./migrations.js";
export type { ConversationLimits } from "./sql-conversations.js";
export type { SqlDriver } from "./sql-driver.js";
export { openPostgresDriver, openSqliteDriver };

/** SQLite file (created with its directory), or `:memory:` for a store that lives as long as the process. */
export const openSqliteStore = (
  path: string,
  now = Date.now(),
  limits: ConversationLimits = {},
): Promise<ResponseStore> => openSqlStore(openSqliteDriver(path), now, limits);

/** PostgreSQL at a `postgres://` URL; several gateway processes may share it. */
export const openPostgresStore = (
  connectionString: string,
  options: { readonly maxConnections?: number; readonly now?: number } & ConversationLimits = {},
): Promise<ResponseStore> =>
  openSqlStore(
    openPostgresDriver(
      connectionString,
      options.maxConnections === undefined ? {} : { max: options.maxConnections },
    ),
    options.now ?? Date.now(),
    { maxConversationBytes: options.maxConversationBytes },
  );
