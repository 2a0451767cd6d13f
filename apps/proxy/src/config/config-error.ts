/** A configuration that cannot start the gateway; the message names the setting as the operator wrote it. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
