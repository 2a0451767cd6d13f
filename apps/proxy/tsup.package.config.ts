import { packageBuild } from "../../tsup.shared.js";

// The installable package (`npm run package`): the workspace packages are bundled in; every other
// bare import (npm dependencies of any of them, builtins) stays an import that npm or Node satisfies.
// scripts/package.mjs chooses the output directory and checks each such import is a dependency.
export default packageBuild(["src/index.ts", "src/main.ts", "src/cli.ts"], {
  noExternal: [/^@proxy\//],
  external: [/^(?!@proxy\/)[^./]/],
});
