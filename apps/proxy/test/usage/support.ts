import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import { createScriptedBackend, type Script } from "@proxy/core/testing";
import { pino } from "pino";
import { resolveConfig } from "../../src/config/config.js";
import { type RunningGateway, startGateway } from "../../src/gateway.js";
import { Backend } from "../../src/runtime.js";

export const ADMIN = "admin-0123456789abcdef";

/** The real gateway over a scripted backend, configured from env and a config file's values. */
export const gatewayWith = async (
  script: Script,
  env: Record<string, string>,
  file: Record<string, unknown> = {},
): Promise<RunningGateway> => {
  const config = resolveConfig({ env, file, flags: { port: "0" } });
  return startGateway(config, {
    logger: pino({ level: "silent" }),
    backendLayer: Backend.layerFrom(createScriptedBackend(script)),
  });
};

/** One throwaway PostgreSQL cluster per test file, started on first use. */
export const sharedPostgres = () => {
  let server: Promise<PostgresServer> | undefined;
  return {
    database: async (name: string) => {
      server ??= startPostgresServer();
      return (await server).createDatabase(name);
    },
    stop: async () => (await server)?.stop(),
  };
};

/**
 * `PROXY_STORE` values for a SQLite file (in a temp dir) and a database on this file's throwaway
 * PostgreSQL, for `describe.each`; `stop` removes both.
 */
export const bothStores = (name: string) => {
  const postgres = sharedPostgres();
  const dirs: string[] = [];
  const stores: Array<[string, () => Promise<string>]> = [
    [
      "SQLite",
      async () => {
        const dir = await mkdtemp(join(tmpdir(), `proxy-${name}-`));
        dirs.push(dir);
        return `sqlite:${join(dir, "gateway.sqlite")}`;
      },
    ],
    ["PostgreSQL", () => postgres.database(name.replace(/\W/g, "_"))],
  ];
  return {
    stores,
    postgres,
    async stop() {
      await postgres.stop();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
};

/** GET with the admin key (or another bearer token; `null`: none). */
export const adminGet = (url: string, path: string, key: string | null = ADMIN) =>
  fetch(`${url}${path}`, key === null ? {} : { headers: { authorization: `Bearer ${key}` } });
