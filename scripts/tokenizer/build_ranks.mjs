// Converts one encoder file of the pinned npm package `tiktoken` into the
// compact rank file that ctxkit embeds (format: docs/tokenizer.md).
//
//   node build_ranks.mjs ENCODING ENCODER_JSON OUT_FILE
//
// The encoder JSON holds `bpe_ranks` as one space-separated string: a
// marker "!" followed by the rank of the next token, then base64 tokens
// whose ranks count up from there. We also check `pat_str` against the
// pattern our hand-written pre-tokenizer implements, so an upgrade of the
// npm package that changes the regex fails the build instead of silently
// tokenizing differently.
import { readFileSync, writeFileSync, renameSync } from "node:fs";

const kPatterns = {
  o200k_base:
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?" +
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?" +
    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  cl100k_base:
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}" +
    "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
};

function fail(msg) {
  process.stderr.write(`build_ranks: ${msg}\n`);
  process.exit(1);
}

const [encoding, input, output] = process.argv.slice(2);
if (!encoding || !input || !output) {
  fail("usage: build_ranks.mjs ENCODING ENCODER_JSON OUT_FILE");
}
if (!(encoding in kPatterns)) fail(`unknown encoding ${encoding}`);

let data;
try {
  data = JSON.parse(readFileSync(input, "utf8"));
} catch (e) {
  fail(`cannot read ${input}: ${e.message} (did scripts/setup.sh run npm ci?)`);
}
if (data.pat_str !== kPatterns[encoding]) {
  fail(`${input}: pat_str differs from the pattern src/text implements`);
}

// Parse the ranks into an array indexed by rank.
const tokens = [];
let rank = -1;
const parts = data.bpe_ranks.split(" ");
for (let i = 0; i < parts.length; ++i) {
  const part = parts[i];
  if (part === "") continue;
  if (part === "!") {
    rank = Number.parseInt(parts[++i], 10);
    if (!Number.isInteger(rank) || rank < 0) fail(`bad rank marker at ${i}`);
    continue;
  }
  if (rank < 0) fail("token before the first rank marker");
  if (tokens[rank] !== undefined) fail(`rank ${rank} appears twice`);
  tokens[rank] = Buffer.from(part, "base64");
  ++rank;
}
for (let r = 0; r < tokens.length; ++r) {
  if (tokens[r] === undefined) fail(`rank ${r} is missing (ranks must be dense)`);
}
const seen = new Set();
for (const t of tokens) {
  const key = t.toString("latin1");
  if (seen.has(key)) fail("two ranks share the same bytes");
  seen.add(key);
}

const specials = Object.entries(data.special_tokens).map(([text, id]) => [
  Buffer.from(text, "utf8"),
  id,
]);

// Layout (little-endian), see docs/tokenizer.md:
//   char[8]  magic "CTXBPE01"
//   char[16] encoding name, NUL-padded
//   u32      n_ranks, n_special, token_bytes, reserved (0)
//   u32      offsets[n_ranks + 1]   start of rank r's bytes in the blob
//   u8       blob[token_bytes]
//   n_special times: u32 id, u32 length, u8 text[length]
const tokenBytes = tokens.reduce((n, t) => n + t.length, 0);
const header = Buffer.alloc(8 + 16 + 16);
header.write("CTXBPE01", 0, "latin1");
header.write(encoding, 8, "latin1");
header.writeUInt32LE(tokens.length, 24);
header.writeUInt32LE(specials.length, 28);
header.writeUInt32LE(tokenBytes, 32);
header.writeUInt32LE(0, 36);
const offsets = Buffer.alloc(4 * (tokens.length + 1));
let at = 0;
tokens.forEach((t, r) => {
  offsets.writeUInt32LE(at, 4 * r);
  at += t.length;
});
offsets.writeUInt32LE(at, 4 * tokens.length);
const specialParts = [];
for (const [text, id] of specials) {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(id, 0);
  head.writeUInt32LE(text.length, 4);
  specialParts.push(head, text);
}
const out = Buffer.concat([header, offsets, ...tokens, ...specialParts]);
// Write then rename so an interrupted build never leaves a torn file that
// a later build would treat as up to date.
writeFileSync(`${output}.tmp`, out);
renameSync(`${output}.tmp`, output);
