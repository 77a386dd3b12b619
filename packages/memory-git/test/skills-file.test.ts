import { describe, expect, it } from "vitest";
import {
  normalizeSkillMarkdown,
  parseSkillMarkdown,
  skillContentSha256,
  skillId,
} from "../src/skills/skill-file.js";
import { expectKxmRejection, sha256, skillMarkdown } from "./support/skills-fixtures.js";

const HASH = "0123456789abcdef".repeat(4);

describe("normalizeSkillMarkdown and skillContentSha256", () => {
  it("strips a BOM, turns CRLF and CR into LF and ends with exactly one newline", () => {
    expect(normalizeSkillMarkdown("\uFEFFa\r\nb\rc\n\n\n")).toBe("a\nb\nc\n");
    expect(normalizeSkillMarkdown("a")).toBe("a\n");
  });

  it("keeps white space at line ends, since two trailing spaces are a Markdown line break", () => {
    expect(normalizeSkillMarkdown("line one  \nline two\n")).toBe("line one  \nline two\n");
    expect(skillContentSha256("line one  \nline two\n")).not.toBe(skillContentSha256("line one\nline two\n"));
  });

  it("gives a Windows and a Unix checkout the same hash", () => {
    const unix = skillMarkdown();
    const windows = `\uFEFF${unix.replace(/\n/g, "\r\n")}`;
    expect(skillContentSha256(windows)).toBe(skillContentSha256(unix));
    expect(skillContentSha256(unix)).toBe(sha256(unix));
    expect(skillContentSha256(`${unix}\n\n`)).toBe(skillContentSha256(unix));
  });

  it("changes when one word changes", () => {
    const edited = skillMarkdown(
      {},
      "# Release notes\n\nCollect merged PRs, group them by label, write NEWS.md.\n",
    );
    expect(skillContentSha256(edited)).not.toBe(skillContentSha256(skillMarkdown()));
  });
});

describe("skillId", () => {
  it("is the name's slug, a dot and the first 12 hex digits", () => {
    expect(skillId("release-notes", HASH)).toBe("release-notes.0123456789ab");
  });

  it("lowercases, collapses other characters to one hyphen and trims hyphens", () => {
    expect(skillId("  Release__Notes (v2)!  ", HASH)).toBe("release-notes-v2.0123456789ab");
  });

  it("cuts the slug to 40 characters and trims a hyphen left at the cut", () => {
    const name = `${"a".repeat(39)}-bcd`;
    expect(skillId(name, HASH)).toBe(`${"a".repeat(39)}.0123456789ab`);
    expect(skillId("x".repeat(64), HASH)).toBe(`${"x".repeat(40)}.0123456789ab`);
  });

  it("uses `skill` when nothing is left of the name", () => {
    expect(skillId("---", HASH)).toBe("skill.0123456789ab");
    expect(skillId("ÉÈ", HASH)).toBe("skill.0123456789ab");
  });

  it("refuses a hash that is not 64 lowercase hex digits", async () => {
    await expectKxmRejection(() => skillId("a", "ABC"), "skill_invalid");
  });
});

describe("parseSkillMarkdown", () => {
  it("returns the front matter and the body", () => {
    const text = skillMarkdown({ license: "MIT", compatibility: "Needs git", metadata: "{ author: kxm }" });
    const parsed = parseSkillMarkdown(text);
    expect(parsed.frontMatter).toEqual({
      name: "release-notes",
      description: "Draft release notes from merged pull requests",
      license: "MIT",
      compatibility: "Needs git",
      metadata: { author: "kxm" },
    });
    expect(parsed.body).toBe(
      "\n# Release notes\n\nCollect merged PRs, group them by label, write CHANGELOG.md.\n",
    );
  });

  it("reads a CRLF file with a BOM", () => {
    const text = `\uFEFF${skillMarkdown().replace(/\n/g, "\r\n")}`;
    expect(parseSkillMarkdown(text).frontMatter.name).toBe("release-notes");
  });

  it.each([
    ["no front matter", "# Just a heading\n", "front matter: missing"],
    ["front matter not at the top", `\n${skillMarkdown()}`, "front matter: missing"],
    ["YAML that does not parse", "---\nname: [unclosed\n---\n", "YAML does not parse"],
    [
      "a duplicate key",
      "---\nname: a\nname: b\ndescription: d\n---\n",
      "YAML does not parse (DUPLICATE_KEY)",
    ],
    ["a YAML list", "---\n- a\n- b\n---\n", "must be a YAML mapping"],
    ["an empty block", "---\n---\n", "must be a YAML mapping"],
    ["a missing name", "---\ndescription: d\n---\n", "front matter name: is required"],
    ["a missing description", "---\nname: a\n---\n", "front matter description: is required"],
    [
      "an empty description",
      "---\nname: a\ndescription: '   '\n---\n",
      "front matter description: must not be empty",
    ],
    ["a number as name", "---\nname: 12\ndescription: d\n---\n", "front matter name: must be a string"],
    [
      "an uppercase name",
      "---\nname: Release\ndescription: d\n---\n",
      "front matter name: must be lowercase",
    ],
    ["a leading hyphen", "---\nname: -a\ndescription: d\n---\n", "front matter name: must be lowercase"],
    ["a trailing hyphen", "---\nname: a-\ndescription: d\n---\n", "front matter name: must be lowercase"],
    ["a double hyphen", "---\nname: a--b\ndescription: d\n---\n", "front matter name: must be lowercase"],
    ["a 65-character name", `---\nname: ${"a".repeat(65)}\ndescription: d\n---\n`, "at most 64 characters"],
    ["a 1025-character description", `---\nname: a\ndescription: ${"d".repeat(1025)}\n---\n`, "at most 1024"],
    [
      "a 501-character compatibility",
      `---\nname: a\ndescription: d\ncompatibility: ${"c".repeat(501)}\n---\n`,
      "at most 500",
    ],
    [
      "a metadata value that is not a string",
      "---\nname: a\ndescription: d\nmetadata:\n  n: 1\n---\n",
      "front matter metadata.n",
    ],
    [
      "a key outside the Agent Skills fields",
      "---\nname: a\ndescription: d\nmodel: opus\n---\n",
      "model: not an Agent Skills field",
    ],
  ])("refuses %s with skill_invalid, naming the file", async (_, text, rule) => {
    const error = await expectKxmRejection(
      () => parseSkillMarkdown(text, "my-skill/SKILL.md"),
      "skill_invalid",
    );
    expect(error.message).toContain("my-skill/SKILL.md");
    expect(error.message).toContain(rule);
    expect(error.status).toBe(400);
  });

  it("never echoes the value it refuses", async () => {
    const error = await expectKxmRejection(
      () => parseSkillMarkdown("---\nname: Secret-Looking-Value\ndescription: d\n---\n"),
      "skill_invalid",
    );
    expect(error.message).not.toContain("Secret-Looking-Value");
  });

  it.each(["tools", "permissions", "allow", "token", "allowed-tools", "hooks"])(
    "refuses the control-plane field %s with 403 context_authority_violation",
    async (field) => {
      const error = await expectKxmRejection(
        () => parseSkillMarkdown(skillMarkdown({ [field]: "Bash(git:*)" })),
        "context_authority_violation",
      );
      expect(error.status).toBe(403);
      expect(error.message).toContain(`"${field}"`);
      expect(error.message).not.toContain("Bash");
    },
  );
});
