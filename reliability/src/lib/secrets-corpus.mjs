// @ts-check
// The redaction corpus (issue 16): fake secrets of more than 50 kinds, each in several contexts, and benign
// look-alikes that must come back byte-identical. Everything is generated from a seed at run time, from each
// secret's format: this file holds prefixes and shapes, never a literal secret, so that a secret scanner on the
// repository's host has nothing to flag. Imported by the provenance test and the `secrets` scenario.
import { seededRandom } from "./random.mjs";

/**
 * @typedef {object} SecretCase
 * @property {string} kind the secret's kind, such as "github-classic-token"
 * @property {string} context where it appears: sentence, json, shell, log, yaml, header, ...
 * @property {string} text the text to redact
 * @property {string} secret the secret characters: redaction must leave no run of 8 of them
 */

/**
 * @typedef {object} BenignCase
 * @property {string} kind what it looks like, such as "commit-sha"
 * @property {string} text a text redaction must leave byte-identical
 */

/** The shortest run of a secret's characters that counts as a leak. */
export const LEAK_RUN = 8;

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const BASE62 = UPPER + LOWER + DIGITS;
const BASE64URL = `${BASE62}-_`;
const BASE64 = `${BASE62}+/`;
const HEX = "0123456789abcdef";

/** @typedef {() => number} Random */

/** @param {Random} rnd @param {string} alphabet @param {number} length */
function pick(rnd, alphabet, length) {
  let out = "";
  for (let i = 0; i < length; i += 1) out += alphabet[Math.floor(rnd() * alphabet.length)];
  return out;
}

/** @param {Random} rnd @param {number} low @param {number} high */
const between = (rnd, low, high) => low + Math.floor(rnd() * (high - low + 1));

/** A run of `alphabet` with at least one digit, one lower and one upper letter where the alphabet has them. */
function mixed(/** @type {Random} */ rnd, /** @type {string} */ alphabet, /** @type {number} */ length) {
  for (;;) {
    const value = pick(rnd, alphabet, length);
    const classes = [DIGITS, LOWER, UPPER].filter((c) => [...c].some((ch) => alphabet.includes(ch)));
    if (classes.every((c) => [...value].some((ch) => c.includes(ch)))) return value;
  }
}

/** A password a person or a generator would choose: 12 to 20 characters, a digit among them. */
const password = (/** @type {Random} */ rnd) => mixed(rnd, `${BASE62}_.-`, between(rnd, 12, 20));
const b64 = (/** @type {string} */ text) => Buffer.from(text, "utf8").toString("base64");
const b64url = (/** @type {unknown} */ value) => Buffer.from(JSON.stringify(value)).toString("base64url");
const user = (/** @type {Random} */ rnd) =>
  ["deploy", "ci-bot", "app", "admin", "svc_reports", "alice", "build"][between(rnd, 0, 6)] ?? "app";
const host = (/** @type {Random} */ rnd) =>
  ["db.internal.example.com", "10.0.3.17", "staging-db.example.net", "localhost", "pg-main.svc"][
    between(rnd, 0, 4)
  ] ?? "localhost";

/** @typedef {{ secret: string, contexts: Record<string, string> }} Made */
/** @typedef {{ kind: string, make: (rnd: Random) => Made }} Kind */

/** A distinctive token in the contexts any token turns up in. @param {string} v */
function tokenContexts(v) {
  return {
    sentence: `The deploy kept failing until I rotated the credential ${v} in the project settings.`,
    json: `{"name": "ci-deploy", "value": "${v}", "scopes": ["read", "write"]}`,
    shell: `printf '%s\\n' '${v}' > ~/.config/tool/credential && tool sync --quiet`,
    log: `2026-11-30T08:15:02.113Z WARN worker[812]: upstream rejected credential ${v} (401)`,
    yaml: `deploy:\n  region: eu-west-1\n  credential: ${v}\n  retries: 3`,
  };
}

/** A token kind built from its format. @param {string} kind @param {(rnd: Random) => string} token @returns {Kind} */
const token = (kind, token) => ({
  kind,
  make: (rnd) => {
    const v = token(rnd);
    return { secret: v, contexts: tokenContexts(v) };
  },
});

/** An environment variable holding a secret, in its env, JSON, shell, log and YAML forms. @returns {Kind} */
function envSecret(
  /** @type {string} */ kind,
  /** @type {string} */ name,
  /** @type {(rnd: Random) => string} */ value,
) {
  return {
    kind,
    make: (rnd) => {
      const v = value(rnd);
      return {
        secret: v,
        contexts: {
          sentence: `Locally I ran it with ${name}=${v} exported, and it worked.`,
          json: `{"env": {"NODE_ENV": "production", "${name}": "${v}"}}`,
          shell: `export ${name}=${v}\nnode dist/server.js`,
          log: `2026-11-30 08:15:02 DEBUG config: loaded ${name}=${v} from .env`,
          yaml: `env:\n  - name: ${name}\n    value: "${v}"`,
          dotenv: `# .env\n${name}="${v}"\nPORT=8080`,
        },
      };
    },
  };
}

/** A database URL with a password. @returns {Kind} */
function dbUrl(/** @type {string} */ kind, /** @type {string} */ scheme, /** @type {string} */ tail) {
  return {
    kind,
    make: (rnd) => {
      const v = password(rnd);
      const url = `${scheme}://${user(rnd)}:${v}@${host(rnd)}${tail}`;
      return {
        secret: v,
        contexts: {
          sentence: `The job connects to ${url} and times out after 30 s.`,
          json: `{"datasource": {"url": "${url}", "pool": 10}}`,
          shell: `psql-like-client "${url}" -c 'select 1'`,
          log: `2026-11-30T08:15:02Z ERROR db: connection to ${url} refused`,
          yaml: `database:\n  url: ${url}\n  pool: 10`,
        },
      };
    },
  };
}

/** A PEM private key block with random key material. @param {string} label */
function pemBlock(/** @type {Random} */ rnd, label) {
  const lines = Array.from({ length: 6 }, () => pick(rnd, BASE64, 64));
  const body = `${lines.join("\n")}\n${pick(rnd, BASE64, 20)}==`;
  const dashes = "-----";
  return {
    block: `${dashes}BEGIN ${label}${dashes}\n${body}\n${dashes}END ${label}${dashes}`,
    body,
  };
}

/** @returns {Kind} */
function privateKey(/** @type {string} */ kind, /** @type {string} */ label) {
  return {
    kind,
    make: (rnd) => {
      const { block, body } = pemBlock(rnd, label);
      return {
        secret: body,
        contexts: {
          sentence: `I pasted the key by mistake:\n${block}\nplease rotate it.`,
          json: JSON.stringify({ type: "service_account", private_key: `${block}\n` }),
          shell: `cat > ~/.ssh/id_deploy <<'EOF'\n${block}\nEOF\nchmod 600 ~/.ssh/id_deploy`,
          log: `2026-11-30T08:15:02Z DEBUG tls: loaded key ${JSON.stringify(block)}`,
          yaml: `tls:\n  key: |\n${block
            .split("\n")
            .map((line) => `    ${line}`)
            .join("\n")}`,
        },
      };
    },
  };
}

/** Every kind of secret in the corpus. @type {readonly Kind[]} */
export const SECRET_KINDS = [
  // --- cloud ---
  token("aws-access-key-id", (r) => `AKIA${pick(r, UPPER + DIGITS, 16)}`),
  token("aws-temporary-access-key-id", (r) => `ASIA${pick(r, UPPER + DIGITS, 16)}`),
  {
    kind: "aws-secret-access-key",
    make: (r) => {
      const v = mixed(r, BASE64, 40);
      return {
        secret: v,
        contexts: {
          sentence: `The credentials file had aws_secret_access_key = ${v} under [default].`,
          json: `{"AccessKeyId": "AKIA${pick(r, UPPER + DIGITS, 16)}", "SecretAccessKey": "${v}"}`,
          shell: `export AWS_SECRET_ACCESS_KEY=${v}\naws s3 ls`,
          log: `2026-11-30T08:15:02Z DEBUG boto: aws_secret_access_key=${v}`,
          ini: `[default]\naws_access_key_id = AKIA${pick(r, UPPER + DIGITS, 16)}\naws_secret_access_key = ${v}`,
        },
      };
    },
  },
  token("aws-session-token", (r) => `IQoJb3JpZ2luX2Vj${pick(r, BASE64, 120)}`),
  token("google-api-key", (r) => `AIza${pick(r, `${BASE62}_-`, 35)}`),
  token("google-oauth-access-token", (r) => `ya29.${pick(r, `${BASE62}_-`, 120)}`),
  token("google-oauth-client-secret", (r) => `GOCSPX-${pick(r, `${BASE62}_-`, 28)}`),
  {
    kind: "azure-storage-connection-string",
    make: (r) => {
      const v = `${mixed(r, BASE64, 86)}==`;
      const conn = `DefaultEndpointsProtocol=https;AccountName=kxmstore;AccountKey=${v};EndpointSuffix=core.windows.net`;
      return {
        secret: v.slice(0, 86),
        contexts: {
          sentence: `The function app uses ${conn} for its queue.`,
          json: `{"AzureWebJobsStorage": "${conn}"}`,
          shell: `az storage blob list --connection-string "${conn}"`,
          log: `2026-11-30T08:15:02Z INFO storage: using ${conn}`,
        },
      };
    },
  },
  token(
    "azure-ad-client-secret",
    (r) => `${pick(r, BASE62, 3)}8Q~${pick(r, `${BASE62}_~.-`, 31)}${pick(r, BASE62, 3)}`,
  ),
  token("digitalocean-token", (r) => `dop_v1_${pick(r, HEX, 64)}`),
  token("hashicorp-vault-token", (r) => `hvs.${pick(r, `${BASE62}_-`, 90)}`),
  token("doppler-token", (r) => `dp.st.prd.${pick(r, BASE62, 40)}`),
  token("databricks-token", (r) => `dapi${pick(r, HEX, 32)}`),
  // --- version control and package registries ---
  token("github-classic-token", (r) => `ghp_${pick(r, BASE62, 36)}`),
  token("github-oauth-token", (r) => `gho_${pick(r, BASE62, 36)}`),
  token("github-app-token", (r) => `ghs_${pick(r, BASE62, 36)}`),
  token("github-fine-grained-token", (r) => `github_pat_${pick(r, BASE62, 22)}_${pick(r, BASE62, 59)}`),
  token("gitlab-token", (r) => `glpat-${pick(r, `${BASE62}_-`, 20)}`),
  token("npm-token", (r) => `npm_${pick(r, BASE62, 36)}`),
  token("pypi-token", (r) => `pypi-AgEIcHlwaS5vcmc${pick(r, `${BASE62}_-`, 70)}`),
  token("hugging-face-token", (r) => `hf_${pick(r, BASE62, 34)}`),
  {
    kind: "npmrc-auth-token",
    make: (r) => {
      const v = pick(r, BASE62, 36);
      const line = `//registry.npmjs.org/:_authToken=${v}`;
      return {
        secret: v,
        contexts: {
          sentence: `My .npmrc had ${line} in it.`,
          json: `{"npmrc": "${line}"}`,
          shell: `echo "${line}" >> ~/.npmrc`,
          log: `2026-11-30T08:15:02Z DEBUG npm: config ${line}`,
        },
      };
    },
  },
  // --- chat and SaaS ---
  token(
    "slack-bot-token",
    (r) => `xoxb-${pick(r, DIGITS, 12)}-${pick(r, DIGITS, 13)}-${pick(r, BASE62, 24)}`,
  ),
  token(
    "slack-user-token",
    (r) => `xoxp-${pick(r, DIGITS, 12)}-${pick(r, DIGITS, 12)}-${pick(r, DIGITS, 13)}-${pick(r, HEX, 32)}`,
  ),
  {
    kind: "slack-webhook-url",
    make: (r) => {
      const v = `T${pick(r, UPPER + DIGITS, 10)}/B${pick(r, UPPER + DIGITS, 10)}/${pick(r, BASE62, 24)}`;
      const url = `https://hooks.slack.com/services/${v}`;
      return { secret: v, contexts: urlContexts(url) };
    },
  },
  {
    kind: "discord-webhook-url",
    make: (r) => {
      const v = pick(r, `${BASE62}_-`, 68);
      const url = `https://discord.com/api/webhooks/${pick(r, DIGITS, 18)}/${v}`;
      return { secret: v, contexts: urlContexts(url) };
    },
  },
  {
    kind: "telegram-bot-token",
    make: (r) => {
      const v = `${pick(r, DIGITS, 10)}:AA${pick(r, `${BASE62}_-`, 33)}`;
      return {
        secret: v,
        contexts: {
          ...urlContexts(`https://api.telegram.org/bot${v}/sendMessage?chat_id=-1001234567`),
          sentence: `The alert bot uses ${v} and posts to the ops channel.`,
        },
      };
    },
  },
  token("stripe-secret-key", (r) => `sk_live_${pick(r, BASE62, 24)}`),
  token("stripe-restricted-key", (r) => `rk_live_${pick(r, BASE62, 24)}`),
  token("stripe-webhook-secret", (r) => `whsec_${pick(r, BASE62, 32)}`),
  token("sendgrid-key", (r) => `SG.${pick(r, `${BASE62}_-`, 22)}.${pick(r, `${BASE62}_-`, 43)}`),
  token("twilio-api-key", (r) => `SK${pick(r, HEX, 32)}`),
  {
    kind: "twilio-auth-token",
    make: (r) => {
      const sid = `AC${pick(r, HEX, 32)}`;
      const v = pick(r, HEX, 32);
      return {
        secret: v,
        contexts: {
          sentence: `Twilio's console shows account ${sid} with auth token ${v}.`,
          json: `{"accountSid": "${sid}", "authToken": "${v}"}`,
          shell: `curl -X POST https://api.twilio.com/2010-04-01/Accounts/${sid}/Messages.json -u ${sid}:${v} --data-urlencode "Body=hi"`,
          log: `2026-11-30T08:15:02Z DEBUG sms: TWILIO_AUTH_TOKEN=${v} account=${sid}`,
          yaml: `twilio:\n  accountSid: ${sid}\n  authToken: ${v}`,
        },
      };
    },
  },
  {
    kind: "mailgun-key",
    make: (r) => {
      const v = `${pick(r, HEX, 32)}-${pick(r, HEX, 8)}-${pick(r, HEX, 8)}`;
      return {
        secret: v,
        contexts: {
          sentence: `Mailgun's sending key is ${v} for the mg domain.`,
          json: `{"mailgun": {"domain": "mg.example.com", "apiKey": "${v}"}}`,
          shell: `curl -s --user 'api:${v}' https://api.mailgun.net/v3/mg.example.com/messages -F to=ops@example.com`,
          log: `2026-11-30T08:15:02Z DEBUG mail: MAILGUN_API_KEY=${v}`,
        },
      };
    },
  },
  token("mailgun-legacy-key", (r) => `key-${pick(r, BASE62, 32)}`),
  {
    kind: "okta-api-token",
    make: (r) => {
      const v = `00${pick(r, `${BASE62}_-`, 40)}`;
      return {
        secret: v,
        contexts: {
          sentence: `Okta calls need the header Authorization: SSWS ${v} on every request.`,
          json: `{"orgUrl": "https://kxm.okta.com", "apiToken": "${v}"}`,
          shell: `curl -H "Authorization: SSWS ${v}" https://kxm.okta.com/api/v1/users`,
          log: `2026-11-30T08:15:02Z DEBUG okta: request headers {"Authorization":"SSWS ${v}"}`,
          header: `Authorization: SSWS ${v}`,
        },
      };
    },
  },
  token("shopify-access-token", (r) => `shpat_${pick(r, HEX, 32)}`),
  token("linear-api-key", (r) => `lin_api_${pick(r, BASE62, 40)}`),
  token(
    "openai-project-key",
    (r) => `sk-proj-${pick(r, `${BASE62}_-`, 74)}T3BlbkFJ${pick(r, `${BASE62}_-`, 74)}`,
  ),
  token("openai-legacy-key", (r) => `sk-${pick(r, BASE62, 20)}T3BlbkFJ${pick(r, BASE62, 20)}`),
  token("anthropic-api-key", (r) => `sk-ant-api03-${pick(r, `${BASE62}_-`, 93)}AA`),
  token(
    "atlassian-api-token",
    (r) => `ATATT3xFfGF0${pick(r, `${BASE62}_-`, 170)}=${pick(r, HEX, 8).toUpperCase()}`,
  ),
  token("postman-api-key", (r) => `PMAK-${pick(r, HEX, 24)}-${pick(r, HEX, 34)}`),
  token("new-relic-user-key", (r) => `NRAK-${pick(r, UPPER + DIGITS, 27)}`),
  token("grafana-service-account-token", (r) => `glsa_${pick(r, BASE62, 32)}_${pick(r, HEX, 8)}`),
  token("square-access-token", (r) => `sq0atp-${pick(r, `${BASE62}_-`, 22)}`),
  token("age-secret-key", (r) => `AGE-SECRET-KEY-1${pick(r, UPPER + DIGITS, 58)}`),
  envSecret("datadog-api-key", "DD_API_KEY", (r) => pick(r, HEX, 32)),
  // Kinds only secretlint's preset knows (KXM has no pattern of its own for them).
  token("docker-hub-access-token", (r) => `dckr_pat_${pick(r, `${BASE62}_-`, 26)}${pick(r, BASE62, 1)}`),
  token("figma-access-token", (r) => `figd_${pick(r, `${BASE62}_-`, 40)}${pick(r, BASE62, 1)}`),
  token("groq-api-key", (r) => `gsk_${pick(r, BASE62, 52)}`),
  token("notion-integration-token", (r) => `ntn_${pick(r, DIGITS, 11)}${pick(r, BASE62, 35)}`),
  token("vercel-access-token", (r) => `vcp_${pick(r, BASE62, 24)}`),
  // --- databases ---
  dbUrl("postgres-url", "postgres", ":5432/app?sslmode=require"),
  dbUrl("mysql-url", "mysql", ":3306/shop"),
  dbUrl("mongodb-srv-url", "mongodb+srv", "/prod?retryWrites=true&w=majority"),
  dbUrl("redis-url", "rediss", ":6380/0"),
  {
    kind: "pgpassword-env",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `I reproduced it with PGPASSWORD=${v} psql -h ${host(r)} -U app.`,
          json: `{"command": "PGPASSWORD=${v} psql -h ${host(r)} -U app -c 'select 1'"}`,
          shell: `PGPASSWORD='${v}' pg_dump -h ${host(r)} -U app app > dump.sql`,
          log: `2026-11-30T08:15:02Z INFO runner: exec PGPASSWORD=${v} psql -h db -U app`,
          yaml: `env:\n  PGPASSWORD: ${v}\n  PGUSER: app`,
        },
      };
    },
  },
  {
    kind: "mysql-password-flag",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `Connect with mysql -u root -p'${v}' -h ${host(r)} and run the migration.`,
          json: `{"step": "mysql -u root -p'${v}' shop < schema.sql"}`,
          shell: `mysql -h ${host(r)} -u root -p${v} shop < schema.sql`,
          log: `2026-11-30T08:15:02Z INFO ci: + mysqldump -u backup --password=${v} shop`,
        },
      };
    },
  },
  envSecret("mysql-pwd-env", "MYSQL_PWD", password),
  {
    kind: "sshpass-password",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `The old deploy script ran sshpass -p '${v}' ssh deploy@10.0.0.5 to restart it.`,
          json: `{"deploy": "sshpass -p '${v}' rsync -a dist/ deploy@10.0.0.5:/srv/app"}`,
          shell: `sshpass -p "${v}" ssh -o StrictHostKeyChecking=no deploy@10.0.0.5 'systemctl restart app'`,
          log: `2026-11-30T08:15:02Z INFO deploy: + sshpass -p ${v} scp app.tar deploy@10.0.0.5:/tmp`,
        },
      };
    },
  },
  {
    kind: "redis-cli-password",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `Flush it with redis-cli -h cache -a '${v}' FLUSHALL if the keys are stale.`,
          json: `{"cmd": "redis-cli -h cache -a ${v} ping"}`,
          shell: `redis-cli -h cache.internal -p 6380 -a "${v}" --tls ping`,
          log: `2026-11-30T08:15:02Z INFO ops: + redis-cli -a ${v} info memory`,
        },
      };
    },
  },
  {
    kind: "jdbc-password",
    make: (r) => {
      const v = password(r);
      const url = `jdbc:sqlserver://sql.example.com:1433;databaseName=app;user=sa;password=${v};encrypt=true`;
      return {
        secret: v,
        contexts: {
          sentence: `The report service connects with ${url} in production.`,
          json: `{"jdbcUrl": "${url}"}`,
          shell: `java -Ddb.url='${url}' -jar report.jar`,
          log: `2026-11-30T08:15:02Z ERROR hikari: cannot open ${url}`,
        },
      };
    },
  },
  // --- private keys and signed tokens ---
  privateKey("rsa-private-key", "RSA PRIVATE KEY"),
  privateKey("openssh-private-key", "OPENSSH PRIVATE KEY"),
  privateKey("ec-private-key", "EC PRIVATE KEY"),
  privateKey("pkcs8-private-key", "PRIVATE KEY"),
  privateKey("pgp-private-key", "PGP PRIVATE KEY BLOCK"),
  token(
    "jwt",
    (r) =>
      `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url({ sub: pick(r, DIGITS, 8), name: "fake user", iat: 1_700_000_000 + between(r, 0, 9_999_999) })}.${pick(r, `${BASE62}_-`, 43)}`,
  ),
  // --- HTTP credentials ---
  {
    kind: "basic-auth-url",
    make: (r) => {
      const v = password(r);
      const url = `https://${user(r)}:${v}@git.example.com/org/repo.git`;
      return { secret: v, contexts: urlContexts(url) };
    },
  },
  {
    kind: "basic-auth-header",
    make: (r) => {
      const v = b64(`${user(r)}:${password(r)}`);
      return headerContexts(`Authorization: Basic ${v}`, v);
    },
  },
  {
    kind: "bearer-token",
    make: (r) => {
      const v = mixed(r, `${BASE62}._-`, 40);
      return headerContexts(`Authorization: Bearer ${v}`, v);
    },
  },
  {
    kind: "x-api-key-header",
    make: (r) => {
      const v = mixed(r, BASE62, 40);
      return headerContexts(`X-API-Key: ${v}`, v);
    },
  },
  {
    kind: "gitlab-private-token-header",
    make: (r) => {
      const v = `glpat-${pick(r, `${BASE62}_-`, 20)}`;
      return headerContexts(`PRIVATE-TOKEN: ${v}`, v);
    },
  },
  {
    kind: "oauth-json-tokens",
    make: (r) => {
      const v = mixed(r, `${BASE62}._-`, 48);
      return {
        secret: v,
        contexts: {
          sentence: `The token endpoint answered {"access_token": "${v}", "expires_in": 3600}.`,
          json: `{"token_type": "bearer", "access_token": "${v}", "expires_in": 3600}`,
          shell: `curl -s https://api.example.com/data?access_token=${v}`,
          log: `2026-11-30T08:15:02Z DEBUG oauth: refresh_token=${v} stored`,
        },
      };
    },
  },
  {
    kind: "netrc-password",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `Add machine api.example.com login bot password ${v} to ~/.netrc first.`,
          json: `{"netrc": "machine api.example.com login bot password ${v}"}`,
          shell: `printf 'machine api.example.com\\n  login bot\\n  password ${v}\\n' >> ~/.netrc`,
          log: `2026-11-30T08:15:02Z DEBUG git: read .netrc: machine api.example.com login bot password ${v}`,
          netrc: `machine api.example.com\n  login bot\n  password ${v}`,
        },
      };
    },
  },
  {
    kind: "docker-config-auth",
    make: (r) => {
      const v = b64(`${user(r)}:${password(r)}`);
      return {
        secret: v,
        contexts: {
          sentence: `~/.docker/config.json has "auth": "${v}" for ghcr.io.`,
          json: `{"auths": {"ghcr.io": {"auth": "${v}"}}}`,
          shell: `echo '{"auths":{"registry.example.com":{"auth":"${v}"}}}' > ~/.docker/config.json`,
          log: `2026-11-30T08:15:02Z DEBUG docker: credentials {"auth":"${v}"}`,
        },
      };
    },
  },
  // --- configuration files ---
  {
    kind: "xml-password-element",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `settings.xml has <password>${v}</password> under the nexus server.`,
          json: `{"settingsXml": "<server><id>nexus</id><username>ci</username><password>${v}</password></server>"}`,
          shell: `cat > ~/.m2/settings.xml <<'EOF'\n<server><username>ci</username><password>${v}</password></server>\nEOF`,
          log: `2026-11-30T08:15:02Z DEBUG maven: <password>${v}</password>`,
          xml: `<server>\n  <id>nexus</id>\n  <password>${v}</password>\n</server>`,
        },
      };
    },
  },
  {
    kind: "yaml-password-field",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `In values.yaml I set password: ${v} for the chart.`,
          json: `{"values": "postgresql:\\n  auth:\\n    password: ${v}"}`,
          shell: `helm install db bitnami/postgresql --set auth.password=${v}`,
          log: `2026-11-30T08:15:02Z DEBUG helm: values password: ${v}`,
          yaml: `postgresql:\n  auth:\n    username: app\n    password: ${v}`,
        },
      };
    },
  },
  {
    kind: "ini-password-field",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `The [client] section of my.cnf says password = ${v} for root.`,
          json: `{"my.cnf": "[client]\\nuser = root\\npassword = ${v}"}`,
          shell: `printf '[client]\\nuser=root\\npassword=${v}\\n' > ~/.my.cnf`,
          log: `2026-11-30T08:15:02Z DEBUG ini: [client] password = ${v}`,
          ini: `[client]\nuser = root\npassword = ${v}`,
        },
      };
    },
  },
  {
    kind: "properties-password",
    make: (r) => {
      const v = password(r);
      return {
        secret: v,
        contexts: {
          sentence: `application.properties had spring.datasource.password=${v} committed.`,
          json: `{"spring.datasource.password": "${v}"}`,
          shell: `java -jar app.jar --spring.datasource.password=${v}`,
          log: `2026-11-30T08:15:02Z DEBUG spring: spring.datasource.password=${v}`,
          properties: `spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.password=${v}`,
        },
      };
    },
  },
  {
    kind: "json-client-secret",
    make: (r) => {
      const v = mixed(r, `${BASE62}_-`, 40);
      return {
        secret: v,
        contexts: {
          sentence: `The OAuth app was created with clientSecret ${v} by mistake in the doc.`,
          json: `{"clientId": "kxm-web", "clientSecret": "${v}"}`,
          shell: `oauth-cli login --client-id kxm-web --client-secret ${v}`,
          log: `2026-11-30T08:15:02Z DEBUG oauth: client_secret=${v}`,
        },
      };
    },
  },
  envSecret("github-token-env", "GITHUB_TOKEN", (r) => `ghs_${pick(r, BASE62, 36)}`),
  envSecret("generic-api-key-env", "PAYMENTS_API_KEY", (r) => mixed(r, BASE62, 32)),
  // --- KXM's own credentials ---
  token("kxm-agent-key", (r) => `kxm_${mixed(r, BASE64URL, 43)}`),
  token("kxm-operator-token", (r) => `kxo_${mixed(r, BASE64URL, 43)}`),
  kxmEnv("kxm-agent-key-config", "KXM_AGENT_KEY", (r) => `kxm_${mixed(r, BASE64URL, 43)}`),
  kxmEnv("kxm-auth-token-config", "KXM_AUTH_TOKEN", (r) => mixed(r, BASE64URL, 40)),
  kxmEnv("kxm-operator-token-config", "KXM_OPERATOR_TOKEN", (r) => `kxo_${mixed(r, BASE64URL, 43)}`),
];

/** A KXM credential in an MCP config (JSON), an env line, a shell command and a log line. @returns {Kind} */
function kxmEnv(
  /** @type {string} */ kind,
  /** @type {string} */ name,
  /** @type {(rnd: Random) => string} */ value,
) {
  return {
    kind,
    make: (rnd) => {
      const v = value(rnd);
      return {
        secret: v,
        contexts: {
          sentence: `Set ${name}=${v} before starting the agent.`,
          json: JSON.stringify(
            {
              mcpServers: {
                kxm: {
                  command: "kxm",
                  args: ["mcp"],
                  env: { KXM_HUB_URL: "http://127.0.0.1:7070", [name]: v },
                },
              },
            },
            null,
            2,
          ),
          shell: `${name}=${v} kxm context pack --role planner`,
          log: `2026-11-30T08:15:02Z DEBUG mcp: spawning kxm with env ${name}=${v}`,
          dotenv: `KXM_HUB_URL=http://127.0.0.1:7070\n${name}=${v}`,
          compactJson: `{"env":{"${name}":"${v}"}}`,
        },
      };
    },
  };
}

/** A URL holding a secret, in the usual places a URL goes. @param {string} url */
function urlContexts(url) {
  return {
    sentence: `Notifications go to ${url} since the migration.`,
    json: `{"webhook": "${url}", "enabled": true}`,
    shell: `curl -fsS -X POST "${url}" -d '{"text":"deployed"}'`,
    log: `2026-11-30T08:15:02Z ERROR notify: POST ${url} failed: ETIMEDOUT`,
    yaml: `notify:\n  url: ${url}`,
  };
}

/** A credential header in a sentence, JSON, curl, a log line and raw HTTP. @param {string} header @param {string} secret @returns {Made} */
function headerContexts(header, secret) {
  const [name, ...rest] = header.split(": ");
  const value = rest.join(": ");
  return {
    secret,
    contexts: {
      sentence: `The request only worked with ${header} set.`,
      json: `{"headers": {"${name}": "${value}", "Accept": "application/json"}}`,
      shell: `curl -sS -H '${header}' https://api.example.com/v2/projects`,
      log: `2026-11-30T08:15:02Z DEBUG http: > GET /v2/projects ${header}`,
      header: `GET /v2/projects HTTP/1.1\r\nHost: api.example.com\r\n${header}\r\nAccept: */*`,
    },
  };
}

/** Every secret of the corpus in every context, generated from `seed`. @param {number} seed @returns {SecretCase[]} */
export function secretCases(seed) {
  const rnd = seededRandom(seed);
  return SECRET_KINDS.flatMap(({ kind, make }) => {
    const { secret, contexts } = make(rnd);
    return Object.entries(contexts).map(([context, text]) => ({ kind, context, text, secret }));
  });
}

/** Whether a run of `LEAK_RUN` characters of `secret` survives in `output`. @param {string} secret @param {string} output */
export function leaked(secret, output) {
  const run = Math.min(LEAK_RUN, secret.length);
  for (let start = 0; start + run <= secret.length; start += 1) {
    if (output.includes(secret.slice(start, start + run))) return true;
  }
  return false;
}

const WORDS = [
  "upload",
  "retry",
  "worker",
  "cache",
  "schema",
  "packet",
  "arbiter",
  "journal",
  "digest",
  "token",
  "refresh",
  "skill",
  "queue",
  "deploy",
  "config",
  "secret",
  "password",
  "reset",
  "login",
  "key",
];
const word = (/** @type {Random} */ r) => WORDS[between(r, 0, WORDS.length - 1)] ?? "cache";
const kebab = (/** @type {Random} */ r, /** @type {number} */ n) =>
  Array.from({ length: n }, () => word(r)).join("-");

/** @typedef {{ kind: string, count: number, make: (rnd: Random, i: number) => string }} BenignKind */

/** The benign look-alikes, by kind. @type {readonly BenignKind[]} */
export const BENIGN_KINDS = [
  { kind: "commit-sha", count: 20, make: (r) => `Reverted ${pick(r, HEX, 40)} because it broke the build.` },
  {
    kind: "short-sha",
    count: 12,
    make: (r) => `Fixed in ${pick(r, HEX, between(r, 7, 12))} (cherry-picked to release).`,
  },
  {
    kind: "uuid",
    count: 15,
    make: (r) =>
      `run ${pick(r, HEX, 8)}-${pick(r, HEX, 4)}-4${pick(r, HEX, 3)}-a${pick(r, HEX, 3)}-${pick(r, HEX, 12)} finished`,
  },
  {
    kind: "skill-ref-digest",
    count: 15,
    make: (r) => `skill:${kebab(r, 2)}.${pick(r, HEX, 12)}@${pick(r, HEX, 64)}`,
  },
  { kind: "memory-revision", count: 5, make: (r) => `pinned to ctxrev_${pick(r, HEX, 64)} at review` },
  {
    kind: "kebab-case-words",
    count: 15,
    make: (r) => `Renamed ${kebab(r, between(r, 2, 5))} to ${kebab(r, 3)}.`,
  },
  {
    kind: "prefix-like-words",
    count: 10,
    make: (_r, i) =>
      [
        "We use sk-learn for the baseline.",
        "The task-runner and desk-lamp icons moved.",
        "See the key-value-store section.",
        "xoxo-hugs is the name of the team channel.",
        "ghp-mirror and npm-check are dev tools.",
        "hf-transfer speeds up downloads.",
        "Install rk-tools 2.1 for the router.",
        "The Bearer of bad news is the CI.",
        "Use Bearer authentication for the hub.",
        "glpat-style tokens are GitLab's.",
      ][i] ?? "",
  },
  {
    kind: "branch-with-ticket",
    count: 20,
    make: (r, i) =>
      i === 0
        ? "Pushed feature/sk-1042-add-retry-to-upload-worker for review."
        : `Pushed ${["feature", "fix", "bugfix", "chore", "hotfix"][i % 5]}/${["sk", "KXM", "gh", "ops", "key", "np", "hf", "rk"][i % 8]}-${pick(r, DIGITS, between(r, 2, 5))}-${kebab(r, between(r, 2, 5))} for review.`,
  },
  {
    kind: "ticket-id",
    count: 10,
    make: (r) =>
      `Tracked as ${["KXM", "OPS", "SEC", "SK", "API"][between(r, 0, 4)]}-${pick(r, DIGITS, between(r, 2, 5))}.`,
  },
  {
    kind: "base64-text",
    count: 15,
    make: (r) =>
      `The payload was ${b64(`${kebab(r, 3)} ${word(r)} finished in ${between(r, 1, 999)} ms with ${word(r)}`)} (base64).`,
  },
  {
    kind: "url-without-password",
    count: 20,
    make: (r, i) =>
      [
        `https://github.com/kxm-dev/kxm/pull/${between(r, 1, 999)}`,
        `https://staging.example.com/api/v1/items?page=${between(r, 1, 9)}&sort=desc`,
        `ssh://git@github.com/kxm-dev/${kebab(r, 2)}.git`,
        `https://user@example.com/profile`,
        `https://docs.example.com/guides/${kebab(r, 3)}#section-${between(r, 1, 9)}`,
        `http://127.0.0.1:${between(r, 1024, 65535)}/v1/projects/demo/state`,
        `https://api.example.com/v2/search?q=${word(r)}+${word(r)}&limit=25`,
        `postgres://db.internal.example.com:5432/app`,
        `https://registry.npmjs.org/@kxm%2fcontract/-/contract-0.${between(r, 1, 9)}.0.tgz`,
        `https://example.com/reset-password?step=2`,
      ][i % 10] ?? "",
  },
  {
    kind: "version-string",
    count: 15,
    make: (r) =>
      `Upgraded to ${["v", "", "node@", "pnpm@"][between(r, 0, 3)]}${between(r, 0, 30)}.${between(r, 0, 40)}.${between(r, 0, 20)}${["", "-rc.1", "-beta.3", "+build.7"][between(r, 0, 3)]}`,
  },
  {
    kind: "css-colour",
    count: 10,
    make: (r) => `color: #${pick(r, HEX, 6)}; background: #${pick(r, HEX, 3)};`,
  },
  {
    kind: "file-path",
    count: 15,
    make: (r) =>
      `Changed packages/${word(r)}/src/${kebab(r, 2)}.ts and apps/hub/test/${kebab(r, 2)}.test.ts:${between(r, 1, 400)}`,
  },
  {
    kind: "npm-integrity",
    count: 10,
    make: (r) => `"integrity": "sha512-${pick(r, BASE64, 86)}=="`,
  },
  {
    kind: "trace-id",
    count: 10,
    make: (r) => `traceparent: 00-${pick(r, HEX, 32)}-${pick(r, HEX, 16)}-01`,
  },
  {
    kind: "credential-prose",
    count: 15,
    make: (_r, i) =>
      [
        "password: required",
        "The token: refresh the page to get a new one.",
        "Set PGPASSWORD before running psql.",
        "Rotate the API key every 90 days.",
        "mysql -u root -p prompts for the password.",
        "sshpass reads the password from SSHPASS with -e.",
        "Pass --password-stdin to docker login.",
        "The secret is in the vault, not the repo.",
        "The <password> element is optional in settings.xml.",
        '"password": is refused as a control-plane field.',
        "Authorization: see the auth guide.",
        "Use curl -u for basic auth.",
        "KXM_AGENT_KEY is read from the environment.",
        "The netrc file holds login and password lines.",
        "apiToken and authToken fields are redacted.",
      ][i] ?? "",
  },
  {
    kind: "flags-and-references",
    count: 16,
    make: (_r, i) =>
      [
        "docker run -u 1000:1000 node:20 npm test",
        "docker run -p 8080:80 nginx",
        "ssh -p 2222 deploy@10.0.0.5",
        "mysql -h db -u root -p shop",
        "git push -u origin main",
        'curl -u "$USER:$PASS" https://api.example.com',
        "Use --token $GITHUB_TOKEN in CI.",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style reference, kept literally
        "password: ${DB_PASSWORD}",
        "<token>{{ .Values.token }}</token>",
        '"max_tokens": 4096, "token_type": "bearer"',
        "PASSWORD_MIN_LENGTH=12",
        "tokenizer: gpt2-large",
        "session_token_ttl: 3600s",
        '"auth": "oauth2"',
        "Authorization: Basic auth is disabled.",
        "NODE_OPTIONS=--max-old-space-size=4096",
      ][i] ?? "",
  },
  {
    kind: "timestamps-and-addresses",
    count: 10,
    make: (r) =>
      `At 2026-${pick(r, "01", 1)}${between(r, 1, 9)}-1${between(r, 0, 9)}T0${between(r, 0, 9)}:${between(r, 10, 59)}:00Z host 10.${between(r, 0, 255)}.${between(r, 0, 255)}.${between(r, 0, 255)} took ${between(r, 1, 900)} ms`,
  },
];

/** Every benign look-alike, generated from `seed`. @param {number} seed @returns {BenignCase[]} */
export function benignCases(seed) {
  const rnd = seededRandom(seed ^ 0x5eed);
  return BENIGN_KINDS.flatMap(({ kind, count, make }) =>
    Array.from({ length: count }, (_, i) => ({ kind, text: make(rnd, i) })),
  );
}

/**
 * @typedef {object} CorpusScore
 * @property {number} kinds
 * @property {string[]} contexts
 * @property {number} secrets
 * @property {SecretCase[]} misses
 * @property {number} benign
 * @property {BenignCase[]} falsePositives
 */

/**
 * Runs `redact` over the corpus of `seed`.
 * @param {(text: string) => string} redact
 * @param {number} seed
 * @returns {CorpusScore}
 */
export function scoreCorpus(redact, seed) {
  const secrets = secretCases(seed);
  const benign = benignCases(seed);
  return {
    kinds: new Set(secrets.map((c) => c.kind)).size,
    contexts: [...new Set(secrets.map((c) => c.context))].sort(),
    secrets: secrets.length,
    misses: secrets.filter((c) => leaked(c.secret, redact(c.text))),
    benign: benign.length,
    falsePositives: benign.filter((c) => redact(c.text) !== c.text),
  };
}
