// Revocations and tombstones on PostgreSQL (decision 0017), as `../sqlite/withhold.ts`.
import { KxmError } from "@kxm/contract";
import { and, eq, isNull } from "drizzle-orm";
import { contentSha256 } from "../domain/content.js";
import type { Pg } from "./db.js";
import { tombstones } from "./schema.js";

/** Refuses content an active tombstone forgot (`content_forgotten`); call it inside the write's transaction. */
export async function refuseForgotten(tx: Pg, project: string, summary: string): Promise<void> {
  const hash = contentSha256(summary);
  const [row] = await tx
    .select({ id: tombstones.id })
    .from(tombstones)
    .where(
      and(eq(tombstones.project, project), eq(tombstones.contentSha256, hash), isNull(tombstones.liftedAt)),
    );
  if (row !== undefined) {
    throw new KxmError(
      "content_forgotten",
      `this content was forgotten (tombstone ${row.id}); an operator must lift the tombstone before it is written again`,
    );
  }
}
