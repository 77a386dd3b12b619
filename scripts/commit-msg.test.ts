// The commit-msg checker (scripts/commit-msg.mjs) as a pure function: what it refuses and what it lets through. The
// hook it backs is installed and run for real by scripts/hooks.test.ts.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { AREAS, checkCommitMessage, MAX_SUBJECT } from "./commit-msg.mjs";

const ok = (message: string) => expect(checkCommitMessage(message)).toEqual([]);

describe("checkCommitMessage", () => {
  test("a subject with a known area and a body passes", () => {
    ok("hub: answer a checkout that became a file with packets\n\nIt answered 500 before.\n");
    ok("memory-git: read skills relative to --cwd\n");
    ok("state-store: add the journal index");
  });

  test("every area of the vocabulary is accepted, and only those", () => {
    for (const area of Object.keys(AREAS)) ok(`${area}: change something`);
    expect(checkCommitMessage("skills: store each copy as a valid Agent Skill")).toEqual([
      `"skills" is not an area; use one of: ${Object.keys(AREAS).join(", ")}.`,
    ]);
    expect(checkCommitMessage("Hub: capitalised area")[0]).toMatch(/^"Hub" is not an area/);
  });

  test(`a subject of ${MAX_SUBJECT} characters passes, one more is refused`, () => {
    expect(MAX_SUBJECT).toBe(72);
    const prefix = "docs: ";
    const exact = prefix + "x".repeat(MAX_SUBJECT - prefix.length);
    ok(exact);
    expect(checkCommitMessage(`${exact}y`)).toEqual([
      `The subject is ${MAX_SUBJECT + 1} characters long; keep it to ${MAX_SUBJECT} (say the rest in the body).`,
    ]);
  });

  test("length counts characters, not bytes", () => {
    const subject = `docs: ${"é".repeat(MAX_SUBJECT - 6)}`;
    expect(Buffer.byteLength(subject)).toBeGreaterThan(MAX_SUBJECT);
    ok(subject);
  });

  test("a subject without `area: ` is refused, and both problems are told at once", () => {
    const shape = "The subject must read `area: imperative summary`, with one area, a colon and a space.";
    expect(checkCommitMessage("Fix the hub")).toEqual([shape]);
    expect(checkCommitMessage("hub:no space")).toEqual([shape]);
    expect(checkCommitMessage("hub: ")).toEqual([shape]);
    expect(checkCommitMessage("hub, cli: two areas")).toEqual([shape]);
    expect(checkCommitMessage(`Docs: ${"a".repeat(80)}`)).toHaveLength(2);
  });

  test("the body must be separated from the subject by a blank line", () => {
    expect(checkCommitMessage("cli: exit 2 on a bad flag\nbecause oclif exits 1\n")).toEqual([
      "Leave a blank line between the subject and the body.",
    ]);
  });

  test("comment lines and everything below the scissors line are ignored, as git ignores them", () => {
    ok("# Please enter the commit message\n\ncli: exit 2 on a bad flag\n\nWhy.\n# On branch main\n");
    ok(
      "cli: exit 2 on a bad flag\n\n# ------------------------ >8 ------------------------\n" +
        "diff --git a/x b/x\nthis line is far longer than seventy-two characters and is not a message\n",
    );
    expect(checkCommitMessage("; a comment\ncli: x", { commentChar: ";" })).toEqual([]);
    expect(checkCommitMessage("# cli: x\nno area here")).toHaveLength(1);
  });

  test("an empty message is left to git, which refuses it", () => {
    ok("");
    ok("\n# only comments\n\n");
  });

  test("subjects git writes, and fixup commits, pass", () => {
    ok("Merge branch 'i17-habits' into main, with a name long enough to pass seventy-two characters");
    ok('Revert "hub: answer a checkout that became a file with packets, not 500"');
    ok("fixup! hub: answer a checkout that became a file with packets, not a 500 error page");
    ok("squash! cli: exit 2");
    ok("amend! cli: exit 2");
  });

  test("Windows line ends are read like Unix ones", () => {
    ok("cli: exit 2 on a bad flag\r\n\r\nWhy.\r\n");
  });

  test("docs/contributing.md lists exactly the checker's areas", () => {
    const guide = readFileSync(new URL("../docs/contributing.md", import.meta.url), "utf8");
    const listed = [...guide.matchAll(/^\| `([a-z-]+)` \|/gm)].map((match) => match[1]);
    expect(listed).toEqual(Object.keys(AREAS));
  });
});

describe("the commit-msg script", () => {
  const script = new URL("./commit-msg.mjs", import.meta.url).pathname;

  test("a message file it cannot read is a one-line error and exit 2, never a stack trace", () => {
    const run = spawnSync(process.execPath, [script, "/nonexistent/COMMIT_EDITMSG"], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      "commit-msg: cannot read the commit message file /nonexistent/COMMIT_EDITMSG (ENOENT)\n",
    );
  });

  test("no argument prints the usage and exits 2", () => {
    const run = spawnSync(process.execPath, [script], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: node scripts/commit-msg.mjs");
  });
});
