/**
 * The variables the codex child may see. Everything else in the gateway's environment (its own
 * `PROXY_*` keys, cloud credentials, tokens of unrelated tools) stays out: whatever codex can see
 * it can persist or send, so it only gets what it needs to find its home, authenticate to its
 * model provider, trust certificates and format text.
 */
export const CODEX_ENV_ALLOW_LIST: ReadonlyArray<string> = [
  "HOME",
  "CODEX_HOME",
  "CODEX_SQLITE_HOME",
  // codex's own credentials and provider endpoint (read by codex itself, never by the gateway)
  "CODEX_API_KEY",
  "CODEX_ACCESS_TOKEN",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  // TLS trust for corporate CAs
  "CODEX_CA_CERTIFICATE",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "TMPDIR",
  "TZ",
  "LANG",
  "LANGUAGE",
  "RUST_LOG",
  // Windows needs these to run a process at all
  "SYSTEMROOT",
  "WINDIR",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "TEMP",
  "TMP",
];

const LOCALE = /^LC_[A-Z]+$/;

/**
 * The child's environment: the allow-listed variables (plus the operator's `extra` names, for a
 * custom provider's `env_key` or an HTTPS proxy) taken from `source`, and `PATH` set to
 * `emptyBin`. A sealed codex runs no program, but at startup it probes the host with whatever
 * is on its PATH (`lsb_release -a` on Linux); with nothing there it reads `/etc/os-release`
 * instead. An operator who lists `PATH` in `extra` gets the real one back.
 */
export const sealedEnvironment = (
  source: NodeJS.ProcessEnv,
  extra: ReadonlyArray<string>,
  emptyBin: string,
): NodeJS.ProcessEnv => {
  const allowed = new Set([...CODEX_ENV_ALLOW_LIST, ...extra]);
  const env: NodeJS.ProcessEnv = { PATH: emptyBin };
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    // Windows variable names are case-insensitive (`Path`, `SystemRoot`).
    const upper = process.platform === "win32" ? name.toUpperCase() : name;
    if (allowed.has(name) || allowed.has(upper) || LOCALE.test(name)) env[name] = value;
  }
  if (extra.includes("PATH") && source.PATH !== undefined) env.PATH = source.PATH;
  return env;
};

/**
 * `-c` overrides for the app-server process itself (thread `config` comes too late for these):
 * no plugin marketplace sync (`git ls-remote https://github.com/openai/plugins.git` at every
 * start), no shell snapshot (a login shell per thread that writes the whole environment to
 * `$CODEX_HOME/shell_snapshots`), no analytics upload. Together with the sealed environment the
 * only connection codex opens is to its model provider, and it starts no process.
 */
export const SEALED_APP_SERVER_CONFIG: ReadonlyArray<string> = [
  "features.plugins=false",
  "features.shell_snapshot=false",
  "analytics.enabled=false",
];

export const sealedAppServerArgs = (): string[] => SEALED_APP_SERVER_CONFIG.flatMap((pair) => ["-c", pair]);
