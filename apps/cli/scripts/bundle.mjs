// Bundles the fast paths' libraries (dist/fast/*-lib.js, compiled by tsc) into one file each, so that
// `kxm memory brief` and `kxm memory revision` load a single module rather than a few hundred.
import { build } from "esbuild";

await build({
  entryPoints: ["dist/fast/brief-lib.js", "dist/fast/revision-lib.js"],
  outdir: "dist/fast",
  entryNames: "[name].bundle",
  bundle: true,
  minify: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  // write-file-atomic and its dependencies are CommonJS: give the bundle a require for Node's own modules.
  banner: {
    js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
  },
});
