import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { keyMatcher } from "../http/auth.js";

export const SESSION_COOKIE = "proxy_inspector";
const SESSION_SECONDS = 12 * 60 * 60;

/**
 * Who may open the inspector: with an admin key, only a request carrying it (as a bearer token) or
 * a session cookie the login form set for it; without one (a gateway with no API keys), anyone
 * who can reach the gateway. The cookie holds an expiry signed with a per-process secret, never the
 * key: it is HttpOnly, SameSite=Strict, scoped to /ui, and Secure behind https.
 */
export const createInspectorAuth = (adminKey: string, now: () => number = Date.now) => {
  const open = adminKey === "";
  const matches = keyMatcher(open ? [] : [adminKey]);
  const secret = randomBytes(32);
  const sign = (expires: number) => createHmac("sha256", secret).update(String(expires)).digest("base64url");

  const validCookie = (value: string | undefined): boolean => {
    const [expires, mac] = (value ?? "").split(".");
    if (!expires || !mac || !/^\d+$/.test(expires) || Number(expires) < now() / 1000) return false;
    const expected = Buffer.from(sign(Number(expires)));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  const bearer = (c: Context) => /^Bearer\s+(.+)$/i.exec((c.req.header("authorization") ?? "").trim())?.[1];

  return {
    open,
    /** The request may read the inspector. */
    allowed(c: Context): boolean {
      if (open) return true;
      const key = bearer(c);
      if (key !== undefined) return matches(key);
      return validCookie(getCookie(c, SESSION_COOKIE));
    },
    /** Checks a key from the login form; on success sets the session cookie. */
    login(c: Context, key: string): boolean {
      if (open || !matches(key)) return false;
      const expires = Math.floor(now() / 1000) + SESSION_SECONDS;
      setCookie(c, SESSION_COOKIE, `${expires}.${sign(expires)}`, {
        path: "/ui",
        httpOnly: true,
        sameSite: "Strict",
        secure: isHttps(c),
        maxAge: SESSION_SECONDS,
      });
      return true;
    },
    logout(c: Context): void {
      setCookie(c, SESSION_COOKIE, "", {
        path: "/ui",
        httpOnly: true,
        sameSite: "Strict",
        secure: isHttps(c),
        maxAge: 0,
      });
    },
  };
};

/** Served over https itself, or behind a proxy that terminates it. */
const isHttps = (c: Context): boolean =>
  new URL(c.req.url).protocol === "https:" ||
  (c.req.header("x-forwarded-proto") ?? "").split(",")[0]?.trim().toLowerCase() === "https";

/**
 * A form post is accepted only from the gateway's own page: a browser always sends `Origin` on a
 * cross-site POST, and it must name this host (a client without `Origin` is no browser).
 */
export const sameOriginPost = (c: Context): boolean => {
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === c.req.header("host");
  } catch {
    return false;
  }
};

export type InspectorAuth = ReturnType<typeof createInspectorAuth>;
