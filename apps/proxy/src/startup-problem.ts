import { AppServerStartError } from "@proxy/adapter-codex-appserver";
import { isGatewayError } from "@proxy/core";
import type { GatewayConfig } from "./config/config.js";
import { storeLocation } from "./state/store-location.js";

/**
 * A start that could not finish, in one line naming the setting to change and how: what the
 * process entry prints before it exits. Everything the start had begun is stopped by then.
 */
export class GatewayStartError extends Error {
  override readonly name = "GatewayStartError";
}

interface Errno {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly hostname?: unknown;
}

const errno = (error: unknown): Errno => (typeof error === "object" && error !== null ? error : {});
const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String((errno(error).message as string | undefined) ?? error);

/** The listening socket: a port in use, a port below 1024, a host that is not this machine's. */
export const listenProblem = (error: unknown, config: GatewayConfig): string => {
  const at = `${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  switch (errno(error).code) {
    case "EADDRINUSE":
      return `PORT: ${at} is already in use (another gateway?): stop what holds it, or choose another port with PORT or --port.`;
    case "EACCES":
      return `PORT: no permission to listen on ${at} (ports below 1024 need privileges): choose a port of 1024 or more with PORT or --port.`;
    case "EADDRNOTAVAIL":
      return `HOST: ${config.host} is not an address of this machine: set HOST (or --host) to one of its addresses, 127.0.0.1 or 0.0.0.0.`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `HOST: ${config.host} does not resolve to an address: set HOST (or --host) to an address or a known name.`;
    default:
      return `cannot listen on ${at}: ${messageOf(error)} (HOST, PORT).`;
  }
};

/** PostgreSQL's SQLSTATEs a start meets: bad login, no such database. */
const LOGIN_REFUSED = new Set(["28P01", "28000"]);
const NO_DATABASE = "3D000";
const UNREACHABLE = new Set(["ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"]);

/** The store: PostgreSQL named by host:port (never its password), SQLite by its file. */
export const storeProblem = (error: unknown, config: GatewayConfig): string => {
  const location = storeLocation(config.store, config.dataDir);
  const code = errno(error).code;
  if (location.kind === "postgres") {
    const url = new URL(location.url);
    const at = `${url.hostname || "localhost"}:${url.port || "5432"}`;
    // Its messages name users and databases, not passwords; a password is cut all the same.
    const said = url.password
      ? messageOf(error).replaceAll(decodeURIComponent(url.password), "***")
      : messageOf(error);
    if (code === "ECONNREFUSED")
      return `PROXY_STORE: PostgreSQL at ${at} refused the connection (is it running on that port?): start it, or point PROXY_STORE at a reachable server.`;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN")
      return `PROXY_STORE: the PostgreSQL host ${url.hostname} does not resolve: fix the host in PROXY_STORE.`;
    if (UNREACHABLE.has(code as string) || /timeout/i.test(said))
      return `PROXY_STORE: PostgreSQL at ${at} did not answer (${said}): check the host, port and firewall in PROXY_STORE.`;
    if (LOGIN_REFUSED.has(code as string))
      return `PROXY_STORE: PostgreSQL at ${at} refused the login (${said}): fix the user or password in PROXY_STORE.`;
    if (code === NO_DATABASE)
      return `PROXY_STORE: PostgreSQL at ${at}: ${said}: create it (createdb) or fix the database name in PROXY_STORE.`;
    return `PROXY_STORE: PostgreSQL at ${at} could not be used: ${said}.`;
  }
  if (location.kind === "sqlite")
    return `PROXY_STORE: the SQLite store ${location.path} could not be opened (${messageOf(error)}): make its directory writable for this user, or set PROXY_DATA_DIR (or PROXY_STORE=sqlite:<path>) to a writable place.`;
  return `PROXY_STORE: the store could not be opened: ${messageOf(error)}.`;
};

/** Codex: its own reason when it exited at start, with the settings that decide how it starts. */
export const backendProblem = (
  error: unknown,
  config: GatewayConfig,
  env: Readonly<Record<string, string | undefined>>,
): string => {
  const cause = isGatewayError(error) && error.cause !== undefined ? error.cause : error;
  const home = env.CODEX_HOME ? `CODEX_HOME=${env.CODEX_HOME}` : "CODEX_HOME (unset: ~/.codex)";
  if (cause instanceof AppServerStartError) {
    if (cause.codexSays?.includes("CODEX_HOME"))
      return `codex could not start: ${cause.codexSays}. Set CODEX_HOME to codex's home directory (the one \`codex login\` wrote), or unset it to use ~/.codex.`;
    return `codex could not start: ${cause.codexSays ?? cause.message}. Check codex's configuration in ${home}/config.toml${config.codexBin ? ` and CODEX_BIN=${config.codexBin}` : ""}.`;
  }
  const said = messageOf(error);
  if (config.codexBin !== "" && /ENOENT|EACCES|could not be started/.test(said))
    return `CODEX_BIN: ${said}: point CODEX_BIN at a codex binary, or unset it to use the pinned @openai/codex.`;
  return `the backend could not start: ${said} (codex: ${home}).`;
};

/** Tracing's exporter (the endpoint and headers are checked with the configuration already). */
export const tracingProblem = (error: unknown): string =>
  `OTEL_EXPORTER_OTLP_ENDPOINT: tracing could not start: ${messageOf(error)}.`;
