#!/usr/bin/env node
// Stable bin entry (exists before the first build, so installs can link it): runs the built CLI.
await import("../dist/cli.js");
