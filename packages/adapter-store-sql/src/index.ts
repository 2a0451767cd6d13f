import type { ConversationLimits } from "./sql-conversations.js";
import { openSqlStore, type SqlStore } from "./sql-response-store.js";
import { openSqliteDriver } from "./sqlite-driver.js";

export { MIGRATIONS, migrate } from "./migrations.js";
export type { ConversationLimits } from "./sql-conversations.js";
export type { SqlDriver } from "./sql-driver.js";
export { createSqlUsageStore } from "./sql-usage-store.js";
export type { SqlStore };
export { openSqliteDriver };

/** SQLite file (created with its directory), or `:memory:` for a store that lives as long as the process. */
export const openSqliteStore = (
  path: string,
  now = Date.now(),
  limits: ConversationLimits = {},
): Promise<SqlStore> => openSqlStore(openSqliteDriver(path), now, limits);

/**
 * PostgreSQL at a `postgres://` URL; several gateway processes may share it. Its client (`pg`) is
 * loaded here, so a gateway on SQLite never loads it.
 */
export const openPostgresStore = async (
  connectionString: string,
  options: { readonly maxConnections?: number; readonly now?: number } & ConversationLimits = {},
): Promise<SqlStore> =>
  openSqlStore(
    (await import("./postgres-driver.js")).openPostgresDriver(
      connectionString,
      options.maxConnections === undefined ? {} : { max: options.maxConnections },
    ),
    options.now ?? Date.now(),
    { maxConversationBytes: options.maxConversationBytes },
  );
