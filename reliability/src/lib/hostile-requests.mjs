// @ts-check
// Hostile requests generated from a hub's own OpenAPI document: for every operation, a schema-valid request
// (sampled by openapi-sampler) with a canary string in every string field and path parameter, then malformed
// variants of it, each under one kind of credential. The list depends only on the document, the set-up and the
// seed, so a failing request can be found again by its index.
import fc from "fast-check";
import { sample } from "openapi-sampler";
import { seededRandom } from "./random.mjs";

/** Marks a value that is request content: it must never appear in a log line or in an error answer. */
export const CONTENT_CANARY = /CANARY-\d+-[a-z0-9]+/gi;
/** Marks an identifier (a path parameter, a project, run, agent or operator id): the hub logs ids by design. */
export const ID_CANARY = /CANARY-ID\d+/gi;

/**
 * Body fields that are identifiers the hub logs on purpose (project, run, agent, operator ids); every other string
 * field is content.
 */
const IDENTIFIER_FIELDS = new Set(["id", "runId", "agentId", "name"]);

/** The kinds of credential every request is sent under, in rotation. */
export const CREDENTIAL_KINDS = /** @type {const} */ ([
  "none",
  "garbage",
  "unknown-agent-key",
  "unknown-operator-token",
  "admin",
  "operator",
  "agent-own-project",
  "agent-other-project",
  "revoked-agent-key",
]);

/** @typedef {(typeof CREDENTIAL_KINDS)[number]} CredentialKind */

/** The kinds of request made from each operation. */
export const VARIANT_KINDS = /** @type {const} */ ([
  "valid",
  "valid-minimal",
  "other-project",
  "unknown-ids",
  "wrong-type",
  "missing-field",
  "extra-field",
  "oversize-string",
  "huge-array",
  "deep-nesting",
  "not-an-object",
  "prototype-keys",
  "invalid-json",
  "wrong-content-type",
  "odd-path-params",
  "hostile-query",
]);

/** @typedef {(typeof VARIANT_KINDS)[number]} VariantKind */

/** The variants that are about the body, sent to routes without one too. @type {ReadonlySet<string>} */
const BODY_VARIANTS = new Set([
  "wrong-type",
  "missing-field",
  "extra-field",
  "oversize-string",
  "huge-array",
  "deep-nesting",
  "not-an-object",
  "prototype-keys",
  "invalid-json",
  "wrong-content-type",
]);

/**
 * @typedef {object} HostileRequest
 * @property {number} index its place in the list
 * @property {string} operationId
 * @property {VariantKind} variant
 * @property {CredentialKind} credential
 * @property {string} method
 * @property {string} path the path and query string, exactly as sent
 * @property {Record<string, string>} headers
 * @property {string | undefined} body the body's text, exactly as sent
 */

/**
 * @typedef {object} Operation
 * @property {string} operationId
 * @property {string} method upper case
 * @property {string} path the template, with `{name}` parameters
 * @property {{ name: string, in: string, required: boolean, schema: any }[]} parameters
 * @property {any} body the JSON Schema of the body, if it takes one
 */

/**
 * @typedef {object} HostileSetup
 * @property {string} project a registered project the agent key "agent-own-project" belongs to
 * @property {string} otherProject a second registered project, of the key "agent-other-project"
 * @property {Record<CredentialKind, string | undefined>} credentials the Authorization value for each kind
 */

/** Every operation of an OpenAPI document, in document order. @param {any} openapi @returns {Operation[]} */
export function operationsOf(openapi) {
  /** @type {Operation[]} */
  const operations = [];
  for (const [path, item] of Object.entries(openapi.paths ?? {})) {
    for (const [method, operation] of Object.entries(/** @type {Record<string, any>} */ (item))) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      operations.push({
        operationId: String(operation.operationId ?? `${method} ${path}`),
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []).map((/** @type {any} */ p) => ({
          name: String(p.name),
          in: String(p.in),
          required: p.required === true,
          schema: p.schema ?? {},
        })),
        body: operation.requestBody?.content?.["application/json"]?.schema,
      });
    }
  }
  return operations;
}

/**
 * The generator of one list: numbered canaries and seeded draws.
 * @param {number} seed
 */
function drawer(seed) {
  const next = seededRandom(seed);
  let canaries = 0;
  const self = {
    /** @param {number} n a whole number below n */
    int: (n) => Math.floor(next() * n),
    /** @template T @param {readonly T[]} items @returns {T} */
    pick: (items) => /** @type {T} */ (items[Math.floor(next() * items.length)]),
    /** A fresh content canary. */
    content: () => `CANARY-${++canaries}-${seed.toString(36)}`,
    /** A fresh identifier canary. */
    id: () => `CANARY-ID${++canaries}`,
    /**
     * One value of a fast-check arbitrary, from the list's own seed: deterministic.
     * @template T @param {fc.Arbitrary<T>} arbitrary @returns {T}
     */
    value: (arbitrary) =>
      /** @type {T} */ (fc.sample(arbitrary, { seed: Math.floor(next() * 2 ** 31), numRuns: 1 })[0]),
  };
  return self;
}

/** @typedef {ReturnType<typeof drawer>} Drawer */

/** The schema a `$ref` names, or the schema itself. @param {any} schema @param {any} openapi */
function resolve(schema, openapi) {
  let current = schema;
  for (let depth = 0; current?.$ref !== undefined && depth < 10; depth += 1) {
    const path = String(current.$ref).replace(/^#\//, "").split("/");
    current = path.reduce((node, part) => node?.[part], openapi);
  }
  return current ?? {};
}

/** @param {any} value */
const jsonType = (value) =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : typeof value === "number"
        ? Number.isInteger(value)
          ? "integer"
          : "number"
        : typeof value;

/** Whether `schema` (one union branch) takes a value of `value`'s JSON type. @param {any} schema @param {any} value */
function takesType(schema, value) {
  const types = [schema.type ?? []].flat();
  const type = jsonType(value);
  return types.length === 0 || types.includes(type) || (type === "integer" && types.includes("number"));
}

/**
 * A string for a string field: a canary (an identifier one for identifier fields) fitted to the field's length
 * and pattern; an enum, a const or a formatted value keeps the sampled value.
 * @param {any} schema @param {string} sampled @param {boolean} identifier @param {Drawer} draw
 */
function canaryString(schema, sampled, identifier, draw) {
  if (schema.enum !== undefined || schema.const !== undefined || schema.format !== undefined) return sampled;
  let text = identifier ? draw.id() : draw.content();
  if (typeof schema.minLength === "number" && text.length < schema.minLength) {
    text = text.padEnd(schema.minLength, "x");
  }
  if (typeof schema.maxLength === "number" && text.length > schema.maxLength) return sampled;
  if (typeof schema.pattern === "string") {
    let pattern;
    try {
      pattern = new RegExp(schema.pattern, "u");
    } catch {
      return sampled;
    }
    // A lower-case name (an operator's) takes the canary in lower case.
    if (!pattern.test(text)) text = text.toLowerCase();
    if (!pattern.test(text)) return sampled;
  }
  return text;
}

/**
 * `value` (sampled from `schema`) with a canary in every string it holds.
 * @param {any} schemaIn @param {any} value @param {any} openapi @param {Drawer} draw @param {boolean} identifier
 * @returns {any}
 */
function withCanaries(schemaIn, value, openapi, draw, identifier = false) {
  const schema = resolve(schemaIn, openapi);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) {
    const branch = union.map((s) => resolve(s, openapi)).find((s) => takesType(s, value));
    return withCanaries(branch ?? {}, value, openapi, draw, identifier);
  }
  if (typeof value === "string") return canaryString(schema, value, identifier, draw);
  if (Array.isArray(value)) {
    return value.map((element) => withCanaries(schema.items ?? {}, element, openapi, draw, identifier));
  }
  if (value !== null && typeof value === "object") {
    /** @type {Record<string, any>} */
    const out = {};
    for (const [key, field] of Object.entries(value)) {
      out[key] = withCanaries(
        schema.properties?.[key] ?? {},
        field,
        openapi,
        draw,
        IDENTIFIER_FIELDS.has(key),
      );
    }
    return out;
  }
  return value;
}

/** A schema-valid sample of `schema`, optional fields included or not. @param {any} schema @param {any} openapi */
function sampled(schema, openapi, skipNonRequired = false) {
  return sample(schema, { skipNonRequired, skipReadOnly: true, quiet: true }, openapi);
}

/**
 * The string fields of a body, as paths, with their schemas.
 * @param {any} schemaIn @param {any} openapi @param {string[]} [at]
 * @returns {{ path: string[], schema: any }[]}
 */
function fieldsOf(schemaIn, openapi, at = []) {
  const schema = resolve(schemaIn, openapi);
  /** @type {{ path: string[], schema: any }[]} */
  const fields = [];
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    fields.push({ path: [...at, key], schema: resolve(field, openapi) });
  }
  return fields;
}

/** @param {any} target @param {string[]} path @param {any} value */
function setAt(target, path, value) {
  if (path.length === 0) return value;
  const copy = Array.isArray(target) ? [...target] : { ...target };
  const [head, ...rest] = path;
  copy[/** @type {string} */ (head)] = setAt(copy[/** @type {string} */ (head)] ?? {}, rest, value);
  return copy;
}

/** A value of the wrong JSON type for every field type. */
const WRONG_TYPES = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);

/** Path parameter values that are odd in shape, percent-encoded as sent (the canary marks each). */
const ODD_SEGMENTS = [
  (/** @type {string} */ c) => `..%2F${c}`,
  (/** @type {string} */ c) => `%2e%2e%2f${c}`,
  (/** @type {string} */ c) => `${c}%00`,
  (/** @type {string} */ c) => `${c}%ff%fe`,
  (/** @type {string} */ c) => `${c}%`,
  (/** @type {string} */ c) => `${c}%zz`,
  (/** @type {string} */ c) => `${c}${"a".repeat(2_100)}`,
  (/** @type {string} */ c) => `${c}%20%09%0A`,
  (/** @type {string} */ c) => `${encodeURIComponent("\u202e\ud83d\ude00")}${c}`,
  (/** @type {string} */ c) => `${c}%3Cscript%3E`,
  (/** @type {string} */ c) => `${c}%2F..%2F..%2Fetc%2Fpasswd`,
  () => "%20",
  () => ".",
  () => "..",
];

/** Content types a JSON body is sent under in the wrong-content-type variant (undefined: none at all). */
const WRONG_CONTENT_TYPES = [
  undefined,
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json; charset=utf-16",
  "application/jsonx",
  "",
];

/**
 * The path of `operation` with each parameter's value (encoded here unless already encoded).
 * @param {Operation} operation @param {Record<string, string>} values @param {boolean} encoded
 */
function fillPath(operation, values, encoded) {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name) => {
    const value = values[name] ?? "";
    return encoded ? value : encodeURIComponent(value);
  });
}

/**
 * The query string of a valid request: every query parameter, sampled, with canaries; optional ones half the time.
 * @param {Operation} operation @param {any} openapi @param {Drawer} draw @param {boolean} minimal
 */
function validQuery(operation, openapi, draw, minimal) {
  /** @type {string[]} */
  const parts = [];
  for (const param of operation.parameters.filter((p) => p.in === "query")) {
    if (!param.required && (minimal || draw.int(2) === 0)) continue;
    const value = withCanaries(param.schema, sampled(param.schema, openapi), openapi, draw);
    parts.push(`${encodeURIComponent(param.name)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/** @param {Drawer} draw @returns {string} */
function hostileQuery(draw) {
  const canary = draw.content();
  switch (draw.int(7)) {
    case 0:
      // Thousands of keys, still under the 16 KiB line limit.
      return `?${Array.from({ length: 2_000 }, (_, i) => `k${i}=${i === 0 ? canary : "1"}`).join("&")}`;
    case 1:
      return `?limit=1&limit=2&limit=${canary}`;
    case 2:
      return `?__proto__[x]=${canary}&constructor[prototype][y]=1`;
    case 3:
      return `?a[]=${canary}&a[]=2&b[c][d]=3`;
    case 4:
      return `?${canary}=%zz%&=&&=x`;
    case 5:
      return `?limit=${encodeURIComponent(`-1e309${canary}`)}&asOf=${canary}&force=${canary}`;
    default:
      return `?cursor=${"c".repeat(4_000)}${canary}&runId=${canary}%00`;
  }
}

/** A JSON value nested `depth` levels deep, the canary at the bottom. @param {number} depth @param {string} canary */
function deeplyNested(depth, canary) {
  return `${'{"a":['.repeat(depth)}"${canary}"${"]}".repeat(depth)}`;
}

/**
 * One request of `variant` for `operation`.
 * @param {Operation} operation @param {VariantKind} variant @param {HostileSetup} setup @param {any} openapi
 * @param {Drawer} draw
 * @returns {{ path: string, headers: Record<string, string>, body: string | undefined }}
 */
function buildVariant(operation, variant, setup, openapi, draw) {
  const pathParams = operation.parameters.filter((p) => p.in === "path");
  /** @type {Record<string, string>} */
  const values = {};
  for (const param of pathParams) {
    values[param.name] =
      param.name === "project"
        ? variant === "other-project"
          ? setup.otherProject
          : variant === "unknown-ids"
            ? draw.id()
            : setup.project
        : draw.id();
  }
  let encoded = false;
  if (variant === "odd-path-params" && pathParams.length > 0) {
    const param = draw.pick(pathParams);
    values[param.name] = draw.pick(ODD_SEGMENTS)(draw.id());
    for (const other of pathParams) {
      if (other !== param)
        values[other.name] = encodeURIComponent(/** @type {string} */ (values[other.name]));
    }
    encoded = true;
  }
  const query =
    variant === "hostile-query"
      ? hostileQuery(draw)
      : validQuery(operation, openapi, draw, variant === "valid-minimal");
  const path = fillPath(operation, values, encoded) + query;
  /** @type {Record<string, string>} */
  const json = { "content-type": "application/json" };
  if (operation.body === undefined && !BODY_VARIANTS.has(variant))
    return { path, headers: {}, body: undefined };
  // A route without a body still gets the body variants: what it is sent must be ignored or refused, never fail.
  const bodySchema = operation.body ?? { type: "object", properties: {} };
  const base = withCanaries(
    bodySchema,
    sampled(bodySchema, openapi, variant === "valid-minimal"),
    openapi,
    draw,
  );
  const fields = fieldsOf(bodySchema, openapi);
  const schema = resolve(bodySchema, openapi);
  const field = fields.length === 0 ? undefined : draw.pick(fields);
  /** @param {unknown} value */
  const send = (value) => ({ path, headers: json, body: JSON.stringify(value) });
  switch (variant) {
    case "wrong-type":
      return field === undefined
        ? send(draw.value(WRONG_TYPES))
        : send(setAt(base, field.path, draw.value(WRONG_TYPES)));
    case "missing-field": {
      const required = /** @type {string[]} */ (schema.required ?? []);
      if (required.length === 0) return send({});
      const { [draw.pick(required)]: _dropped, ...rest } = base;
      return send(rest);
    }
    case "extra-field":
      return send({ ...base, [draw.content()]: draw.content() });
    case "oversize-string": {
      if (field === undefined) return send(base);
      const limit = typeof field.schema.maxLength === "number" ? field.schema.maxLength : 10_000;
      // Now and then, a body over the hub's 256 KiB limit.
      const length = draw.int(8) === 0 ? 270_000 : limit + 1 + draw.int(64);
      const canary = draw.content();
      return send(setAt(base, field.path, canary + "x".repeat(Math.max(0, length - canary.length))));
    }
    case "huge-array": {
      const canary = draw.content();
      const array = Array.from({ length: 5_000 }, (_, i) => (i === 0 ? canary : draw.int(2) === 0 ? "x" : i));
      return send(field === undefined ? array : setAt(base, field.path, array));
    }
    case "deep-nesting": {
      const depth = draw.pick([64, 1_000, 10_000]);
      const text = JSON.stringify(base);
      const key = field?.path[0] ?? draw.content();
      const inner = deeplyNested(depth, draw.content());
      return {
        path,
        headers: json,
        body: `${text.slice(0, -1)}${text.length > 2 ? "," : ""}"${key}":${inner}}`,
      };
    }
    case "not-an-object":
      return send(draw.pick([[base], draw.content(), 42, null, true, []]));
    case "prototype-keys":
      return {
        path,
        headers: json,
        body: `${JSON.stringify(base).slice(0, -1)},"__proto__":{"isAdmin":true,"x":"${draw.content()}"},"constructor":{"prototype":{"y":1}}}`,
      };
    case "invalid-json": {
      const text = JSON.stringify(base);
      return {
        path,
        headers: json,
        body: draw.pick([
          text.slice(0, Math.max(1, draw.int(text.length))),
          `${text}${draw.content()}`,
          `{'${draw.content()}': 1}`,
          `{"a":"${draw.content()}\u0000"`,
          `\ufeff${text}`,
          `{"a":1,}`,
          "",
        ]),
      };
    }
    case "wrong-content-type": {
      const type = draw.pick(WRONG_CONTENT_TYPES);
      return {
        path,
        headers: type === undefined ? {} : { "content-type": type },
        body: JSON.stringify(base),
      };
    }
    default:
      return send(base);
  }
}

/**
 * The hostile requests for every operation of `openapi`: in each round, every variant of every operation, each
 * under one credential kind, the kinds rotating so that nine rounds send every (operation, variant) under every
 * kind. Stops after `count` requests. The same document, set-up and seed give the same list.
 * @param {any} openapi
 * @param {HostileSetup} setup
 * @param {{ seed: number, count: number }} options
 * @returns {HostileRequest[]}
 */
export function hostileRequests(openapi, setup, options) {
  const draw = drawer(options.seed);
  const operations = operationsOf(openapi);
  /** @type {HostileRequest[]} */
  const requests = [];
  for (let round = 0; requests.length < options.count; round += 1) {
    for (let v = 0; v < VARIANT_KINDS.length && requests.length < options.count; v += 1) {
      const variant = /** @type {VariantKind} */ (VARIANT_KINDS[v]);
      for (let o = 0; o < operations.length && requests.length < options.count; o += 1) {
        const operation = /** @type {Operation} */ (operations[o]);
        const credential = /** @type {CredentialKind} */ (
          CREDENTIAL_KINDS[(round + o + v) % CREDENTIAL_KINDS.length]
        );
        const built = buildVariant(operation, variant, setup, openapi, draw);
        const authorization = setup.credentials[credential];
        requests.push({
          index: requests.length,
          operationId: operation.operationId,
          variant,
          credential,
          method: operation.method,
          path: built.path,
          headers: { ...built.headers, ...(authorization === undefined ? {} : { authorization }) },
          body: built.body,
        });
      }
    }
  }
  return requests;
}
