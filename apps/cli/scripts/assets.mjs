// Copies the files of KXM's own repository that the built-in modes name (`kxmFiles`: the browser guide and the
// Claude Code plugin's browser skills) into dist/assets/, under their repository paths. `kxm explain --mode browser`
// measures these copies: a user's project does not hold KXM's docs, and the published package ships dist/ only.
// Runs after tsc, from apps/cli, and reads the list from the compiled modes module, so it cannot drift from it.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILT_IN_MODES } from "../dist/modes.js";

const cli = fileURLToPath(new URL("..", import.meta.url));
const repository = join(cli, "..", "..");
const assets = join(cli, "dist", "assets");
rmSync(assets, { recursive: true, force: true });
const files = new Set(Object.values(BUILT_IN_MODES).flatMap((mode) => mode.kxmFiles ?? []));
for (const file of files) {
  const target = join(assets, ...file.split("/"));
  mkdirSync(dirname(target), { recursive: true });
  // A named file that is missing fails the build: a mode must not ship without what it measures.
  copyFileSync(join(repository, ...file.split("/")), target);
}
