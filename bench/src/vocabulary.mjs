// @ts-check
// The vocabulary that summaries, tasks and queries are drawn from: common English function words first, then
// software and everyday words, then generated pseudo-words (project jargon, names, identifiers) in a long tail.
// Words are drawn with a Zipf-Mandelbrot law, weight(rank) = 2^24 / (rank + 2.7), so a few words are in most
// documents and most words in a few: the document frequencies BM25 sees look like those of real text.
import { Random } from "./random.mjs";

/** Frequent English words, most frequent first; many are stopwords the tokenizer drops, as in real text. */
const FUNCTION_WORDS = `the of and to a in is it that for on was with as be by at this are from or an not but have
has had were which can will if all its their they we you there been more when would one also into than other some
what only could these so no new then our two may about after over such most use first any should each those where
how up out just because before still now both very same through without between during under while again`;

/** Software and everyday words, in no particular order: they are shuffled into ranks by the seed. */
const CONTENT_WORDS = `test tests build builds release releases branch branches merge commit commits deploy deploys
pipeline pipelines cache caches server servers client clients request requests response responses error errors
timeout timeouts retry retries flaky gate gates check checks lint linter format formatter compile compiler type
types schema schemas field fields value values index indexes query queries token tokens budget packet packets
context memory record records item items state states status key keys lock locks file files path paths module
modules package packages dependency dependencies version versions upgrade downgrade patch patches bug bugs fix fixes
issue issues review reviews reviewer approve approval owner owners team teams user users agent agents role roles
planner implementer critic verifier repro task tasks plan plans decision decisions lesson lessons observation
evidence knowledge episode episodes skill skills source sources origin provenance authority confidence policy
instruction hypothesis workflow workflows journal entry entries run runs stage stages step steps job jobs queue
queues worker workers thread threads process processes memory leak leaks heap stack trace traces log logs logger
metric metrics alert alerts dashboard monitor monitoring latency throughput load traffic spike spikes regression
regressions benchmark benchmarks profile profiler sample samples median percentile database databases table tables
column columns row rows migration migrations transaction transactions rollback snapshot snapshots backup restore
replica replicas shard shards partition partitions cluster clusters node nodes container containers image images
registry registries secret secrets credential credentials permission permissions scope scopes config configuration
setting settings option options flag flags feature features toggle environment environments staging production
local remote origin upstream fork tag tags label labels milestone sprint backlog ticket tickets incident incidents
outage postmortem runbook oncall pager escalation handoff summary summaries description detail details note notes
comment comments document documents docs readme guide guides tutorial example examples spec specs contract
contracts interface interfaces api apis endpoint endpoints route routes handler handlers middleware session sessions
cookie cookies header headers body payload payloads json yaml toml markdown html css script scripts command commands
shell terminal prompt output input stream streams buffer buffers chunk chunks batch batches window windows event
events listener listeners callback callbacks promise promises async await sync parallel serial concurrent race
deadlock mutex semaphore signal signals exit code codes exception exceptions panic crash crashes restart restarts
health probe probes readiness liveness port ports socket sockets network proxy gateway certificate certificates tls
http https dns domain domains host hosts address addresses ip subnet firewall rule rules filter filters sort order
rank ranking score scores weight weights relevance match matches search recall precision sample window average mean
total count counts limit limits quota quotas rate throttle backoff jitter delay delays schedule scheduler cron
nightly weekly daily hourly morning evening week month year today yesterday tomorrow time times date dates clock
duration interval deadline estimate estimates cost costs price storage disk disks volume volumes bucket buckets
object objects blob blobs upload download sync mirror copy move rename delete remove add insert update upsert
replace create read write append truncate open close start stop pause resume cancel retry abort fail failed failing
failure failures pass passed passing success green red yellow broken stable unstable slow fast faster slower quick
heavy light large small big tiny huge minor major critical urgent blocking blocked unblocked ready done pending
waiting running stopped stale fresh current previous next last old older newer latest early late first second
third final initial default custom manual automatic automated generated derived computed cached stored written
loaded parsed validated rejected accepted proposed promoted superseded archived deprecated removed added changed
fixed broken reverted merged rebased squashed cherry picked signed verified probable uncertain trusted untrusted
public private internal external shared common core base main master feature hotfix canary preview nightly beta
alpha candidate typescript javascript node deno bun python rust golang java kotlin swift ruby php bash zsh docker
kubernetes helm terraform ansible nginx postgres mysql sqlite redis kafka rabbitmq elastic grafana prometheus
github gitlab bitbucket jenkins circleci actions runner runners vitest jest mocha playwright cypress selenium eslint
biome prettier webpack vite rollup esbuild swc babel tsc pnpm npm yarn turbo lerna monorepo workspace workspaces
library libraries framework frameworks react vue svelte angular next express fastify koa hono graphql grpc rest
websocket oauth jwt saml ldap sso login logout signup password account accounts billing invoice invoices payment
payments customer customers order orders cart checkout product products catalog inventory shipping refund refunds
report reports export import csv pdf email emails notification notifications message messages chat thread inbox
calendar meeting meetings team people person manager engineer engineers developer developers designer operator
operators admin admins maintainer maintainers contributor contributors community license copyright author authors
because however therefore although instead otherwise meanwhile usually often sometimes rarely never always maybe
probably likely unlikely clearly simply mostly partly fully almost already yet soon later again once twice`;

/** A few words outside ASCII, so some summaries take the tokenizer's Unicode normalization path. */
const UNICODE_WORDS = ["naïve", "café", "façade", "déjà", "résumé", "über", "señal", "ﬁle"];

const CONSONANTS = "bcdfghjklmnprstvwz";
const VOWELS = "aeiou";
const ENDINGS = ["", "", "", "n", "r", "s", "x", "l", "m", "t"];

/** Words of this shape never come out of the vocabulary: the prefix `qx` appears in no word above or below. */
export const MISS_PREFIX = "qx";

/**
 * A pronounceable pseudo-word of 2 to 4 syllables, such as `tavorin` or `kelumex`.
 * @param {Random} random
 */
export function pseudoWord(random) {
  let word = "";
  const syllables = random.int(2, 4);
  for (let i = 0; i < syllables; i += 1) {
    word += CONSONANTS[random.int(0, CONSONANTS.length - 1)];
    word += VOWELS[random.int(0, VOWELS.length - 1)];
  }
  return word + random.pick(ENDINGS);
}

/** @param {string} text */
function words(text) {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

/**
 * A weighted vocabulary: `words[rank]`, and cumulative integer weights to draw a rank by binary search.
 */
export class Vocabulary {
  /**
   * @param {Random} random the stream that orders the words and invents the pseudo-words
   * @param {number} size total number of distinct words
   */
  constructor(random, size) {
    const seen = new Set();
    /** @param {readonly string[]} list */
    const distinct = (list) => list.filter((word) => !seen.has(word) && seen.add(word));
    const head = distinct(words(FUNCTION_WORDS));
    const content = random.shuffle(distinct(words(CONTENT_WORDS)));
    /** @type {string[]} */
    const pseudo = [];
    while (head.length + content.length + pseudo.length + UNICODE_WORDS.length < size) {
      const word = pseudoWord(random);
      if (!seen.has(word) && !word.includes(MISS_PREFIX)) {
        seen.add(word);
        pseudo.push(word);
      }
    }
    // Project jargon: a few pseudo-words are as frequent as ordinary content words.
    const jargon = pseudo.splice(0, Math.min(60, pseudo.length));
    for (const word of jargon) content.splice(random.int(0, content.length), 0, word);
    // Accented words are rare, as in English technical text: they go into the long tail.
    for (const word of distinct(UNICODE_WORDS)) pseudo.splice(random.int(0, pseudo.length), 0, word);
    /** @type {readonly string[]} */
    this.words = [...head, ...content, ...pseudo];
    this.cumulative = new Float64Array(this.words.length);
    let total = 0;
    for (let rank = 0; rank < this.words.length; rank += 1) {
      total += Math.floor(16_777_216 / (rank + 2.7));
      this.cumulative[rank] = total;
    }
    this.total = total;
    /** Content words and jargon only (no function words): for state keys and identifiers. */
    this.contentStart = head.length;
  }

  /**
   * A rank drawn by its Zipf weight.
   * @param {Random} random
   */
  drawRank(random) {
    const target = random.int(0, this.total - 1);
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (/** @type {number} */ (this.cumulative[mid]) > target) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  /**
   * A word drawn by its Zipf weight.
   * @param {Random} random
   */
  draw(random) {
    return /** @type {string} */ (this.words[this.drawRank(random)]);
  }

  /**
   * A content word (no function word), drawn by its Zipf weight among content words.
   * @param {Random} random
   */
  drawContent(random) {
    for (;;) {
      const rank = this.drawRank(random);
      if (rank >= this.contentStart) return /** @type {string} */ (this.words[rank]);
    }
  }
}
