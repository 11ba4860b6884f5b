// Reference tokenizer for ctxkit's tests and benchmarks: the pinned npm
// package `tiktoken` (package-lock.json), run on the same bytes.
//
//   node reference.mjs encode ENCODING FILE...
//       For each FILE writes FILE.tokens: the token ids of
//       encode_ordinary(text) as little-endian u32.
//   node reference.mjs bench ENCODING FILE SECONDS
//       Encodes FILE repeatedly for about SECONDS seconds and prints one
//       JSON line: {"bytes":..,"tokens":..,"seconds":..,"iterations":..}.
//
// Bytes become a JS string through TextDecoder (non-fatal): each maximal
// invalid UTF-8 subpart becomes U+FFFD. That is the policy ctxkit documents
// in include/ctxkit/tokenizer.h, so both sides tokenize the same text.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { get_encoding } = require("tiktoken");

const [mode, encoding, ...rest] = process.argv.slice(2);
const enc = get_encoding(encoding);
const decoder = new TextDecoder("utf-8", { fatal: false });

if (mode === "encode") {
  for (const file of rest) {
    const text = decoder.decode(readFileSync(file));
    const ids = enc.encode_ordinary(text);
    writeFileSync(`${file}.tokens`, Buffer.from(ids.buffer, ids.byteOffset, ids.byteLength));
  }
} else if (mode === "bench") {
  const [file, secondsArg] = rest;
  const bytes = readFileSync(file);
  const text = decoder.decode(bytes);
  const budget = Number(secondsArg || "3");
  let tokens = 0;
  let iterations = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    tokens = enc.encode_ordinary(text).length;
    ++iterations;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < budget);
  process.stdout.write(
    JSON.stringify({ bytes: bytes.length, tokens, seconds: elapsed, iterations }) + "\n",
  );
} else {
  process.stderr.write("usage: reference.mjs encode|bench ENCODING FILE...\n");
  process.exit(2);
}
enc.free();
