// Generates the BLS12-381 known-answer vectors in tests/vectors/*.json from @noble/curves, a pure-JS
// implementation that shares no code with zkpipe. Deterministic: every random value comes from
// SHA-256 over SEED, so a rerun reproduces the files byte for byte. See README.md for the layout
// and the exact command; @noble/curves is resolved from NODE_PATH or the working directory, never
// from this repository (no node_modules here).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const NOBLE_VERSION = '2.4.0';
const SEED = 'zkpipe tests/vectors v1';
const SOURCE = `@noble/curves ${NOBLE_VERSION} via tests/vectors/generate.mjs`;
const OUT_DIR = path.dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Loading @noble/curves (ES modules ignore NODE_PATH, so resolve through a CommonJS resolver).
const req = createRequire(path.join(process.cwd(), 'resolve-from-cwd.js'));
const nobleUrl = (sub) => pathToFileURL(req.resolve(`@noble/curves/${sub}`)).href;
{
  let entry;
  try {
    entry = req.resolve('@noble/curves/bls12-381.js');
  } catch {
    console.error(`@noble/curves not found: install @noble/curves@${NOBLE_VERSION} outside the repo and`);
    console.error('point NODE_PATH at its node_modules (see tests/vectors/README.md)');
    process.exit(2);
  }
  const pkgPath = path.join(path.dirname(entry), 'package.json');
  const version = JSON.parse(readFileSync(pkgPath, 'utf8')).version;
  if (version !== NOBLE_VERSION) {
    throw new Error(`expected @noble/curves ${NOBLE_VERSION}, found ${version} at ${pkgPath}`);
  }
}
const { bls12_381 } = await import(nobleUrl('bls12-381.js'));
const { pippenger } = await import(nobleUrl('abstract/curve.js'));
const { FFT, rootsOfUnity } = await import(nobleUrl('abstract/fft.js'));
const { FpLegendre } = await import(nobleUrl('abstract/modular.js'));

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

// Values published elsewhere, checked so a wrong noble build or convention cannot slip through.
const G1_GENERATOR_HEX =
  '97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb';
const FR_ROOT_2_32 = '16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b';
const E_G1_G2_C000_C001 =
  '1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6' +
  '089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f';

function check(cond, what) {
  if (!cond) throw new Error(`self-check failed: ${what}`);
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness: SHA-256(SEED "/" stream ":" counter), one stream per output file.
class Rng {
  constructor(stream) {
    this.key = `${SEED}/${stream}`;
    this.counter = 0;
  }
  block() {
    return createHash('sha256').update(`${this.key}:${this.counter++}`).digest();
  }
  bigint(nbytes) {
    let v = 0n;
    while (nbytes > 0) {
      for (const b of this.block().subarray(0, Math.min(32, nbytes))) v = (v << 8n) | BigInt(b);
      nbytes -= 32;
    }
    return v;
  }
  below(m) {
    return this.bigint(64 + 16) % m; // 640 bits: bias is irrelevant for test vectors
  }
  nonzero(m) {
    for (;;) {
      const v = this.below(m);
      if (v !== 0n) return v;
    }
  }
  fp2() {
    return Fp2.create({ c0: this.below(P), c1: this.below(P) });
  }
  fp12() {
    return Fp12.fromBigTwelve(Array.from({ length: 12 }, () => this.below(P)));
  }
}

// ---------------------------------------------------------------------------------------------
// Hex encodings (see README: big-endian, canonical, fixed width, lowercase).
const hexN = (v, nbytes) => {
  check(v >= 0n && v < 1n << BigInt(8 * nbytes), `hex width ${nbytes}`);
  return v.toString(16).padStart(2 * nbytes, '0');
};
const hFp = (v) => hexN(v, 48);
const hFr = (v) => hexN(v, 32);
const hFp2 = (v) => [hFp(v.c0), hFp(v.c1)];
const hFp6 = (v) => [hFp2(v.c0), hFp2(v.c1), hFp2(v.c2)];
const hFp12 = (v) => [hFp6(v.c0), hFp6(v.c1)];
// noble's toHex() throws on a computed identity whose projective form is not exactly (0, 1, 0),
// e.g. P + (-P); map every identity to the canonical ZERO first.
const canon = (pt) => (pt.is0() ? pt.constructor.ZERO : pt);
const c = (pt) => canon(pt).toHex(true);
const u = (pt) => canon(pt).toHex(false);
const tryOr = (fn, fallback) => {
  try {
    return fn();
  } catch {
    return fallback;
  }
};

// Writes JSON with one field per line down to the case level, values compact below that, and
// long string arrays one element per line.
function format(v, depth = 0) {
  const pad = ' '.repeat(2 * (depth + 1));
  const end = ' '.repeat(2 * depth);
  const isStrArray = Array.isArray(v) && v.length > 4 && v.every((x) => typeof x === 'string');
  if (v === null || typeof v !== 'object' || (depth >= 3 && !isStrArray)) return JSON.stringify(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => pad + format(x, depth + 1)).join(',\n')}\n${end}]`;
  }
  const body = Object.entries(v).map(([k, x]) => `${pad}${JSON.stringify(k)}: ${format(x, depth + 1)}`);
  return `{\n${body.join(',\n')}\n${end}}`;
}
const sizes = [];
function emit(name, body) {
  const text = format({ source: SOURCE, seed: SEED, ...body }) + '\n';
  writeFileSync(path.join(OUT_DIR, name), text);
  sizes.push([name, text.length]);
}

// ---------------------------------------------------------------------------------------------
// Prime fields.
function primeFieldCases(F, rng, hex, count, edges) {
  const cases = [];
  for (let i = 0; i < count; i++) {
    const [a, b] = edges[i] ?? [rng.below(F.ORDER), rng.below(F.ORDER)];
    const legendre = FpLegendre(F, a);
    const root = tryOr(() => F.sqrt(a), null);
    check((root === null) === (legendre === -1), 'sqrt exists iff legendre != -1');
    if (root !== null) check(F.eql(F.sqr(root), a), 'sqrt squares back');
    check(F.add(a, b) === (a + b) % F.ORDER, 'add');
    check(F.mul(a, b) === (a * b) % F.ORDER, 'mul');
    cases.push({
      a: hex(a),
      b: hex(b),
      add: hex(F.add(a, b)),
      sub: hex(F.sub(a, b)),
      mul: hex(F.mul(a, b)),
      sqr: hex(F.sqr(a)),
      neg_a: hex(F.neg(a)),
      inv_a: a === 0n ? null : hex(F.inv(a)),
      sqrt_a: root === null ? null : hex(root),
      sqrt_a_sq: root === null ? null : F.eql(F.sqr(root), a),
      legendre_a: legendre,
    });
  }
  return cases;
}

function genFp() {
  const rng = new Rng('fp.json');
  const r = () => rng.below(P);
  const edges = [
    [0n, r()], [1n, r()], [P - 1n, r()], [r(), P - 1n], [1n << 380n, r()],
    [(1n << 380n) + 1n, (1n << 380n) - 1n], [(P - 1n) / 2n, (P + 1n) / 2n], [P - 1n, P - 1n],
    [2n, 0n], [P - 2n, 1n], [4n, P - 4n],
  ];
  emit('fp.json', { modulus: hFp(P), cases: primeFieldCases(Fp, rng, hFp, 64, edges) });
}

function genFr() {
  const rng = new Rng('fr.json');
  const r = () => rng.below(R);
  const edges = [
    [0n, r()], [1n, r()], [R - 1n, r()], [r(), R - 1n], [1n << 254n, r()],
    [(R - 1n) / 2n, (R + 1n) / 2n], [R - 1n, R - 1n], [7n, 0n], [R - 2n, 1n], [5n, R - 5n],
  ];
  const root = Fr.pow(7n, (R - 1n) >> 32n);
  check(hFr(root) === FR_ROOT_2_32, 'root of unity matches arkworks TWO_ADIC_ROOT_OF_UNITY');
  check(Fr.pow(root, 1n << 32n) === 1n, 'root^(2^32) == 1');
  check(Fr.pow(root, 1n << 31n) !== 1n, 'root^(2^31) != 1');
  check(((R - 1n) >> 32n) % 2n === 1n, 'two-adicity is exactly 32');
  check(rootsOfUnity(Fr, 7n).omega(31) === Fr.sqr(root), "noble's 2^31 root from generator 7");
  emit('fr.json', {
    modulus: hFr(R),
    two_adicity: 32,
    generator: '7',
    generator_hex: hFr(7n),
    root_of_unity_2_32: hFr(root),
    cases: primeFieldCases(Fr, rng, hFr, 64, edges),
  });
}

// ---------------------------------------------------------------------------------------------
// Extension fields.
function genFp2() {
  const rng = new Rng('fp2.json');
  const f = (c0, c1) => Fp2.create({ c0, c1 });
  const edges = [
    f(0n, 0n), f(1n, 0n), f(0n, 1n), f(P - 1n, P - 1n), f(P - 1n, 0n), f(4n, 0n), f(5n, 0n), f(0n, 2n),
  ];
  const cases = [];
  for (let i = 0; i < 32; i++) {
    const a = edges[i] ?? rng.fp2();
    const b = rng.fp2();
    const root = tryOr(() => Fp2.sqrt(a), null);
    // a is a square in Fp2 iff its norm c0^2 + c1^2 is a square in Fp.
    const norm = Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1));
    check((root === null) === (FpLegendre(Fp, norm) === -1), 'fp2 sqrt exists iff norm square');
    if (root !== null) check(Fp2.eql(Fp2.sqr(root), a), 'fp2 sqrt squares back');
    const frob = Fp2.frobeniusMap(a, 1);
    check(Fp2.eql(frob, Fp2.pow(a, P)), 'fp2 frobenius == a^p');
    cases.push({
      a: hFp2(a),
      b: hFp2(b),
      add: hFp2(Fp2.add(a, b)),
      sub: hFp2(Fp2.sub(a, b)),
      mul: hFp2(Fp2.mul(a, b)),
      sqr: hFp2(Fp2.sqr(a)),
      inv_a: Fp2.is0(a) ? null : hFp2(Fp2.inv(a)),
      sqrt_a: root === null ? null : hFp2(root),
      frobenius_a: hFp2(frob),
    });
  }
  emit('fp2.json', { cases });
}

function genFp12() {
  const rng = new Rng('fp12.json');
  const cases = [];
  const cyclotomic = [];
  for (let i = 0; i < 16; i++) {
    const a = i === 0 ? Fp12.ONE : rng.fp12();
    const b = rng.fp12();
    const frob = (k) => Fp12.frobeniusMap(a, k);
    check(Fp12.eql(Fp12.mul(a, Fp12.inv(a)), Fp12.ONE), 'fp12 inverse');
    if (i < 3) check(Fp12.eql(frob(1), Fp12.pow(a, P)), 'fp12 frobenius == a^p');
    cases.push({
      a: hFp12(a),
      b: hFp12(b),
      mul: hFp12(Fp12.mul(a, b)),
      sqr: hFp12(Fp12.sqr(a)),
      inv_a: hFp12(Fp12.inv(a)),
      frob1_a: hFp12(frob(1)),
      frob2_a: hFp12(frob(2)),
      frob3_a: hFp12(frob(3)),
    });
  }
  for (let i = 0; i < 8; i++) {
    // f = a^((p^6 - 1)(p^2 + 1)): the "easy part" of the final exponentiation.
    const a = rng.fp12();
    const t = Fp12.mul(Fp12.conjugate(a), Fp12.inv(a));
    const f = Fp12.mul(Fp12.frobeniusMap(t, 2), t);
    const f2 = Fp12.sqr(f);
    check(Fp12.eql(Fp12.mul(f, Fp12.conjugate(f)), Fp12.ONE), 'cyclotomic element is unitary');
    check(Fp12.eql(Fp12._cyclotomicSquare(f), f2), "noble's cyclotomic square agrees");
    cyclotomic.push({ a: hFp12(a), cyclo: hFp12(f), cyclo_sqr: hFp12(f2) });
  }
  emit('fp12.json', { cases, cyclotomic });
}

// ---------------------------------------------------------------------------------------------
// Curve groups.
function naiveMul(pt, k) {
  let acc = pt.constructor.ZERO;
  for (let i = BigInt(k.toString(2).length) - 1n; i >= 0n; i--) {
    acc = acc.double();
    if ((k >> i) & 1n) acc = acc.add(pt);
  }
  return acc;
}
const mulAny = (pt, k) => pt.multiplyUnsafe(k); // accepts 0 (noble's multiply() rejects 0)

function groupCases(Point, rng, count) {
  const rand = () => Point.BASE.multiply(rng.nonzero(R));
  const cases = [];
  for (let i = 0; i < count; i++) {
    const p = i === 0 ? Point.BASE : rand();
    let q = rand();
    let k = rng.below(R);
    if (i === 1) q = p; // add == dbl
    if (i === 2) q = p.negate(); // add == infinity
    if (i === 3) q = Point.ZERO; // add == p
    if (i === 4) k = 0n;
    if (i === 5) k = 1n;
    if (i === 6) k = R - 1n;
    if (i === 7) k = 2n;
    const kp = mulAny(p, k);
    if (i < 10) check(kp.equals(naiveMul(p, k)), 'k*p matches double-and-add');
    const kase = {
      p: c(p),
      q: c(q),
      add: c(p.add(q)),
      dbl: c(p.double()),
      neg_p: c(p.negate()),
      k: hFr(k),
      k_p: c(kp),
      p_uncompressed: u(p),
    };
    check(Point.fromHex(kase.p).equals(p) && Point.fromHex(kase.p_uncompressed).equals(p), 'p decodes');
    check(Point.fromHex(kase.q).equals(q) && Point.fromHex(kase.k_p).equals(kp), 'q, k_p decode');
    for (const key of ['add', 'dbl', 'neg_p']) Point.fromHex(kase[key]).assertValidity();
    cases.push(kase);
  }
  check(cases[1].add === cases[1].dbl, 'p + p == 2p');
  check(cases[2].add === c(Point.ZERO), 'p + (-p) == infinity');
  return cases;
}

function genGroups() {
  check(c(G1.BASE) === G1_GENERATOR_HEX, 'G1 generator compressed encoding');
  check(c(G1.ZERO) === 'c0' + '00'.repeat(47), 'G1 compressed infinity');
  emit('g1.json', { cases: groupCases(G1, new Rng('g1.json'), 32) });
  emit('g2.json', { cases: groupCases(G2, new Rng('g2.json'), 16) });
}

// ---------------------------------------------------------------------------------------------
// Serialization: an encoder written here from the zcash rules (checked against noble on valid
// points), used to build encodings noble itself refuses to produce.
const FLAG_C = 0x80; // compressed
const FLAG_I = 0x40; // infinity
const FLAG_S = 0x20; // sign: y is the lexicographically largest of {y, -y}
const be = (v, n) => Buffer.from(v.toString(16).padStart(2 * n, '0'), 'hex');
const g1Coords = { enc: (x) => be(x, 48), big: (y) => [y] };
const g2Coords = { enc: (x) => Buffer.concat([be(x.c1, 48), be(x.c0, 48)]), big: (y) => [y.c1, y.c0] };
function signBit(parts) {
  for (const part of parts) if (part !== 0n) return part > (P - 1n) / 2n;
  return false;
}
function encode(coords, x, y, compressed) {
  const buf = compressed ? coords.enc(x) : Buffer.concat([coords.enc(x), coords.enc(y)]);
  check((buf[0] & 0xe0) === 0, 'coordinate overlaps flag bits');
  if (compressed) buf[0] |= FLAG_C | (signBit(coords.big(y)) ? FLAG_S : 0);
  return buf.toString('hex');
}
const setByte0 = (hex, fn) => ((b) => ((b[0] = fn(b[0])), b.toString('hex')))(Buffer.from(hex, 'hex'));
const hexAdd = (hex, offsetBytes, width, addend) => {
  // Adds `addend` to the big-endian integer in [offsetBytes, offsetBytes + width) of hex.
  const b = Buffer.from(hex, 'hex');
  const v = BigInt('0x' + b.subarray(offsetBytes, offsetBytes + width).toString('hex')) + addend;
  be(v, width).copy(b, offsetBytes);
  return b.toString('hex');
};

function curveKit(Point, F, b, coords, rng, randX) {
  const rhs = (x) => F.add(F.mul(F.sqr(x), x), b);
  const onCurve = () => {
    for (;;) {
      const x = randX();
      const y = tryOr(() => F.sqrt(rhs(x)), null);
      if (y !== null) return { x, y };
    }
  };
  const offCurveX = () => {
    for (;;) {
      const x = randX();
      if (tryOr(() => F.sqrt(rhs(x)), null) === null) return x;
    }
  };
  const outsideSubgroup = () => {
    for (;;) {
      const { x, y } = onCurve();
      const pt = Point.fromAffine({ x, y });
      if (!pt.isTorsionFree()) return { x, y };
    }
  };
  const valid = () => Point.BASE.multiply(rng.nonzero(R));
  return { rhs, onCurve, offCurveX, outsideSubgroup, valid, coords, F };
}

function invalidEntries(Point, kit, W, name) {
  const { coords, F } = kit;
  const out = [];
  const adder = (reason) => (note, hex) => out.push({ hex, reason, note });
  const [length, flags, canonical, curve, subgroup] = [
    'bad_length', 'bad_flags', 'not_canonical', 'not_on_curve', 'not_in_subgroup',
  ].map(adder);
  const pts = Array.from({ length: 4 }, () => kit.valid());
  for (const pt of pts) {
    check(encode(coords, pt.x, pt.y, true) === c(pt), `${name} compressed encoder == noble`);
    check(encode(coords, pt.x, pt.y, false) === u(pt), `${name} uncompressed encoder == noble`);
  }
  const zeros = (n) => '00'.repeat(n);
  const set0 = (hex, bits) => setByte0(hex, (x) => x | bits);
  const clear0 = (hex, bits) => setByte0(hex, (x) => x & ~bits);
  const [cW, uW] = [W, 2 * W]; // compressed / uncompressed lengths in bytes

  length(`compressed truncated to ${cW - 1} bytes`, c(pts[0]).slice(0, 2 * (cW - 1)));
  length(`compressed padded to ${cW + 1} bytes`, c(pts[0]) + '00');
  length(`uncompressed truncated to ${uW - 1} bytes`, u(pts[1]).slice(0, 2 * (uW - 1)));
  length(`uncompressed padded to ${uW + 1} bytes`, u(pts[1]) + '00');
  length('empty input', '');
  length(`compressed infinity with ${cW + 1} bytes`, 'c0' + zeros(cW));

  flags(`${cW}-byte input with compression bit clear`, clear0(c(pts[0]), FLAG_C));
  flags(`${cW}-byte input, no flags at all`, clear0(c(pts[1]), FLAG_C | FLAG_S));
  flags(`${uW}-byte uncompressed input with compression bit set`, set0(u(pts[2]), FLAG_C));
  flags('uncompressed input with sign bit set', set0(u(pts[3]), FLAG_S));
  flags('compressed infinity with last byte nonzero', 'c0' + zeros(cW - 2) + '01');
  flags('compressed infinity with low bits of byte 0 set', 'c1' + zeros(cW - 1));
  flags('compressed infinity flag on a real x', set0(clear0(c(pts[0]), FLAG_S), FLAG_I));
  flags('uncompressed infinity with nonzero y', '40' + zeros(uW - 2) + '01');
  flags('compressed infinity with sign bit set', 'e0' + zeros(cW - 1));
  flags('uncompressed infinity with sign bit set', '60' + zeros(uW - 1));
  flags('uncompressed all-zero with only the sign bit', '20' + zeros(uW - 1));

  // Coordinates >= p with the flags kept. For x = p + x0 a lax decoder that reduces mod p would
  // find a valid point, so those are the interesting ones.
  const firstFp = (pt) => coords.big(pt.x)[0]; // the 48 bytes that carry the flags
  let small;
  do small = kit.valid();
  while (firstFp(small) + P >= 1n << 381n);
  canonical('compressed, first coordinate + p (reduces to a valid point)', hexAdd(c(small), 0, 48, P));
  canonical('uncompressed, first coordinate of x + p', hexAdd(u(small), 0, 48, P));
  canonical('uncompressed, first coordinate of y + p', hexAdd(u(pts[0]), W, 48, P));
  canonical('compressed, first coordinate = p exactly', set0(hexAdd(zeros(W), 0, 48, P), FLAG_C));
  canonical('compressed, all value bits set', '9f' + 'ff'.repeat(W - 1));
  if (W === 96) {
    const x0 = BigInt('0x' + c(pts[3]).slice(96));
    canonical('compressed, x.c0 + p (reduces to a valid point)', hexAdd(c(pts[1]), 48, 48, P));
    canonical('uncompressed, x.c0 + p', hexAdd(u(pts[2]), 48, 48, P));
    canonical('uncompressed, y.c0 + p', hexAdd(u(pts[3]), 144, 48, P));
    canonical('compressed, x.c0 = 2^384 - 1', hexAdd(c(pts[3]), 48, 48, (1n << 384n) - 1n - x0));
  }

  const offCurve = () => encode(coords, kit.offCurveX(), F.ZERO, true);
  for (let i = 0; i < 3; i++) curve('compressed x with x^3 + b a non-square', offCurve());
  curve('compressed x with x^3 + b a non-square, sign bit set', set0(offCurve(), FLAG_S));
  curve('uncompressed, y + 1', encode(coords, pts[0].x, F.add(pts[0].y, F.ONE), false));
  curve('uncompressed, x + 1', encode(coords, F.add(pts[1].x, F.ONE), pts[1].y, false));
  curve('uncompressed all zeros without infinity flag: (0, 0)', zeros(uW));

  for (let i = 0; i < 3; i++) {
    const { x, y } = kit.outsideSubgroup();
    subgroup('compressed, on curve, outside the r-torsion', encode(coords, x, y, true));
    subgroup('uncompressed, on curve, outside the r-torsion', encode(coords, x, y, false));
  }
  if (W === 48) subgroup('compressed x = 0: (0, 2) is on the curve, outside G1', '80' + zeros(47));
  // Every entry must be refused by noble; record why.
  for (const e of out) {
    let err = null;
    try {
      Point.fromHex(e.hex);
    } catch (ex) {
      err = ex.message;
    }
    check(err !== null, `noble accepted invalid ${name} encoding (${e.note}): ${e.hex}`);
    e.noble_error = err;
  }
  return out;
}

function validEntries(Point, kit, W) {
  const out = [];
  const add = (hex, note) => {
    const pt = Point.fromHex(hex); // throws if noble rejects it
    out.push({ hex, compressed: c(pt), note });
  };
  add('c0' + '00'.repeat(W - 1), 'compressed infinity');
  add('40' + '00'.repeat(2 * W - 1), 'uncompressed infinity');
  add(c(Point.BASE), 'generator, compressed');
  add(u(Point.BASE), 'generator, uncompressed');
  for (let i = 0; i < 3; i++) {
    const pt = kit.valid();
    add(c(pt), 'compressed');
    add(u(pt), 'uncompressed');
    add(setByte0(c(pt), (x) => x ^ FLAG_S), 'compressed with the sign bit flipped: the negation');
  }
  return out;
}

function genSerialization() {
  const rng = new Rng('serialization_invalid.json');
  const g1 = curveKit(G1, Fp, 4n, g1Coords, rng, () => rng.below(P));
  const g2 = curveKit(G2, Fp2, Fp2.create({ c0: 4n, c1: 4n }), g2Coords, rng, () => rng.fp2());
  emit('serialization_invalid.json', {
    g1: invalidEntries(G1, g1, 48, 'G1'),
    g2: invalidEntries(G2, g2, 96, 'G2'),
    valid: { g1: validEntries(G1, g1, 48), g2: validEntries(G2, g2, 96) },
  });
}

// ---------------------------------------------------------------------------------------------
// Pairings.
function genPairing() {
  const rng = new Rng('pairing.json');
  const e = (p, q) => bls12_381.pairing(p, q);
  const cases = [];
  for (let i = 0; i < 8; i++) {
    const p = i === 0 || i === 2 ? G1.BASE : G1.BASE.multiply(rng.nonzero(R));
    const q = i === 0 || i === 1 ? G2.BASE : G2.BASE.multiply(rng.nonzero(R));
    cases.push({ p: c(p), q: c(q), e: hFp12(e(p, q)) });
  }
  // Bilinearity spot check: e(aP, bQ) == e(P, Q)^(ab).
  const [a, b] = [rng.nonzero(R), rng.nonzero(R)];
  const e11 = e(G1.BASE, G2.BASE);
  check(Fp12.eql(e(G1.BASE.multiply(a), G2.BASE.multiply(b)), Fp12.pow(e11, (a * b) % R)), 'bilinear');
  check(!Fp12.eql(e11, Fp12.ONE) && Fp12.eql(Fp12.pow(e11, R), Fp12.ONE), 'e(G1, G2) has order r');
  // Published value (zkcrypto/pairing tests): the first two Fp coefficients of e(G1, G2).
  check(hFp12(e11)[0][0].join('') === E_G1_G2_C000_C001, 'e(G1, G2) matches zkcrypto/pairing');

  const g1 = (k) => G1.BASE.multiply(k);
  const g2 = (k) => G2.BASE.multiply(k);
  const s = () => rng.nonzero(R);
  const [x, y, z, w, t] = [s(), s(), s(), s(), s()];
  const P1 = g1(s());
  const Q1 = g2(s());
  const products = [
    [[g1(x), g2(y)], [g1(R - ((x * y) % R)), G2.BASE]], // e(xP, yQ) e(-xyP, Q) = 1
    // Groth16-shaped: e(-A, B) e(C1, D1) e(C2, D2) = 1 with A*B = C1*D1 + C2*D2 in exponents.
    [[g1(R - 1n).multiply((x * y + z * w) % R), G2.BASE], [g1(x), g2(y)], [g1(z), g2(w)]],
    [[P1.multiply(t), Q1], [P1, Q1.multiply(t).negate()]], // non-generator bases
    [[g1(x), g2(y)], [g1(R - ((x * y) % R) + 1n), G2.BASE]], // off by one
    [[g1(x), g2(y)], [g1(z), g2(w)]],
    [[G1.BASE, G2.BASE]],
  ].map((pairs) => {
    const prod = bls12_381.pairingBatch(pairs.map(([p, q]) => ({ g1: p, g2: q })));
    const naive = pairs.reduce((acc, [p, q]) => Fp12.mul(acc, e(p, q)), Fp12.ONE);
    check(Fp12.eql(prod, naive), 'pairingBatch == product of pairings');
    return { pairs: pairs.map(([p, q]) => [c(p), c(q)]), product_is_one: Fp12.eql(prod, Fp12.ONE) };
  });
  check(products.map((p) => p.product_is_one).join() === 'true,true,true,false,false,false', 'product flags');
  emit('pairing.json', { cases, products });
}

// ---------------------------------------------------------------------------------------------
// Multi-scalar multiplication: expected value is the naive sum, cross-checked with pippenger.
function msmCases(Point, rng, sizeList) {
  const cases = [];
  sizeList.forEach((n, idx) => {
    const points = Array.from({ length: n }, () => Point.BASE.multiply(rng.nonzero(R)));
    const scalars = Array.from({ length: n }, () => rng.below(R));
    if (n >= 4 && idx % 2 === 1) {
      // Edge cases: zero, one, r - 1, a repeated point and a point next to its negation.
      scalars[0] = 0n;
      scalars[1] = 1n;
      scalars[n - 1] = R - 1n;
      points[3] = points[2];
      if (n >= 6) points[5] = points[4].negate();
    }
    let acc = Point.ZERO;
    for (let i = 0; i < n; i++) acc = acc.add(points[i].multiplyUnsafe(scalars[i]));
    check(acc.equals(pippenger(Point, points, scalars)), 'naive MSM == pippenger');
    cases.push({ n, points: points.map(c), scalars: scalars.map(hFr), result: c(acc) });
  });
  return cases;
}

function genMsm() {
  const g1Sizes = [1, 2, 3, 4, 7, 8, 31, 64, 100, 255, 256, 1024];
  emit('msm_g1.json', { cases: msmCases(G1, new Rng('msm_g1.json'), g1Sizes) });
  emit('msm_g2.json', { cases: msmCases(G2, new Rng('msm_g2.json'), [1, 2, 3, 8, 33, 128]) });
}

// ---------------------------------------------------------------------------------------------
// NTT over Fr, computed naively in O(n^2); noble's FFT is only a cross-check.
function genNtt() {
  const rng = new Rng('ntt.json');
  const root = Fr.pow(7n, (R - 1n) >> 32n);
  const nobleFft = FFT(rootsOfUnity(Fr, 7n), Fr);
  const dft = (xs, base) => xs.map((_, i) => {
    const wi = Fr.pow(base, BigInt(i));
    let sum = 0n;
    let pw = 1n;
    for (const x of xs) {
      sum = (sum + x * pw) % R;
      pw = (pw * wi) % R;
    }
    return sum;
  });
  const cases = [];
  for (let k = 0; k <= 10; k++) {
    const n = 1 << k;
    const omega = Fr.pow(root, 1n << BigInt(32 - k));
    const input = Array.from({ length: n }, () => rng.below(R));
    const forward = dft(input, omega);
    // Coset: y_i = sum_j x_j (g w^i)^j = DFT(x_j g^j)_i with g = 7.
    const coset = dft(input.map((x, j) => Fr.mul(x, Fr.pow(7n, BigInt(j)))), omega);
    const nInv = Fr.inv(BigInt(n));
    const back = dft(forward, Fr.inv(omega)).map((v) => Fr.mul(v, nInv));
    check(back.every((v, j) => v === input[j]), 'inverse DFT round trip');
    check(nobleFft.direct(input).every((v, i) => v === forward[i]), "noble's FFT agrees");
    if (k > 0) check(Fr.pow(omega, BigInt(n / 2)) === R - 1n, 'omega has exact order n');
    const [x, y, z] = [input, forward, coset].map((v) => v.map(hFr));
    cases.push({ k, omega: hFr(omega), input: x, forward: y, coset_forward: z });
  }
  emit('ntt.json', { generator: '7', root_of_unity_2_32: hFr(root), cases });
}

// ---------------------------------------------------------------------------------------------
// Second pass: re-read every file from disk and re-derive the expected values with noble.
function verifyFiles() {
  const load = (name) => JSON.parse(readFileSync(path.join(OUT_DIR, name), 'utf8'));
  const big = (h) => BigInt('0x' + h);
  const fp2 = ([a, b]) => Fp2.create({ c0: big(a), c1: big(b) });
  const fp6 = ([a, b, c2]) => ({ c0: fp2(a), c1: fp2(b), c2: fp2(c2) });
  const fp12 = ([a, b]) => ({ c0: fp6(a), c1: fp6(b) });
  const same = (x, y, what) => check(JSON.stringify(x) === JSON.stringify(y), `file ${what}`);
  for (const [name, F, hex] of [['fp.json', Fp, hFp], ['fr.json', Fr, hFr]]) {
    for (const k of load(name).cases) {
      const [a, b] = [big(k.a), big(k.b)];
      const got = [F.add(a, b), F.sub(a, b), F.mul(a, b), F.sqr(a), F.neg(a)].map(hex);
      same(got, [k.add, k.sub, k.mul, k.sqr, k.neg_a], name);
      check(k.inv_a === null ? a === 0n : F.mul(a, big(k.inv_a)) === 1n, `${name} inv`);
      check(k.sqrt_a === null ? k.legendre_a === -1 : F.sqr(big(k.sqrt_a)) === a, `${name} sqrt`);
    }
  }
  for (const k of load('fp2.json').cases) {
    const [a, b] = [fp2(k.a), fp2(k.b)];
    same([Fp2.add(a, b), Fp2.sub(a, b), Fp2.mul(a, b), Fp2.sqr(a), Fp2.frobeniusMap(a, 1)].map(hFp2),
      [k.add, k.sub, k.mul, k.sqr, k.frobenius_a], 'fp2.json');
    if (k.inv_a !== null) check(Fp2.eql(Fp2.mul(a, fp2(k.inv_a)), Fp2.ONE), 'fp2.json inv');
    if (k.sqrt_a !== null) check(Fp2.eql(Fp2.sqr(fp2(k.sqrt_a)), a), 'fp2.json sqrt');
  }
  const f12 = load('fp12.json');
  for (const k of f12.cases) {
    const [a, b] = [fp12(k.a), fp12(k.b)];
    const frob = (n) => Fp12.frobeniusMap(a, n);
    const got = [Fp12.mul(a, b), Fp12.sqr(a), frob(1), frob(2), frob(3)].map(hFp12);
    same(got, [k.mul, k.sqr, k.frob1_a, k.frob2_a, k.frob3_a], 'fp12.json');
    check(Fp12.eql(Fp12.mul(a, fp12(k.inv_a)), Fp12.ONE), 'fp12.json inv');
  }
  for (const k of f12.cyclotomic) same(hFp12(Fp12.sqr(fp12(k.cyclo))), k.cyclo_sqr, 'fp12.json cyclo');
  for (const [name, Point] of [['g1.json', G1], ['g2.json', G2]]) {
    for (const k of load(name).cases) {
      const [p, q] = [Point.fromHex(k.p), Point.fromHex(k.q)];
      check(Point.fromHex(k.p_uncompressed).equals(p), `${name} uncompressed`);
      const got = [p.add(q), p.double(), p.negate(), p.multiplyUnsafe(big(k.k))].map(c);
      same(got, [k.add, k.dbl, k.neg_p, k.k_p], name);
    }
  }
  const ser = load('serialization_invalid.json');
  for (const [g, Point] of [['g1', G1], ['g2', G2]]) {
    const rejects = (hex) => tryOr(() => Point.fromHex(hex) && false, true);
    for (const e of ser[g]) check(rejects(e.hex), `still invalid: ${e.hex}`);
    for (const e of ser.valid[g]) check(c(Point.fromHex(e.hex)) === e.compressed, `valid ${g}: ${e.hex}`);
  }
  const pair = load('pairing.json');
  for (const k of pair.cases) {
    same(hFp12(bls12_381.pairing(G1.fromHex(k.p), G2.fromHex(k.q))), k.e, 'pairing.json');
  }
  for (const k of pair.products) {
    const prod = bls12_381.pairingBatch(k.pairs.map(([p, q]) => ({ g1: G1.fromHex(p), g2: G2.fromHex(q) })));
    check(Fp12.eql(prod, Fp12.ONE) === k.product_is_one, 'pairing.json product');
  }
  for (const [name, Point] of [['msm_g1.json', G1], ['msm_g2.json', G2]]) {
    for (const k of load(name).cases) {
      const res = pippenger(Point, k.points.map((h) => Point.fromHex(h)), k.scalars.map(big));
      check(c(res) === k.result && k.points.length === k.n, `${name} n=${k.n}`);
    }
  }
  const fft = FFT(rootsOfUnity(Fr, 7n), Fr);
  for (const k of load('ntt.json').cases) {
    const x = k.input.map(big);
    same(fft.direct(x).map(hFr), k.forward, `ntt.json k=${k.k}`);
    const shifted = x.map((v, j) => Fr.mul(v, Fr.pow(7n, BigInt(j))));
    same(fft.direct(shifted).map(hFr), k.coset_forward, 'ntt coset');
    same(fft.inverse(k.forward.map(big)).map(hFr), k.input, 'ntt inverse');
  }
}

// ---------------------------------------------------------------------------------------------
const steps = {
  genFp, genFr, genFp2, genFp12, genGroups, genSerialization, genPairing, genMsm, genNtt, verifyFiles,
};
for (const [name, fn] of Object.entries(steps)) {
  const t0 = Date.now();
  fn();
  console.error(`${name}: ${Date.now() - t0} ms`);
}
let total = 0;
for (const [name, n] of sizes) {
  console.log(`${String(n).padStart(9)}  tests/vectors/${name}`);
  total += n;
}
console.log(`${String(total).padStart(9)}  total bytes`);
