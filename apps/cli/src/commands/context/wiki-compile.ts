import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Args, Flags } from "@oclif/core";
import { KxmCommand, UsageError } from "../../base.js";
import { connectHub, count, hubFlag } from "../../hub-client.js";
import { replaceWiki } from "../../wiki-files.js";

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
  /** Other files in the wiki folder, left alone (wiki-lint reports `.md` ones as orphan pages). */
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
    "written under <dir>/.kxm/knowledge/wiki/ all at once: the pages are written to a staging folder that " +
    "then replaces the wiki folder, so a failure leaves the previous wiki as it was. Pages an earlier compile " +
    "wrote that are no longer produced are removed; other files in the folder are kept. The output is byte-identical for the same records, except the Compiled at " +
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

    const dir = join(out, ...WIKI_DIR.split("/"));
    const { written, unchanged, removed, kept } = await replaceWiki(dir, pages, GENERATED_MARKER);
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
