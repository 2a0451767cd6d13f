import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../../src/gateway.js";
import { ADMIN, adminGet, gatewayWith } from "./support.js";

type OpenApi = { paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>> };
const openapi = async (url: string) => (await (await fetch(`${url}/openapi.json`)).json()) as OpenApi;
const admin = { authorization: `Bearer ${ADMIN}` };

describe("the admin and inspector routes are listed where routes are listed", () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await gatewayWith([{ chunks: ["hi"] }], {
      PROXY_STORE: "memory",
      PROXY_ADMIN_KEY: ADMIN,
      PROXY_INSPECTOR: "on",
    });
  });
  afterAll(() => gateway?.shutdown("test done"));

  it("/openapi.json documents /admin/usage and the inspector's API, behind the admin key", async () => {
    const { paths } = await openapi(gateway.url);
    expect(paths["/admin/usage"]?.get?.security).toEqual([{ admin: [] }]);
    for (const path of ["/ui/api/overview", "/ui/api/requests", "/ui/api/requests/{seq}", "/ui/api/stream"])
      expect(paths[path]?.get?.security, path).toEqual([{ admin: [] }]);
    expect(Object.keys(paths["/ui/login"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(paths["/ui/logout"]?.post?.security).toEqual([]);
    // The documented admin route is the one served.
    expect((await adminGet(gateway.url, "/admin/usage")).status).toBe(200);
  });

  it("a wrong method on an admin or inspector path answers 405 with Allow, after the admin key", async () => {
    const post = await fetch(`${gateway.url}/admin/usage`, { method: "POST", headers: admin });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect(await post.json()).toMatchObject({ error: { code: "method_not_allowed" } });
    // Without the key the method is not what is wrong.
    expect((await fetch(`${gateway.url}/admin/usage`, { method: "POST" })).status).toBe(401);
    for (const path of ["/ui/api/overview", "/ui/api/requests", "/ui/api/requests/1", "/ui/api/stream"]) {
      const res = await fetch(`${gateway.url}${path}`, { method: "DELETE", headers: admin });
      expect(res.status, path).toBe(405);
      expect(res.headers.get("allow"), path).toBe("GET");
    }
    const logout = await fetch(`${gateway.url}/ui/logout`, { method: "GET" });
    expect(logout.status).toBe(405);
    expect(logout.headers.get("allow")).toBe("POST");
  });
});

describe("without PROXY_ADMIN_KEY and the inspector", () => {
  it("lists no admin or inspector route and answers them 404", async () => {
    const gateway = await gatewayWith([{ chunks: ["hi"] }], { PROXY_STORE: "memory" });
    try {
      const { paths } = await openapi(gateway.url);
      expect(Object.keys(paths).filter((p) => p.startsWith("/admin") || p.startsWith("/ui"))).toEqual([]);
      expect((await fetch(`${gateway.url}/admin/usage`, { method: "POST", headers: admin })).status).toBe(
        404,
      );
      expect((await fetch(`${gateway.url}/ui/api/overview`, { method: "DELETE" })).status).toBe(404);
    } finally {
      await gateway.shutdown("test done");
    }
  });
});
