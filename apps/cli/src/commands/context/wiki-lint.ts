import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { KxmError } from "@kxm/contract";
import type { Finding } from "@kxm/wiki";
import { Args, Flags } from "@oclif/core";
import { EXIT, KxmCommand, UsageError } from "../../base.js";
import { connectHub, count, hubFlag } from "../../hub-client.js";

interface LintResult {
  ok: boolean;
  project: string;
  /** The wiki folder linted (absolute). */
  dir: string;
  pages: string[];
  errors: number;
  warnings: number;
  findings: Finding[];
}

export default class ContextWikiLint extends KxmCommand {
  static override summary = "Check the compiled wiki against the hub's reviewed records.";
  static override description =
    "Reads the pages in .kxm/knowledge/wiki/ of the project root (or --dir) and checks them against the " +
    "project's reviewed records on the hub: broken references (a link to a missing page or anchor, a record that " +
    "no longer exists), stale state links (a value claimed current that the hub has superseded), hidden " +
    "contradictions (an open contradiction contradictions.md does not show) and missing pages are errors; orphan " +
    "pages (not linked from index.md), source links to files that do not exist, contradictions no longer open " +
    "and reviewed records on no page are warnings. It decides by record identity, never by text proximity. Prints one line per finding, " +
    "<severity> <code> <page>[:<line>] <message>, and exits 1 when there is an error. --json prints {ok, " +
    "project, dir, pages, errors, warnings, findings}. Authenticates with the admin token in KXM_AUTH_TOKEN.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --dir docs/wiki --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    dir: Flags.string({
      description: "The wiki folder to lint (default: .kxm/knowledge/wiki/ of the project root)",
      helpValue: "<folder>",
    }),
    hub: hubFlag,
  };

  async run(): Promise<LintResult> {
    const { args, flags } = await this.parse(ContextWikiLint);
    const { lintWiki, formatFinding, WIKI_DIR } = await import("@kxm/wiki");
    let dir: string;
    if (flags.dir !== undefined) {
      dir = resolve(await this.workingFolder(flags.cwd), flags.dir);
      const isFolder = await stat(dir).then(
        (info) => info.isDirectory(),
        () => false,
      );
      if (!isFolder) throw new UsageError(`--dir: no folder at ${flags.dir}`);
    } else {
      dir = join(await this.projectRoot(flags.cwd), ...WIKI_DIR.split("/"));
      const isFolder = await stat(dir).then(
        (info) => info.isDirectory(),
        () => false,
      );
      if (!isFolder) {
        throw new KxmError(
          "not_found",
          `no wiki at ${WIKI_DIR}/: compile it first with kxm context wiki-compile ${args.project} --out .`,
        );
      }
    }
    const pages = new Map<string, string>();
    const names = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
      .map((entry) => entry.name)
      .sort();
    for (const name of names) pages.set(name, await readFile(join(dir, name), "utf8"));
    const { client } = connectHub(flags.hub);
    const records = await client.wikiRecords({ params: { project: args.project } });
    const findings = lintWiki(pages, records, { fileExists: (path) => existsSync(resolve(dir, path)) });
    const errors = findings.filter((found) => found.severity === "error").length;
    const warnings = findings.length - errors;
    const result: LintResult = {
      ok: errors === 0,
      project: records.project,
      dir,
      pages: names,
      errors,
      warnings,
      findings,
    };
    const tally = `${count(errors, "error")}, ${count(warnings, "warning")} in ${count(names.length, "page")}`;
    if (this.jsonEnabled()) {
      if (errors > 0) {
        this.logJson(result);
        return this.exit(EXIT.failed);
      }
      return result;
    }
    for (const found of findings) this.say(formatFinding(found));
    if (errors > 0) {
      this.writeErrLine(`context wiki-lint failed: ${tally}`);
      return this.exit(EXIT.failed);
    }
    this.say(`Wiki of ${records.project}: ${tally}.`);
    return result;
  }
}
