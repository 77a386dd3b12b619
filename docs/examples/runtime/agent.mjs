// A toy agent for the guide: reads its prompt on stdin and reports evidence and an outcome.
let prompt = "";
for await (const chunk of process.stdin) prompt += chunk;
const step = process.env.KXM_STEP_ID;
console.log(`Read a prompt of ${prompt.length} characters for step ${step}.`);
if (step === "plan") console.log("Evidence: plan docs/plan.md");
else console.log("Evidence: diff pr:12\nEvidence: test-log ci:run/42");
console.log("Outcome: done");
