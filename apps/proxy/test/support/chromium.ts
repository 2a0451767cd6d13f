import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/**
 * The distribution's Chromium, installed with apt-get when it is missing (developer machines and
 * CI are Debian, root, with apt reachable). Anything else fails loudly: a browser test that skips
 * itself would pass without testing anything.
 */
export const ensureChromium = (): string => {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const apt = (args: string[]) =>
    spawnSync("apt-get", args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  const update = apt(["update"]);
  const install =
    update.status === 0 ? apt(["install", "-y", "--no-install-recommends", "chromium"]) : update;
  if (install.status !== 0 || !existsSync(CHROMIUM))
    throw new Error(`Chromium is missing and 'apt-get install chromium' failed (status ${install.status}).`);
  return CHROMIUM;
};

/** A headless Chromium with a fresh profile that reaches nothing but the pages a test opens. */
export const launchChromium = async (): Promise<{ context: BrowserContext; close(): Promise<void> }> => {
  const profile = mkdtempSync(join(tmpdir(), "proxy-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: ensureChromium(),
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
