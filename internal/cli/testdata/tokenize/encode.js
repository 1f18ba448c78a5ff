// encode.js: reference token ids from Hugging Face's official Node binding
// (npm tokenizers@0.23.2, the Rust build inside the package).
// Reads a JSON request on stdin: [{"tokenizer": PATH, "text": STRING,
// "special": BOOL}, ...] and prints the ids of each as a JSON array of arrays.
// Run by gen_counts.py; NODE_PATH must reach the tokenizers package.
const { Tokenizer } = require("tokenizers");
const fs = require("fs");

(async () => {
  const reqs = JSON.parse(fs.readFileSync(0, "utf8"));
  const cache = new Map();
  const out = [];
  for (const r of reqs) {
    if (!cache.has(r.tokenizer)) cache.set(r.tokenizer, Tokenizer.fromFile(r.tokenizer));
    const enc = await cache.get(r.tokenizer).encode(r.text, null, { addSpecialTokens: r.special });
    out.push(enc.getIds());
  }
  process.stdout.write(JSON.stringify(out));
})();
