// The opt-in english analysis: a task's "deploying" finds a record that says "deployed", and the feedback of that
// record brings in another that shares its words but none of the task's.
import { assemblePacket, PoolIndex, tokenize } from "@kxm/arbiter";

const pool = [
  {
    id: "mem_canary",
    kind: "knowledge",
    project: "demo",
    summary: "We deployed the canary first and watched its error rate",
    provenance: { sourceType: "git" },
    authority: "evidence",
    confidence: "verified",
  },
  {
    id: "mem_rate",
    kind: "knowledge",
    project: "demo",
    summary: "A canary's error rate is watched for ten minutes",
    provenance: { sourceType: "git" },
    authority: "evidence",
    confidence: "probable",
  },
];
const request = { project: "demo", role: "implementer", task: "deploying a change" };

console.log(JSON.stringify(tokenize("deploying the errors", "standard")));
console.log(JSON.stringify(tokenize("deploying the errors", "english")));
for (const analysis of ["standard", "english"]) {
  const { audit } = assemblePacket(pool, request, { analysis });
  console.log(analysis, JSON.stringify(audit.selectedIds), JSON.stringify(audit.relevance));
}
// An index takes its profile once, when it is made, and answers as the plain function with the same profile.
const index = new PoolIndex(pool, { analysis: "english" });
console.log(index.analysis, JSON.stringify(index.assemble(request).audit.relevance));
