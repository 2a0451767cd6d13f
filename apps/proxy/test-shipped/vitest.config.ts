import { defineProject } from "vitest/config";

// The shipped-artifact layer: no `@proxy/source` condition. These tests start what users start
// (the built bin with plain node, the packed tarball installed outside the repository, `npm start`)
// and drive it from outside over HTTP, so a broken build fails here even when every source test passes.
export default defineProject({
  test: {
    name: "shipped",
    include: ["*.test.ts"],
    globalSetup: ["./build-first.ts"],
    // One file at a time: `npm start` runs the install and turbo build again (cache hits), which
    // nothing of this layer should be loading or timing meanwhile; the source projects run beside it.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
