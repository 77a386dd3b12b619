import { type ContextItem, isKxmError, ProjectIdSchema, parseOrThrow } from "@kxm/contract";
import { parseContextItem } from "@kxm/provenance";
import type { SkillMetadata } from "./metadata.js";
import { inspectPromotedSkills } from "./verify.js";

/**
 * A skill as a context item (docs/reference/behaviour.md section 7): id `skill_<id>`, kind `skill`, summary
 * `<name>: <description>`, origin `git`, source reference `skill:<id>@<contentSha256>` (a digest that redaction
 * keeps), authority instruction, confidence verified, admitted through `parseContextItem`. A promoted skill has no
 * status; a proposed or rejected one keeps its status, so the arbiter treats it as inert or dead, never live.
 * Callers deliver only skills that verified: see {@link loadPromotedSkillItems}.
 */
export function skillToContextItem(metadata: SkillMetadata, project: string): ContextItem {
  return parseContextItem({
    id: `skill_${metadata.id}`,
    kind: "skill",
    project,
    summary: `${metadata.name}: ${metadata.description}`,
    provenance: { sourceType: "git", sourceRef: `skill:${metadata.id}@${metadata.contentSha256}` },
    authority: "instruction",
    confidence: "verified",
    ...(metadata.status === "promoted" ? {} : { status: metadata.status }),
  });
}

/**
 * Verifies every promoted skill and turns only the verified ones into items, sorted by id. A skill that fails
 * verification, or that `parseContextItem` refuses, is never an item: its id goes to `unverified`. An invalid
 * `project` is `invalid_request`.
 */
export async function loadPromotedSkillItems(
  root: string,
  project: string,
): Promise<{ items: ContextItem[]; unverified: string[] }> {
  // A bad project would fail every item; that is the caller's error, not the skills'.
  parseOrThrow(ProjectIdSchema, project, "invalid_request", "project");
  const items: ContextItem[] = [];
  const unverified: string[] = [];
  for (const result of await inspectPromotedSkills(root)) {
    if (!result.ok || result.metadata === undefined) {
      unverified.push(result.id);
      continue;
    }
    try {
      items.push(skillToContextItem(result.metadata, project));
    } catch (error) {
      if (!isKxmError(error)) throw error;
      unverified.push(result.id);
    }
  }
  return { items, unverified };
}
