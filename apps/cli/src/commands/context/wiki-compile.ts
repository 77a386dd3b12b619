import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Args, Flags } from "@oclif/core";
import { KxmCommand, UsageError } from "../../base.js";
import { connectHub, count, hubFlag } from "../../hub-client.js";

interface CompileResult {
  project: string;
  generatedAt: string;
  /** `.kxm/knowledge/wiki`: where the pages land under --out. */
  wikiDir: string;
  counts: Record<string, number>;
  /** The compiled pages (file name -> Markdown); present when previewing. */
  pages?: Record<string, string>;
  /** The folder written to (absolute), with --out. */
  out?: string;
  written?: string[];
  unchanged?: string[];
  /** Pages an earlier compile wrote that this one no longer does, removed. */
  removed?: string[];
  /** Other files in the wiki folder, left alone (wiki-lint reports them as orphan pages). */
  kept?: string[];
}

export default class ContextWikiCompile extends KxmCommand {
  static override summary = "Compile the project's reviewed records into the knowledge wiki.";
  static override description =
    "Reads the project's reviewed records from the hub (current and superseded state, open contradictions, the " +
    "authored memory and promoted skills of the project's registered checkout, and journal entries of finished " +
    "runs marked reviewed with kxm context review) and compiles them into Markdown pages: index.md, one page per " +
    "section (architecture, decisions, incidents, patterns), temporal-state.md, contradictions.md and " +
    "superseded-history.md. Pending proposals and unreviewed journal entries are never compiled, and no " +
    "contradiction is resolved. Without --out the pages are previewed on stdout; with --out <dir> they are " +
    "written under <dir>/.kxm/knowledge/wiki/, each file whole, and pages an earlier compile wrote that are no " +
    "longer produced are removed. The output is byte-identical for the same records, except the Compiled at " +
    "line of index.md. --json prints {project, generatedAt, wikiDir, counts} and either pages (preview) or out, " +
    "written, unchanged, removed and kept. Authenticates with the admin token in KXM_AUTH_TOKEN.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --out .",
    "<%= config.bin %> <%= command.id %> demo --out . --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    out: Flags.string({
      description: "Write the pages under <dir>/.kxm/knowledge/wiki/ (usually the project root: --out .)",
      helpValue: "<dir>",
    }),
    hub: hubFlag,
  };

  async run(): Promise<CompileResult> {
    const { args, flags } = await this.parse(ContextWikiCompile);
    const folder = await this.workingFolder(flags.cwd);
    let out: string | undefined;
    if (flags.out !== undefined) {
      out = resolve(folder, flags.out);
      const isFolder = await stat(out).then(
        (info) => info.isDirectory(),
        () => false,
      );
      if (!isFolder) throw new UsageError(`--out: no folder at ${flags.out}`);
    }
    const { client } = connectHub(flags.hub);
    const records = await client.wikiRecords({ params: { project: args.project } });
    const { compileWiki, countRecords, GENERATED_MARKER, WIKI_DIR } = await import("@kxm/wiki");
    const pages = compileWiki(records);
    const counts = countRecords(records);
    const summary =
      `${count(counts.currentState, "current state value")}, ${counts.supersededState} superseded, ` +
      `${count(counts.memory, "memory fact")}, ${count(counts.skills, "skill")}, ` +
      `${count(counts.journal, "reviewed journal entry", "reviewed journal entries")}, ` +
      `${count(counts.contradictions, "open contradiction")}`;
    const base = {
      project: records.project,
      generatedAt: records.generatedAt,
      wikiDir: WIKI_DIR,
      counts: { ...counts },
    };

    if (out === undefined) {
      for (const [file, body] of pages) this.say(`==> ${WIKI_DIR}/${file} <==\n${body}`);
      this.say(`Preview of ${pages.size} pages (${summary}); write them with --out <dir>.`);
      return { ...base, pages: Object.fromEntries(pages) };
    }

    const { writeFileWhole } = await import("@kxm/memory-git");
    const dir = join(out, ...WIKI_DIR.split("/"));
    const written: string[] = [];
    const unchanged: string[] = [];
    for (const [file, body] of pages) {
      const path = join(dir, file);
      const before = await readFile(path, "utf8").catch(() => undefined);
      if (before === body) {
        unchanged.push(file);
        continue;
      }
      await writeFileWhole(path, body);
      written.push(file);
    }
    const removed: string[] = [];
    const kept: string[] = [];
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      if (pages.has(entry.name)) continue;
      const path = join(dir, entry.name);
      const generated =
        entry.isFile() &&
        entry.name.endsWith(".md") &&
        (await readFile(path, "utf8").catch(() => "")).startsWith(GENERATED_MARKER);
      if (generated) {
        await rm(path);
        removed.push(entry.name);
      } else {
        kept.push(entry.name);
      }
    }
    this.say(
      `Compiled the wiki of ${records.project} into ${WIKI_DIR}/ (${pages.size} pages: ${written.length} written, ` +
        `${unchanged.length} unchanged): ${summary}.`,
    );
    for (const file of removed)
      this.say(`Removed ${file}: an earlier compile wrote it and this one does not.`);
    for (const file of kept) this.say(`Kept ${file}: not written by kxm (kxm context wiki-lint reports it).`);
    return { ...base, out, written, unchanged, removed, kept };
  }
}
