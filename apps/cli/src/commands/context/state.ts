import type { ContextItem } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { clip, connectHub, count, hubFlag } from "../../hub-client.js";

export default class ContextState extends KxmCommand {
  static override summary =
    "Read a temporal state key: its current value, its value at a time, or its history.";
  static override description =
    "Prints the current value of KEY, or with --as-of the value that was current at that time (valid from <= t < " +
    "valid until), or with --history every retained value and proposal. A key with no value at that time fails " +
    "with not_found; two current values fail with state_contradiction until one is promoted. --json prints the " +
    "hub's answer unchanged: {state}, or {items} with --history. Authenticates with the admin token in " +
    "KXM_AUTH_TOKEN.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo release.branch",
    "<%= config.bin %> <%= command.id %> demo release.branch --json",
    "<%= config.bin %> <%= command.id %> demo release.branch --as-of 2026-09-01T00:00:00Z --json",
    "<%= config.bin %> <%= command.id %> demo release.branch --history",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    key: Args.string({ description: "The state key, such as release.branch", required: true }),
  };
  static override flags = {
    "as-of": Flags.string({
      description: "An ISO 8601 time with a zone, such as 2026-09-01T00:00:00Z: the value current then",
      exclusive: ["history"],
    }),
    history: Flags.boolean({
      description: "Every retained value and proposal of the key, oldest first",
      default: false,
    }),
    hub: hubFlag,
  };

  async run(): Promise<{ state: ContextItem } | { items: ContextItem[] }> {
    const { args, flags } = await this.parse(ContextState);
    const { client } = connectHub(flags.hub);
    const params = { project: args.project, key: args.key };
    if (flags.history) {
      const answer = await client.stateHistory({ params });
      this.say(`${args.key}: ${count(answer.items.length, "record")}`);
      for (const item of answer.items) {
        const from = item.validFrom ?? item.observedAt ?? "?";
        const window = item.validUntil === undefined ? `since ${from}` : `${from} to ${item.validUntil}`;
        this.say(`  ${(item.status ?? "-").padEnd(10)}  ${item.id}  ${window}  ${clip(item.summary, 120)}`);
      }
      return answer;
    }
    const asOf = flags["as-of"];
    const answer = await client.getState({ params, ...(asOf === undefined ? {} : { query: { asOf } }) });
    const { state } = answer;
    const source = state.provenance.sourceRef === undefined ? "" : ` (${state.provenance.sourceRef})`;
    this.say(`${args.key} = ${clip(state.summary, 400)}`);
    this.say(
      `  ${state.id}, ${state.status ?? "current"}, ${state.authority}, ${state.confidence}, ` +
        `origin ${state.provenance.sourceType}${source}`,
    );
    this.say(`  valid from ${state.validFrom ?? "?"}${state.validUntil ? ` until ${state.validUntil}` : ""}`);
    const evidence = state.evidenceRefs ?? [];
    this.say(`  evidence: ${evidence.length === 0 ? "none" : evidence.join(", ")}`);
    return answer;
  }
}
