#!/usr/bin/env python3
"""Generates engine/crypto/mont_mul_adx.S: Montgomery multiplication r = a b 2^(-64n) mod p for
n = 4 and 6 64-bit limbs in x86-64 assembly with MULX (BMI2) and the two carry chains of
ADCX/ADOX (ADX), the method of Intel's "New Instructions Supporting Large Integer Arithmetic"
(2012). C signature (System V):
  void zkp_mont_mul_adx_<n>(uint64_t r[n], const uint64_t a[n], const uint64_t b[n],
                            const uint64_t p[n], uint64_t inv);   // inv = -p^-1 mod 2^64
Needs p < 2^(64n - 1) and a, b < p: every intermediate then fits in n + 2 words and the result
before the final subtraction is below 2p.

CIOS with the reduction of step i deferred behind the product row of step i + 1, so the
latency of m_i = t[0] * inv (IMUL) overlaps that row instead of stalling the chain:
  t = a * b[0]
  for i in 0 .. n-1:
    m = t[0] * inv mod 2^64          (t[0] is saved to the stack; its register holds m)
    t += a * b[i+1] * 2^64           (if i + 1 < n; words 1 .. n+1)
    t += m * p                       (words 0 .. n+1; word 0 becomes 0)
    t >>= 64                         (by renaming: m's register, zeroed, is the new top word)
  if t >= p: t -= p                  (SUB/SBB into spare registers, CMOVNC back)
Every row clears CF and OF with XOR, then runs the low halves on one flag chain and the high
halves on the other. The register rotation is done here, at generation time.

Usage (from the repository root):
  python3 engine/crypto/gen/gen_mont_mul_adx.py > engine/crypto/mont_mul_adx.S
"""

REGS_T = ["%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15"]
LO, HI = "%rax", "%rbp"
A, B, P, R = "%rsi", "%rbx", "%rcx", "%rdi"
INV, T0SAVE = "0(%rsp)", "8(%rsp)"


def prologue(name, frame):
    return [f".globl {name}", f".type {name},@function", ".p2align 5", f"{name}:", "endbr64",
            "pushq %rbx", "pushq %rbp", "pushq %r12", "pushq %r13", "pushq %r14", "pushq %r15",
            f"subq ${frame}, %rsp"]


def epilogue(name, frame):
    return [f"addq ${frame}, %rsp", "popq %r15", "popq %r14", "popq %r13", "popq %r12",
            "popq %rbp", "popq %rbx", "ret", f".size {name},.-{name}"]


def fmt(out):
    return "\n".join(("" if l.endswith(":") or l.startswith(".") else "  ") + l for l in out)


def reduce_store(t, spare, p):
    """t (len(spare) registers, value below 2p) minus p at (p) if that does not borrow: SUB/SBB
    into the spare registers, CMOVNC back; then stored to (R) 16 bytes at a time: callers copy
    field elements with 16-byte vector moves, and a 16-byte load from two 8-byte stores cannot
    take store forwarding (a ~10-cycle stall per product, measured as 52 vs 42 ns per dependent
    Fp product); 8-byte loads from a 16-byte store forward fine."""
    n = len(spare)
    out = [f"movq {t[j]}, {spare[j]}" for j in range(n)]
    out += [f"{'subq' if j == 0 else 'sbbq'} {8*j}({p}), {spare[j]}" for j in range(n)]
    out += [f"cmovncq {spare[j]}, {t[j]}" for j in range(n)]
    for j in range(0, n, 2):
        out += [f"movq {t[j]}, %xmm0", f"pinsrq $1, {t[j + 1]}, %xmm0",
                f"movdqu %xmm0, {8*j}({R})"]
    return out


def gen(n):
    assert n + 2 <= len(REGS_T)
    name = f"zkp_mont_mul_adx_{n}"
    # inv arrives in r8, which becomes a t register
    out = prologue(name, 24) + ["movq %r8, " + INV, "movq %rdx, " + B]
    t = REGS_T[: n + 2]
    out += [f"xorl {r}d, {r}d" for r in t]  # 32-bit writes zero the whole register

    def mul_row(i, off):
        # t[off .. off+n] += a * b[i]
        rows = [f"movq {8*i}({B}), %rdx", f"xorl %eax, %eax"]
        for j in range(n):
            rows += [f"mulxq {8*j}({A}), {LO}, {HI}",
                     f"adoxq {LO}, {t[off + j]}",
                     f"adcxq {HI}, {t[off + j + 1]}"]
        rows += ["movl $0, %eax", f"adoxq {LO}, {t[off + n]}"]
        if off + n + 1 < n + 2:
            rows += [f"adcxq {LO}, {t[off + n + 1]}", f"adoxq {LO}, {t[off + n + 1]}"]
        return rows

    out += mul_row(0, 0)
    for i in range(n):
        m = t[0]
        out += [f"movq {m}, {T0SAVE}", f"imulq {INV}, {m}"]
        if i + 1 < n:
            out += mul_row(i + 1, 1)
        # t += m * p; t[0] (saved) + lo(m p0) == 0 mod 2^64, only its carry matters.
        out += [f"movq {m}, %rdx", "xorl %eax, %eax",
                f"mulxq 0({P}), {LO}, {HI}",
                f"adcxq {T0SAVE}, {LO}",
                f"adoxq {HI}, {t[1]}"]
        for j in range(1, n):
            out += [f"mulxq {8*j}({P}), {LO}, {HI}",
                    f"adcxq {LO}, {t[j]}",
                    f"adoxq {HI}, {t[j + 1]}"]
        out += ["movl $0, %eax",
                f"adcxq {LO}, {t[n]}", f"adcxq {LO}, {t[n + 1]}", f"adoxq {LO}, {t[n + 1]}",
                f"xorl {m}d, {m}d"]
        t = t[1:] + [m]
    # t[0 .. n-1] < 2p; t[n], t[n+1] are 0 and free, like the other spare registers.
    out += reduce_store(t, [LO, HI, "%rdx", A, B, t[n]][:n], P)
    return fmt(out + epilogue(name, 24))



def gen_mul_wide(n):
    """zkp_mul_wide_adx_<n>(uint64_t t[2n], const uint64_t a[n], const uint64_t b[n]): the full
    product, row by row (product scanning with an (n+1)-register window: after row i, t[i] is
    final and is stored)."""
    name = f"zkp_mul_wide_adx_{n}"
    out = prologue(name, 8) + ["movq %rdx, " + B]
    w = REGS_T[: n + 1]
    out += [f"xorl {r}d, {r}d" for r in w]
    for i in range(n):
        out += [f"movq {8*i}({B}), %rdx", "xorl %eax, %eax"]
        for j in range(n):
            out += [f"mulxq {8*j}({A}), {LO}, {HI}",
                    f"adoxq {LO}, {w[j]}",
                    f"adcxq {HI}, {w[j + 1]}"]
        out += ["movl $0, %eax", f"adoxq {LO}, {w[n]}",
                f"movq {w[0]}, {8*i}({R})", f"xorl {w[0]}d, {w[0]}d"]
        w = w[1:] + w[:1]
    for j in range(n):
        out.append(f"movq {w[j]}, {8*(n + j)}({R})")
    return fmt(out + epilogue(name, 8))


def gen_redc(n):
    """zkp_redc_adx_<n>(uint64_t r[n], const uint64_t t[2n], const uint64_t p[n], uint64_t inv):
    r = t 2^(-64n) mod p for t < p 2^(64n), fully reduced. With t = L + H 2^(64n):
    REDC(t) = H + (L + M p) 2^(-64n), where the second term (<= p) comes from n reduction rows
    over L alone, and H <= p - 1; so the sum is below 2p and one conditional subtraction ends it.
    (SysV: rdi = r, rsi = t, rdx = p, rcx = inv.)"""
    name = f"zkp_redc_adx_{n}"
    out = prologue(name, 8) + [f"movq %rcx, {INV}", f"movq %rdx, {B}"]  # B now holds p
    w = REGS_T[: n + 1]
    for j in range(n):
        out.append(f"movq {8*j}({A}), {w[j]}")
    out.append(f"xorl {w[n]}d, {w[n]}d")
    for i in range(n):
        out += [f"movq {w[0]}, %rdx", f"imulq {INV}, %rdx", "xorl %eax, %eax"]
        for j in range(n):
            out += [f"mulxq {8*j}({B}), {LO}, {HI}",
                    f"adcxq {LO}, {w[j]}",
                    f"adoxq {HI}, {w[j + 1]}"]
        out += ["movl $0, %eax", f"adcxq {LO}, {w[n]}"]
        # w[0] is now 0: shift by renaming, it becomes the zero top word.
        w = w[1:] + w[:1]
    # w[0..n-1] = (L + M p) / 2^(64n) <= p; add H.
    for j in range(n):
        out.append(f"{'addq' if j == 0 else 'adcq'} {8*(n + j)}({A}), {w[j]}")
    out += reduce_store(w, [LO, HI, "%rdx", A, w[n], "%rcx"][:n], B)
    return fmt(out + epilogue(name, 8))


print("""// GENERATED by engine/crypto/gen/gen_mont_mul_adx.py; do not edit. See that script for the
// method. Montgomery multiplication with MULX/ADCX/ADOX for 4 and 6 limbs (mont_mul_adx.h);
// only called when the CPU has BMI2 and ADX.
#if defined(__x86_64__) && defined(__ELF__)
.text
""" + gen(4) + "\n\n" + gen(6) + "\n\n" + gen_mul_wide(6) + "\n\n" + gen_redc(6) + """
#endif
.section .note.GNU-stack,"",@progbits
""")
