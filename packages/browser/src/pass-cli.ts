// The Steel API key from pass-cli, for a vault and item the operator configured. No shell: the arguments go to
// execFile as an array, and the key comes back on standard output, never through argv.
import { execFile } from "node:child_process";
import { KxmError } from "@kxm/contract";
import { redactSecret } from "./redact.js";

/** How long pass-cli may take: 10 seconds. */
export const PASS_CLI_TIMEOUT_MS = 10_000;

export interface PassCliOptions {
  /** The program to run: `pass-cli` on PATH unless told otherwise. */
  command?: string;
  timeoutMs?: number;
  /** The environment pass-cli runs with (its own session variables); the parent's by default. */
  env?: Record<string, string>;
}

function failed(message: string): KxmError {
  return new KxmError("browser_key_lookup_failed", message);
}

/** The first line of `text`, at most 200 characters. */
function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}

/**
 * Runs `pass-cli item view --vault-name <vault> --item-title <item> --field <field>` and gives its standard output,
 * trimmed. `browser_key_lookup_failed` when pass-cli is missing, fails, times out or prints nothing.
 */
export function passCliLookup(
  vault: string,
  item: string,
  field: string,
  options: PassCliOptions = {},
): Promise<string> {
  const command = options.command ?? "pass-cli";
  const timeout = options.timeoutMs ?? PASS_CLI_TIMEOUT_MS;
  const args = ["item", "view", "--vault-name", vault, "--item-title", item, "--field", field];
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        timeout,
        killSignal: "SIGKILL",
        maxBuffer: 1024 * 1024,
        windowsHide: true,
        ...(options.env ? { env: options.env } : {}),
      },
      (error, stdout, stderr) => {
        const what = `pass-cli item view (vault "${vault}", item "${item}", field "${field}")`;
        if (error !== null) {
          const { code, killed, signal } = error as NodeJS.ErrnoException & {
            killed?: boolean;
            signal?: string;
          };
          if (code === "ENOENT") {
            reject(failed(`${what}: ${command} is not installed (not on PATH)`));
          } else if (killed === true || signal === "SIGKILL") {
            reject(failed(`${what}: no answer within ${timeout} ms`));
          } else {
            const detail = redactSecret(firstLine(String(stderr)), String(stdout).trim());
            const status =
              typeof code === "number" ? `exited with status ${code}` : `failed (${String(code ?? signal)})`;
            reject(failed(`${what} ${status}${detail === "" ? "" : `: ${detail}`}`));
          }
          return;
        }
        const key = String(stdout).trim();
        if (key === "") reject(failed(`${what} printed nothing`));
        else resolve(key);
      },
    );
  });
}
