// @ts-check
// The search libraries KXM is compared with, each behind the same small interface, in the English configuration
// its own documentation gives (its stemmer and stopword list where it ships them), over one text field, or over
// a document's title and abstract as two fields when the documents have them (Cranfield). Each runs in a process
// of its own (src/peers/worker.mjs), so no library's heap or JIT state colours another's figures.
import { createRequire } from "node:module";
import { queryTerms, tokenize } from "@kxm/arbiter";
import { compareCodeUnits } from "@kxm/contract";

const require = createRequire(import.meta.url);

/**
 * A document: its text (what KXM indexes as the summary) and, for a collection with titles, the same text cut
 * into its title and abstract, which a peer able to index fields gets as two fields.
 * @typedef {{ id: string, text: string, fields?: { title: string, abstract: string } }} Doc
 */

/** The two fields of a document with a title. */
const FIELDS = /** @type {const} */ (["title", "abstract"]);

/** A document's title and abstract, for an adapter asked to index them as two fields. */
function fieldsOf(/** @type {Doc} */ doc) {
  if (doc.fields === undefined) throw new Error(`document ${doc.id} has no title and abstract fields`);
  return doc.fields;
}

/**
 * @typedef {object} Adapter
 * @property {string} name short name used on the command line and in the JSON
 * @property {string} label how the report names it
 * @property {(docs: readonly Doc[], fielded?: boolean) => unknown} build `fielded`: index each document's title
 *   and abstract as two fields (every document must have them)
 * @property {(index: any, text: string, limit: number) => string[]} search ids, best first
 * @property {((index: any, doc: Doc, slot: number) => void) | undefined} update replace one document's text
 * @property {((index: any) => number) | undefined} [nativeBytes] memory held outside the JS heap
 * @property {boolean} [bm25KxmTokens] fed KXM's tokenizer and BM25 parameters: must rank as KXM does
 * @property {boolean} fieldable can index title and abstract as fields of their own
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
    fieldable: true,
    build(docs, fielded = false) {
      const Database = require("better-sqlite3");
      const db = new Database(":memory:");
      // Two columns, ranked by bm25() with FTS5's default weight of 1 for each.
      const columns = fielded ? "title, abstract" : "body";
      db.exec(`CREATE VIRTUAL TABLE docs USING fts5(${columns}, tokenize = '${tokenizer}')`);
      const insert = db.prepare(`INSERT INTO docs (rowid, ${columns}) VALUES (?, ?${fielded ? ", ?" : ""})`);
      db.transaction(() => {
        docs.forEach((doc, i) => {
          if (fielded) insert.run(i + 1, fieldsOf(doc).title, fieldsOf(doc).abstract);
          else insert.run(i + 1, doc.text);
        });
      })();
      return {
        db,
        ids: docs.map((doc) => doc.id),
        query: db.prepare("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank, rowid LIMIT ?").pluck(),
        update: fielded ? undefined : db.prepare("UPDATE docs SET body = ? WHERE rowid = ?"),
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
  fieldable: true,
  build(docs, fielded = false) {
    const { Document, Encoder, Index } = require("flexsearch");
    // The English language pack: its stemmer and stopword filter, over the default normalisation.
    const english = () => new Encoder(require("flexsearch/lang/en"));
    const ids = docs.map((doc) => doc.id);
    if (fielded) {
      const index = new Document({
        document: { id: "slot", index: FIELDS.map((field) => ({ field, encoder: english() })) },
      });
      docs.forEach((doc, slot) => {
        index.add({ slot, ...fieldsOf(doc) });
      });
      return { index, ids, fielded };
    }
    const index = new Index({ encoder: english() });
    docs.forEach((doc, i) => {
      index.add(i, doc.text);
    });
    return { index, ids, fielded };
  },
  search({ index, ids, fielded }, text, limit) {
    // `suggest` keeps documents that hold only some of the words, as every other system here does; `merge`
    // makes one ranking of a document index's fields.
    if (fielded)
      return index
        .search(text, { limit, suggest: true, merge: true })
        .map((/** @type {{ id: number }} */ hit) => ids[hit.id]);
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
  fieldable: true,
  build(docs, fielded = false) {
    const MiniSearch = require("minisearch");
    if (fielded) {
      const index = new MiniSearch({ fields: [...FIELDS], idField: "id" });
      index.addAll(docs.map((doc) => ({ id: doc.id, ...fieldsOf(doc) })));
      return index;
    }
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
  fieldable: true,
  build(docs, fielded = false) {
    const { create, insertMultiple } = require("@orama/orama");
    const { stopwords } = require("@orama/stopwords/english");
    // Orama's English tokenizer with its built-in stemmer and the English list of @orama/stopwords.
    const components = { tokenizer: { language: "english", stemming: true, stopWords: stopwords } };
    const properties = fielded ? [...FIELDS] : ["text"];
    const db = create({ schema: Object.fromEntries(properties.map((p) => [p, "string"])), components });
    const rows = fielded ? docs.map((doc) => ({ id: doc.id, ...fieldsOf(doc) })) : docs;
    const inserted = insertMultiple(db, rows, docs.length);
    if (inserted instanceof Promise)
      throw new Error("Orama inserted asynchronously; the adapter expects sync");
    return { db, properties };
  },
  search({ db, properties }, text, limit) {
    const { search } = require("@orama/orama");
    const result = search(db, { term: text, properties, limit });
    if (result instanceof Promise) throw new Error("Orama searched asynchronously; the adapter expects sync");
    return result.hits.map((/** @type {{ id: string }} */ hit) => hit.id);
  },
  update({ db }, doc) {
    const { remove, insert } = require("@orama/orama");
    remove(db, doc.id);
    insert(db, doc);
  },
};

/** @type {Adapter} */
const lunr = {
  name: "lunr",
  label: "lunr",
  fieldable: true,
  build(docs, fielded = false) {
    const lunrjs = require("lunr");
    // lunr's default pipeline is its English one: trimmer, English stopword filter, Porter stemmer.
    return lunrjs(function () {
      // @ts-expect-error lunr's builder is `this`
      this.ref("id");
      for (const field of fielded ? FIELDS : ["text"]) {
        // @ts-expect-error lunr's builder is `this`
        this.field(field);
      }
      for (const doc of docs) {
        // @ts-expect-error lunr's builder is `this`
        this.add(fielded ? { id: doc.id, ...fieldsOf(doc) } : doc);
      }
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
    // Fed KXM's tokens, wink must score as KXM does, which indexes one summary.
    fieldable: !kxmTokens,
    build(docs, fielded = false) {
      const bm25 = require("wink-bm25-text-search");
      const engine = bm25();
      const fldWeights = fielded ? { title: 1, abstract: 1 } : { text: 1 };
      engine.defineConfig({ fldWeights, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
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
      for (const doc of docs) engine.addDoc(fielded ? { ...fieldsOf(doc) } : { text: doc.text }, doc.id);
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

/** The suffix of a Cranfield system that is a peer indexing title and abstract as two fields. */
export const FIELDED = ":fields";

/** @param {string} name */
export function adapterNamed(name) {
  const adapter = ADAPTERS.find((a) => a.name === name);
  if (adapter === undefined) throw new Error(`no peer named ${name}`);
  return adapter;
}
