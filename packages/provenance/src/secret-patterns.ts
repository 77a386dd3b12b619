/**
 * KXM's own secret patterns, on top of the secretlint preset (see `secretlint-ranges.ts`). Each pattern matches
 * the whole secret: for an assignment or a key/value pair that is the name too, so no half of a credential and
 * no hint of its length is left behind. Every pattern is global and anchored on a boundary so that a longer word
 * containing a prefix (`task-…`, `desk-…`) never matches.
 */
export interface SecretPattern {
  readonly kind: string;
  readonly pattern: RegExp;
}

// Credential characters of an HTTP bearer token (RFC 6750 b64token).
const B64TOKEN = "[A-Za-z0-9._~+/-]";

// A value after `=`: quoted (may hold spaces), a GitHub Actions expression, or a run without white space.
const ASSIGNED_VALUE = String.raw`(?:"[^"\n]*"|'[^'\n]*'|\$\{\{[^}\n]*\}\}|[^\s"'\x60]+)`;

// Names of environment variables whose value is a credential. `KXM_…KEY` is the only bare `KEY` suffix: a
// generic `*_KEY` (SORT_KEY, PRIMARY_KEY) is mostly innocent.
const SECRET_ENV_NAME = [
  "KXM_[A-Z0-9_]*(?:TOKEN|SECRET|KEY)",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  // A prefix may be glued on (`PGPASSWORD`, `MYSQLPASSWORD`) or joined by `_` (`DB_PASSWORD`).
  "(?:[A-Z][A-Z0-9_]*)?(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|SECRET_KEY|PRIVATE_KEY|AUTH_KEY|CLIENT_SECRET|CREDENTIALS)",
  // `MYSQL_PWD`, but never `PWD` or `OLDPWD` themselves (a folder, not a secret).
  "[A-Z][A-Z0-9]*_PWD",
].join("|");

// Names of a credential field in configuration, JSON or YAML, matched case-insensitively: snake, kebab and
// camel case alike (`api_key`, `api-key`, `apiKey`). A longer name that ends in one (`db_password`,
// `spring.datasource.password`) is the same field.
const SECRET_FIELD_NAMES =
  "password|passwd|passphrase|secret|client[_-]?secret|api[_-]?key|api[_-]?token|auth[_-]?token|access[_-]?token|refresh[_-]?token|secret[_-]?key|private[_-]?key|access[_-]?key|session[_-]?token";
const SECRET_FIELD = `(?:${SECRET_FIELD_NAMES})`;

// A command's own password flag, kept to the command that reads it so that `-p 8080` elsewhere stays: the
// flag and its value, quoted or not. The lookbehind sits after the flag, so it is only tried where one is.
const cliFlag = (commands: string, flag: string, glued: boolean): RegExp =>
  new RegExp(
    String.raw`${flag}(?<=(?<![A-Za-z0-9_-])(?:${commands})(?![A-Za-z0-9_-])[^\n|;&]{0,200}[ \t"']${flag})${
      glued ? "" : "[ \t]*"
    }(?:'[^'\n]+'|"[^"\n]+"|(?!\$)[^\s'"]{4,})`,
    "g",
  );

/**
 * The patterns, in no particular order: every match is collected, then overlapping matches are merged. A
 * distinctive prefix needs no right boundary: a token glued to the next word is still redacted.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // --- docs/reference/behaviour.md section 4 ---
  // OpenAI, Anthropic and other `sk-` keys. A digit is required so kebab-case words (`sk-learn`) stay.
  // A run of 20 letters and digits is required too, so a branch such as `feature/sk-1042-add-retry-to-upload-worker`
  // stays while `sk-proj-…`, `sk-ant-api03-…` and 32-hex `sk-…` keys go.
  {
    kind: "sk-key",
    pattern: /(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*?[A-Za-z0-9]{20})[A-Za-z0-9_-]{20,}/g,
  },
  { kind: "github-token", pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,255}/g },
  { kind: "github-fine-grained-token", pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}/g },
  { kind: "slack-token", pattern: /(?<![A-Za-z0-9])xox[a-z]-(?=[A-Za-z0-9-]*\d)[A-Za-z0-9-]{10,}/g },
  { kind: "slack-app-token", pattern: /(?<![A-Za-z0-9])xapp-\d-[A-Za-z0-9-]{10,}/g },
  {
    kind: "slack-webhook",
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{8,}/gi,
  },
  // `Bearer` then a credential: at least 8 characters with a digit, `_~+/` or an inner dot, so prose such as
  // "Bearer of bad news" or "Bearer authentication." is left alone.
  {
    kind: "bearer-credential",
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9])bearer[ \t]+(?=${B64TOKEN}*(?:[0-9_~+/]|\.[A-Za-z0-9]))${B64TOKEN}{8,}=*`,
      "gi",
    ),
  },
  { kind: "google-oauth-access-token", pattern: /(?<![A-Za-z0-9])ya29\.[A-Za-z0-9_-]{20,}/g },
  { kind: "google-refresh-token", pattern: /(?<![A-Za-z0-9/:])1\/\/[A-Za-z0-9_-]{20,}/g },
  {
    kind: "oauth-json-token-pair",
    pattern: /(["'])(?:access_token|refresh_token|id_token)\1\s*:\s*(["'])(?:(?!\2)[^\\\n]|\\.)+\2/g,
  },
  {
    kind: "secret-env-assignment",
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9_])(?:${SECRET_ENV_NAME})[ \t]*=[ \t]*${ASSIGNED_VALUE}`,
      "g",
    ),
  },
  // At least 64 hex digits between non-alphanumerics (`_` counts as a boundary). Skill digests and memory
  // revisions are exempted in `redact.ts`.
  { kind: "hex-64", pattern: /(?<![A-Za-z0-9])(?:0x)?[0-9A-Fa-f]{64,}(?![A-Za-z0-9])/g },

  // --- what a real scanner knows ---
  // A PEM private key: the whole block, or from BEGIN to the end of the key material when the END line is cut.
  {
    kind: "private-key-block",
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)/g,
  },
  {
    kind: "aws-access-key-id",
    pattern:
      /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  // A superset of secretlint's AWS secret pattern (no left boundary, white space may span lines): its reported
  // range is the length of the key measured from the start of the name, so only this match covers the key.
  {
    kind: "aws-secret-access-key",
    pattern:
      /["']?(?:aws_?)?(?:secret_?access_?key|session_?token|secret_?key)["']?\s*(?::|=>|=)\s*["']?[A-Za-z0-9/+=]{40,}["']?/gi,
  },
  {
    kind: "aws-session-token",
    pattern: /(?<![A-Za-z0-9/+])(?:FwoGZXIvYXdz|IQoJb3JpZ2luX2Vj)[A-Za-z0-9/+=]{40,}/g,
  },
  {
    kind: "jwt",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*){1,3}/g,
  },
  { kind: "stripe-key", pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: "stripe-webhook-secret", pattern: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/]{24,}/g },
  { kind: "npm-token", pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36,}/g },
  // An `.npmrc` auth token, unless it is a `${VAR}` reference.
  { kind: "npmrc-auth-token", pattern: /_auth(?:Token)?[ \t]*=[ \t]*(?!\$)[^\s"']+/g },
  {
    kind: "azure-storage-account-key",
    pattern: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{20,}={0,2}/g,
  },
  {
    kind: "azure-ad-client-secret",
    pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
  },
  {
    kind: "gitlab-token",
    pattern: /(?<![A-Za-z0-9_-])(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt)-[A-Za-z0-9_-]{20,}/g,
  },
  { kind: "google-api-key", pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/g },
  { kind: "google-oauth-client-secret", pattern: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{24,}/g },
  { kind: "hugging-face-token", pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/g },
  { kind: "pypi-token", pattern: /(?<![A-Za-z0-9_-])pypi-AgEI[A-Za-z0-9_-]{50,}/g },
  { kind: "sendgrid-key", pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/g },
  { kind: "twilio-api-key", pattern: /(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g },
  { kind: "mailgun-key", pattern: /(?<![A-Za-z0-9_-])key-[0-9a-zA-Z]{32}/g },
  {
    kind: "discord-webhook",
    pattern: /https?:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/gi,
  },
  // Also inside its API URL, where it follows `/bot`.
  { kind: "telegram-bot-token", pattern: /(?<=^|[^A-Za-z0-9]|\/bot)\d{8,10}:AA[A-Za-z0-9_-]{33}/g },
  { kind: "digitalocean-token", pattern: /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}/g },
  { kind: "vault-token", pattern: /(?<![A-Za-z0-9_.-])hv[sbr]\.[A-Za-z0-9_-]{24,}/g },
  {
    kind: "doppler-token",
    pattern: /(?<![A-Za-z0-9_.-])dp\.(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}/g,
  },
  { kind: "age-secret-key", pattern: /AGE-SECRET-KEY-1[0-9A-Z]{58}/g },
  { kind: "postman-api-key", pattern: /(?<![A-Za-z0-9])PMAK-[a-f0-9]{24}-[a-f0-9]{34}/g },
  { kind: "atlassian-api-token", pattern: /(?<![A-Za-z0-9])ATATT3[A-Za-z0-9_=-]{50,}/g },
  { kind: "grafana-token", pattern: /(?<![A-Za-z0-9_])(?:glsa|glc)_[A-Za-z0-9_=+/-]{32,}/g },
  { kind: "new-relic-key", pattern: /(?<![A-Za-z0-9])NRAK-[A-Z0-9]{27}/g },
  { kind: "databricks-token", pattern: /(?<![A-Za-z0-9])dapi[a-f0-9]{32}(?:-\d)?/g },
  { kind: "square-token", pattern: /(?<![A-Za-z0-9])sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}/g },
  // `user:password@` in any URL: the whole URL up to the host, whatever the scheme (https, postgres, redis…).
  {
    kind: "url-credentials",
    pattern:
      /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/?#@"'<>]*:[^\s/?#@"'<>]+@[^\s/?#"'<>]+/g,
  },
  // A credential in a URL query: the parameter and its value.
  {
    kind: "url-query-credential",
    pattern:
      /(?<=[?&;])(?:access_token|refresh_token|id_token|client_secret|api_key|apikey|api-key|token|password|passwd|secret|sig|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=[^&\s#"'<>]+/gi,
  },
  // An HTTP Authorization header with any scheme; the value needs a digit so prose stays.
  {
    kind: "authorization-header",
    pattern:
      /(?<![A-Za-z0-9_-])authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|bearer|token|bot|digest|apikey|sso-key|ssws)[ \t]+)?(?=[A-Za-z0-9._~+/=:-]*\d)[A-Za-z0-9._~+/=:-]{8,}/gi,
  },
  // Basic credentials are base64 of `user:password`, which may hold no digit, so they are matched on their own.
  {
    kind: "authorization-basic",
    pattern: /(?<![A-Za-z0-9_-])authorization["']?[ \t]*[:=][ \t]*["']?basic[ \t]+[A-Za-z0-9+/]{8,}={0,2}/gi,
  },
  // `password: hunter2024` style pairs in prose or config; the value needs 8 characters and a digit, so
  // "password: required" and "token: refresh the page" stay.
  // The name may carry a prefix (`db_password`, `spring.datasource.password`, `--password`) and may follow a
  // JSON-escaped line break (`\\npassword = …` inside a JSON string).
  {
    kind: "password-pair",
    pattern: new RegExp(
      String.raw`(?:(?<![A-Za-z0-9_.\\-])|(?<=\\[nrt]))["']?[A-Za-z0-9_.-]*?${SECRET_FIELD}["']?[ \t]*[:=][ \t]*["']?(?=[^\s"',;<>]*\d)[^\s"',;<>]{8,}["']?`,
      "gi",
    ),
  },
  // A quoted sensitive key with a quoted value (JSON, YAML, Python): any non-empty value.
  {
    kind: "quoted-secret-pair",
    pattern: new RegExp(
      String.raw`(["'])[A-Za-z0-9_.-]*?(?:${SECRET_FIELD_NAMES}|token)\1\s*:\s*(["'])(?:(?!\2)[^\\\n]|\\.)+\2`,
      "gi",
    ),
  },
  // A credential name and its value with only white space between (`.netrc`'s `password <value>`, "auth token
  // <value>" in prose): the value must look generated, 8 or more characters with a digit and a letter.
  {
    kind: "spaced-secret-pair",
    pattern:
      /(?<![A-Za-z0-9_-])(?:password|passwd|passphrase|auth[ _-]?token|api[ _-]?token|api[ _-]?key|secret[ _-]?key|client[ _-]?secret)(?:[ \t]+is)?[ \t]+(?=[^\s"'<>,;]*\d)(?=[^\s"'<>,;]*[A-Za-z])[^\s"'<>,;]{8,}/gi,
  },
  // An environment variable's name as a quoted JSON key, as in an MCP server's `env` (`"KXM_AGENT_KEY": "…"`).
  {
    kind: "quoted-secret-env",
    pattern: new RegExp(String.raw`(["'])(?:${SECRET_ENV_NAME})\1\s*:\s*(["'])(?:(?!\2)[^\\\n]|\\.)+\2`, "g"),
  },
  // The same in a Kubernetes or Compose env list: `- name: DB_PASSWORD` then `value: …` on the next line.
  {
    kind: "env-list-secret",
    pattern: new RegExp(
      String.raw`name:[ \t]*["']?(?:${SECRET_ENV_NAME})["']?[ \t]*\r?\n[ \t]*value:[ \t]*${ASSIGNED_VALUE}`,
      "g",
    ),
  },
  // An unquoted `NAME: value` (YAML) for an environment name that is a credential: the value needs a digit.
  {
    kind: "secret-env-yaml",
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9_])(?:${SECRET_ENV_NAME}):[ \t]+(?=[^\s"']*\d)[^\s"']{8,}`,
      "g",
    ),
  },
  // An XML element that holds a credential: `<password>…</password>`, `<db.password>`, `<apiKey>`; not a
  // template reference such as `{{ .Values.token }}` or `${env.PASSWORD}`.
  {
    kind: "xml-secret-element",
    pattern: new RegExp(
      String.raw`<([A-Za-z0-9_.:-]*?(?:${SECRET_FIELD_NAMES}|token))>(?![ \t]*(?:\{\{|\$\{))[^<\n]+</\1>`,
      "gi",
    ),
  },
  // Docker's `config.json`: `"auth": "<base64 of user:password>"`.
  { kind: "docker-config-auth", pattern: /(["'])auth\1\s*:\s*(["'])[A-Za-z0-9+/]{12,}={0,2}\2/g },
  // curl's `-u user:password` / `--user user:password` (Twilio's `AC…:<token>`, Mailgun's `api:<key>`).
  {
    kind: "curl-user-credentials",
    pattern:
      /(?<![A-Za-z0-9_-])(?:-u|--user)(?:[ \t]+|=)(?:'[^'\s:]+:[^'\n]{6,}'|"[^"\s:]+:[^"\n]{6,}"|[^\s:'"$-][^\s:'"]*:[^\s'"$][^\s'"]{5,})/g,
  },
  // A long option that takes a credential, with `=` or a space: `--client-secret X`, `--password=X`.
  {
    kind: "cli-secret-option",
    pattern:
      /(?<![A-Za-z0-9_-])--(?:password|passwd|client-secret|api-key|api-token|auth-token|access-token|secret-key|token)(?:=|[ \t]+)(?:'[^'\n]+'|"[^"\n]+"|(?!--|\$)[^\s'"]{6,})/g,
  },
  { kind: "mysql-password-flag", pattern: cliFlag("mysql|mysqldump|mysqladmin|mysqlsh|mariadb", "-p", true) },
  { kind: "sshpass-password-flag", pattern: cliFlag("sshpass", "-p", false) },
  { kind: "redis-cli-password-flag", pattern: cliFlag("redis-cli", "-a", false) },
  // Okta's API token scheme, also outside an Authorization header.
  { kind: "okta-ssws-token", pattern: /(?<![A-Za-z0-9])SSWS[ \t]+[A-Za-z0-9_-]{20,}/g },
  // Mailgun's current key shape: 32 hex, then two groups of 8 (a UUID's groups are 8-4-4-4-12).
  {
    kind: "mailgun-key-v2",
    pattern: /(?<![A-Za-z0-9-])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}(?![A-Za-z0-9-])/g,
  },
  // KXM's own credentials: an agent key `kxm_` and an operator token `kxo_`, each 43 base64url characters.
  {
    kind: "kxm-credential",
    pattern: /(?<![A-Za-z0-9_-])kx[mo]_(?=[A-Za-z0-9_-]{0,42}[A-Z0-9])[A-Za-z0-9_-]{43}/g,
  },
];
