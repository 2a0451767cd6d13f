import { execFile } from "node:child_process";
import { accessSync, chownSync, constants } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** Where Debian and most images put the server binaries when they are not on PATH. */
const CANDIDATE_DIRS = [
  "/usr/lib/postgresql/17/bin",
  "/usr/lib/postgresql/16/bin",
  "/usr/lib/postgresql/15/bin",
];

const findBinary = (name: string, dirs: ReadonlyArray<string>): string | undefined => {
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
};

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

export interface PostgresServer {
  /** `postgres://…` of the cluster's default database. */
  readonly url: string;
  /** A new empty database on this server (one per test file keeps tests independent). */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL cluster for tests: initdb in a temp dir, started on a free loopback port
 * with its socket in that dir, removed by `stop()`. PostgreSQL refuses to run as root, so as root
 * the cluster belongs to the `postgres` user and every command runs through `runuser`.
 */
export const startPostgresServer = async (
  options: {
    /** Where to look for initdb and pg_ctl (default: PATH, then /usr/lib/postgresql/<version>/bin). */
    readonly binDirs?: ReadonlyArray<string>;
  } = {},
): Promise<PostgresServer> => {
  const dirs = options.binDirs ?? [...(process.env.PATH ?? "").split(delimiter), ...CANDIDATE_DIRS];
  const initdb = findBinary("initdb", dirs);
  const pgCtl = findBinary("pg_ctl", dirs);
  if (initdb === undefined || pgCtl === undefined)
    throw new Error(
      `PostgreSQL server binaries (initdb, pg_ctl) were not found in ${dirs.join(", ")}. ` +
        "The store tests need a real PostgreSQL server: install it with `apt-get install postgresql`.",
    );
  const asRoot = process.getuid?.() === 0;
  const as = (command: string, args: ReadonlyArray<string>) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", command, ...args]) : run(command, [...args]);
  const dir = await mkdtemp(join(tmpdir(), "proxy-pg-"));
  const data = join(dir, "data");
  try {
    if (asRoot) {
      const { stdout } = await run("id", ["-u", "postgres"]);
      const { stdout: gid } = await run("id", ["-g", "postgres"]);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    await as(initdb, ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"]);
    const port = await freePort();
    const logFile = join(dir, "server.log");
    if (asRoot) await writeFile(logFile, "").then(() => run("chown", ["postgres", logFile]));
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off`;
    await as(pgCtl, ["-D", data, "-o", options, "-l", logFile, "-w", "-t", "60", "start"]);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return {
      url,
      async createDatabase(name) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
        } finally {
          await client.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
      },
      async stop() {
        await as(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
};
