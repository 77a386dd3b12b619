// @ts-check
// The search libraries KXM is compared with, each behind the same small interface, configured as their
// documentation shows for a plain full-text index over one text field. Each runs in a process of its own
// (src/peers/worker.mjs), so no library's heap or JIT state colours another's figures.
import { createRequire } from "node:module";
import { queryTerms, tokenize } from "@kxm/arbiter";
import { compareCodeUnits } from "@kxm/contract";

const require = createRequire(import.meta.url);

/** @typedef {{ id: string, text: string }} Doc */

/**
 * @typedef {object} Adapter
 * @property {string} name short name used on the command line and in the JSON
 * @property {string} label how the report names it
 * @property {(docs: readonly Doc[]) => unknown} build
 * @property {(index: any, text: string, limit: number) => string[]} search ids, best first
 * @property {((index: any, doc: Doc, slot: number) => void) | undefined} update replace one document's text
 * @property {((index: any) => number) | undefined} [nativeBytes] memory held outside the JS heap
 * @property {boolean} [bm25KxmTokens] fed KXM's tokenizer and BM25 parameters: must rank as KXM does
 */

/** The terms of a text as an FTS5 query: every distinct word quoted (so no word is read as syntax), ORed. */
function ftsQuery(/** @type {string} */ text) {
  const words = [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u))].filter((word) => word !== "");
  return words.map((word) => `"${word}"`).join(" OR ");
}

/** @param {string} tokenizer @returns {Adapter} */
function fts5(tokenizer) {
  const porter = tokenizer.startsWith("porter");
  return {
    name: porter ? "fts5-porter" : "fts5",
    label: porter ? "SQLite FTS5 (porter)" : "SQLite FTS5",
    build(docs) {
      const Database = require("better-sqlite3");
      const db = new Database(":memory:");
      db.exec(`CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '${tokenizer}')`);
      const insert = db.prepare("INSERT INTO docs (rowid, body) VALUES (?, ?)");
      db.transaction(() => {
        docs.forEach((doc, i) => {
          insert.run(i + 1, doc.text);
        });
      })();
      return {
        db,
        ids: docs.map((doc) => doc.id),
        query: db.prepare("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank, rowid LIMIT ?").pluck(),
        update: db.prepare("UPDATE docs SET body = ? WHERE rowid = ?"),
      };
    },
    search(index, text, limit) {
      const match = ftsQuery(text);
      if (match === "") return [];
      return index.query.all(match, limit).map((/** @type {number} */ rowid) => index.ids[rowid - 1]);
    },
    update(index, doc, slot) {
      index.update.run(doc.text, slot + 1);
    },
    nativeBytes(index) {
      const pages = index.db.pragma("page_count", { simple: true });
      const size = index.db.pragma("page_size", { simple: true });
      return pages * size;
    },
  };
}

/** @type {Adapter} */
const flexsearch = {
  name: "flexsearch",
  label: "FlexSearch",
  build(docs) {
    const { Index } = require("flexsearch");
    const index = new Index();
    docs.forEach((doc, i) => {
      index.add(i, doc.text);
    });
    return { index, ids: docs.map((doc) => doc.id) };
  },
  search({ index, ids }, text, limit) {
    // `suggest` keeps documents that hold only some of the words, as every other system here does.
    return index.search(text, { limit, suggest: true }).map((/** @type {number} */ i) => ids[i]);
  },
  update({ index }, doc, slot) {
    index.update(slot, doc.text);
  },
};

/** @type {Adapter} */
const minisearch = {
  name: "minisearch",
  label: "MiniSearch",
  build(docs) {
    const MiniSearch = require("minisearch");
    const index = new MiniSearch({ fields: ["text"], idField: "id" });
    index.addAll(docs);
    return index;
  },
  search(index, text, limit) {
    return index
      .search(text)
      .slice(0, limit)
      .map((/** @type {{ id: string }} */ hit) => hit.id);
  },
  update(index, doc) {
    index.replace(doc);
  },
};

/** @type {Adapter} */
const orama = {
  name: "orama",
  label: "Orama",
  build(docs) {
    const { create, insertMultiple } = require("@orama/orama");
    const db = create({ schema: { text: "string" } });
    const inserted = insertMultiple(db, docs, docs.length);
    if (inserted instanceof Promise)
      throw new Error("Orama inserted asynchronously; the adapter expects sync");
    return db;
  },
  search(db, text, limit) {
    const { search } = require("@orama/orama");
    const result = search(db, { term: text, properties: ["text"], limit });
    if (result instanceof Promise) throw new Error("Orama searched asynchronously; the adapter expects sync");
    return result.hits.map((/** @type {{ id: string }} */ hit) => hit.id);
  },
  update(db, doc) {
    const { remove, insert } = require("@orama/orama");
    remove(db, doc.id);
    insert(db, doc);
  },
};

/** @type {Adapter} */
const lunr = {
  name: "lunr",
  label: "lunr",
  build(docs) {
    const lunrjs = require("lunr");
    return lunrjs(function () {
      // @ts-expect-error lunr's builder is `this`
      this.ref("id");
      // @ts-expect-error lunr's builder is `this`
      this.field("text");
      // @ts-expect-error lunr's builder is `this`
      for (const doc of docs) this.add(doc);
    });
  },
  search(index, text, limit) {
    const lunrjs = require("lunr");
    // The query builder, not `index.search`: a task's colons, dashes and tildes would be read as query syntax.
    const tokens = lunrjs.tokenizer(text);
    return index
      .query((/** @type {any} */ query) => {
        for (const token of tokens) query.term(token, { presence: lunrjs.Query.presence.OPTIONAL });
      })
      .slice(0, limit)
      .map((/** @type {{ ref: string }} */ hit) => hit.ref);
  },
  // lunr indexes are immutable: an edit means a rebuild.
  update: undefined,
};

/**
 * wink-bm25-text-search, with its documented preparation (wink-nlp-utils) or fed KXM's own tokenizer, with
 * distinct query terms as KXM scores them, and KXM's BM25 parameters.
 * @param {boolean} kxmTokens
 * @returns {Adapter}
 */
function wink(kxmTokens) {
  return {
    name: kxmTokens ? "wink-bm25-kxm" : "wink-bm25",
    label: kxmTokens ? "wink-bm25 (KXM tokens)" : "wink-bm25",
    bm25KxmTokens: kxmTokens,
    build(docs) {
      const bm25 = require("wink-bm25-text-search");
      const engine = bm25();
      engine.defineConfig({ fldWeights: { text: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
      if (kxmTokens) {
        // The field's tasks tokenize documents; the default tasks, used for queries, keep distinct terms.
        engine.definePrepTasks([queryTerms]);
        engine.definePrepTasks([tokenize], "text");
      } else {
        const nlp = require("wink-nlp-utils");
        engine.definePrepTasks([
          nlp.string.lowerCase,
          nlp.string.removeExtraSpaces,
          nlp.string.tokenize0,
          nlp.tokens.propagateNegations,
          nlp.tokens.removeWords,
          nlp.tokens.stem,
        ]);
      }
      for (const doc of docs) engine.addDoc({ text: doc.text }, doc.id);
      // The highest precision wink keeps (9 decimals), so that rounding does not reorder near ties.
      engine.consolidate(9);
      return { engine, size: docs.length };
    },
    search({ engine, size }, text, limit) {
      // Every hit, then score descending and id ascending, as KXM breaks ties: wink's own sort leaves ties in
      // insertion order and cuts before breaking them.
      const hits = /** @type {[string, number][]} */ (engine.search(text, size));
      hits.sort((a, b) => (a[1] !== b[1] ? b[1] - a[1] : compareCodeUnits(a[0], b[0])));
      return hits.slice(0, limit).map(([id]) => id);
    },
    // wink's index cannot take documents after `consolidate`: an edit means a rebuild.
    update: undefined,
  };
}

/** Every peer, in report order. */
export const ADAPTERS = /** @type {const} */ ([
  fts5("unicode61"),
  fts5("porter unicode61"),
  flexsearch,
  minisearch,
  orama,
  lunr,
  wink(false),
  wink(true),
]);

/** @param {string} name */
export function adapterNamed(name) {
  const adapter = ADAPTERS.find((a) => a.name === name);
  if (adapter === undefined) throw new Error(`no peer named ${name}`);
  return adapter;
}
