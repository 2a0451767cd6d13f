import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const tsc = here("../../../node_modules/typescript/bin/tsc");

/** What a user writes: the middleware passed to their own `ai`'s wrapLanguageModel, options checked. */
const CONSUMER = `import { toolCallingMiddleware } from "@proxy/ai-sdk";
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";

const model = wrapLanguageModel({
  model: new MockLanguageModelV3(),
  middleware: toolCallingMiddleware({ parallelToolCalls: false, strict: true, correctiveRetries: 1 }),
});
export const result = generateText({ model, prompt: "hi" });
`;

/**
 * A consumer project with one \`ai\` major installed and the built packages copied in (not linked:
 * the declarations must resolve \`ai\` from the consumer's node_modules, as they do once installed).
 */
const consumer = async (ai: string, source: string) => {
  const dir = await mkdtemp(join(tmpdir(), "ai-sdk-consumer-"));
  const modules = join(dir, "node_modules");
  for (const pkg of ["ai-sdk", "core"]) {
    const to = join(modules, "@proxy", pkg);
    await mkdir(to, { recursive: true });
    await cp(here(`../../${pkg}/package.json`), join(to, "package.json"));
    await cp(here(`../../${pkg}/dist`), join(to, "dist"), { recursive: true });
  }
  await symlink(await realpath(here(`../node_modules/${ai}`)), join(modules, "ai"));
  await mkdir(join(modules, "@types"), { recursive: true });
  await symlink(await realpath(here("../node_modules/@types/node")), join(modules, "@types", "node"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(join(dir, "main.ts"), source);
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        lib: ["ES2023", "DOM"],
      },
      files: ["main.ts"],
    }),
  );
  return dir;
};

const typecheck = (dir: string) =>
  new Promise<string>((resolve) =>
    execFile(process.execPath, [tsc, "-p", dir], (_error, stdout, stderr) => resolve(stdout + stderr)),
  );

describe("the built package's types in a consumer project", { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("the packages are built (run `pnpm build` first)", () => {
    expect(existsSync(here("../dist/index.d.ts")) && existsSync(here("../../core/dist/index.d.ts"))).toBe(
      true,
    );
  });

  it.each([
    ["ai 7", "ai"],
    ["ai 6", "ai6"],
  ])("typecheck with %s: wrapLanguageModel takes the middleware", async (_name, ai) => {
    const dir = await consumer(ai, CONSUMER);
    dirs.push(dir);
    expect(await typecheck(dir)).toBe("");
  });

  it("a wrong option is a type error", async () => {
    const dir = await consumer("ai6", CONSUMER.replace("strict: true", 'strict: "yes"'));
    dirs.push(dir);
    expect(await typecheck(dir)).toContain(
      "main.ts(7,65): error TS2322: Type 'string' is not assignable to type 'boolean | undefined'.",
    );
  });
});
