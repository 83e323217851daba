# tests/hostile/cases_plugins.py: hostile plugin files and plugin directories.
# Class 6: `zkpipe-tool validate --plugin-dir DIR` over a copy of a real plugin (pageable.so)
# with .dynsym, .dynamic, .text or .rela.dyn overwritten (whole section: the row must FAIL; a
# seeded 16-byte window: FAIL or PASS, the corruption may be harmless), a FIFO named
# pageable.so, a directory named x.so, random bytes as a .so: validate must neither crash nor
# hang, and report a FAIL row. Manifests truncated or with a byte changed (already holding).
# Class 7: `zkpipe prove` with plugin_dirs naming a missing path, a regular file, or a folder of
# random .so files must fail: exit 0 is a silent fall back to the build's plugins (WRONG).
import re
import os
import shutil
import struct

import hostile
from hostile import OK, UNCLEAR, WRONG, Case

PLUGIN = "pageable"
VALIDATE_TIMEOUT = 5  # validate --timeout: seconds per plugin child


def elf_sections(data):
    """{name: (offset, size)} of an ELF64 little-endian file's sections."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    str_off = headers[shstrndx][4]
    out = {}
    for name, _type, _flags, _addr, off, size in headers:
        end = data.index(b"\0", str_off + name)
        out[data[str_off + name:end].decode()] = (off, size)
    return out


def _plugin_dir(ctx, so_bytes=None, so_kind="file", name=PLUGIN, manifest=None):
    d = ctx.path("plugins")
    os.makedirs(d)
    src = os.path.join(ctx.fx.plugins, PLUGIN)
    with open(src + ".plugin.toml") as f:
        text = f.read()
    if name != PLUGIN:
        text = text.replace(f'name = "{PLUGIN}"', f'name = "{name}"')
    with open(os.path.join(d, name + ".plugin.toml"), "w") as f:
        f.write(text if manifest is None else manifest(text))
    so = os.path.join(d, name + ".so")
    if so_kind == "fifo":
        os.mkfifo(so)
    elif so_kind == "dir":
        os.mkdir(so)
    else:
        if so_bytes is None:
            shutil.copy(src + ".so", so)
        else:
            with open(so, "wb") as f:
                f.write(so_bytes)
    return d


def _validate(ctx, d):
    return ctx.run([ctx.fx.tool, "validate", "--plugin-dir", d, "--timeout",
                    str(VALIDATE_TIMEOUT)], timeout=VALIDATE_TIMEOUT * 4 + 10)


def _judge_validate(r, must_fail):
    fail_row = "FAIL" in r.out
    if r.rc == 1 and fail_row:
        return OK, "a FAIL row (exit 1)"
    if r.rc == 0 and not must_fail:
        return OK, "PASS (the corruption was harmless)"
    if r.rc == 0:
        return WRONG, "exit 0: a broken plugin file passed validation"
    return UNCLEAR, f"{r.describe()} {'with' if fail_row else 'without'} a FAIL row"


def corrupt_section(section, whole, seed):
    def fn(ctx):
        import random
        rng = random.Random(seed)
        with open(os.path.join(ctx.fx.plugins, PLUGIN + ".so"), "rb") as f:
            data = bytearray(f.read())
        off, size = elf_sections(data)[section]
        if whole:
            data[off:off + size] = bytes(rng.randrange(256) for _ in range(size))
        else:
            at = off + rng.randrange(max(1, size - 16))
            data[at:at + 16] = bytes(rng.randrange(256) for _ in range(16))
        return _judge_validate(_validate(ctx, _plugin_dir(ctx, bytes(data))), must_fail=whole)
    return fn


def odd_file(so_kind=None, so_bytes=None, name=PLUGIN):
    def fn(ctx):
        d = _plugin_dir(ctx, so_bytes, so_kind or "file", name)
        return _judge_validate(_validate(ctx, d), must_fail=True)
    return fn


def manifest_mutation(mutate):
    def fn(ctx):
        r = _validate(ctx, _plugin_dir(ctx, manifest=mutate))
        if r.rc in (0, 1) and ("PASS" in r.out or "FAIL" in r.out):
            return OK, f"{r.describe()}, a {'PASS' if r.rc == 0 else 'FAIL'} row"
        if r.rc in (1, 2) and r.names("plugin.toml"):
            return OK, f"refused naming the manifest ({r.describe()})"
        return UNCLEAR, r.describe()
    return fn


def prove_with_plugin_dirs(make_dirs):
    def fn(ctx):
        dirs = make_dirs(ctx)
        cfg = ctx.fx.config(ctx.path("c.yaml"), ctx.fx.params(), missing="fail", plugin_dirs=dirs)
        r = ctx.run(ctx.fx.prove_cmd(cfg, ctx.fx.snap_request(), "snapdeals",
                                     "--out", ctx.path("proof")), timeout=hostile.PROVE_TIMEOUT)
        return hostile.refused(r, "plugin_dirs", "plugin", what="a config without usable plugins")
    return fn


def cases(fx, rng, quick):
    cls = "6 plugin-files"
    out = []
    for section in (".dynsym", ".dynamic", ".text", ".rela.dyn"):
        out.append(Case(cls, f"{PLUGIN}.so with {section} overwritten", corrupt_section(
            section, True, rng.randrange(2**32))))
        if not quick:
            seed = rng.randrange(2**32)
            out.append(Case(cls, f"{PLUGIN}.so with 16 bytes of {section} changed (seed {seed})",
                            corrupt_section(section, False, seed)))
    noise = bytes(rng.randrange(256) for _ in range(4096))
    with open(os.path.join(fx.plugins, PLUGIN + ".so"), "rb") as f:
        head = f.read(64)
    out += [
        Case(cls, "a FIFO named pageable.so", odd_file("fifo")),
        Case(cls, "a directory named x.so", odd_file("dir", name="x")),
        Case(cls, "random bytes as pageable.so", odd_file(so_bytes=noise)),
        Case(cls, "an ELF header then random bytes", odd_file(so_bytes=head + noise)),
        Case(cls, "an empty pageable.so", odd_file(so_bytes=b"")),
    ]
    cls = "manifests"
    cut = rng.randrange(10, 120)
    out += [
        Case(cls, f"manifest truncated at byte {cut}", manifest_mutation(lambda t: t[:cut])),
        Case(cls, "manifest with a duplicate key", manifest_mutation(lambda t: t + 'kind = "memory"\n')),
        Case(cls, "manifest abi = \"99.0\"", manifest_mutation(
            lambda t: re.sub(r'abi = "[0-9.]+"', 'abi = "99.0"', t, count=1))),
        Case(cls, "manifest with a NUL byte", manifest_mutation(lambda t: t[:20] + "\0" + t[20:])),
    ]
    if not quick:
        for k in range(3):
            at, ch = rng.randrange(200), chr(rng.randrange(32, 127))
            out.append(Case(cls, f"manifest byte {at} set to {ch!r}", manifest_mutation(
                lambda t, at=at, ch=ch: t[:at] + ch + t[at + 1:])))

    cls = "7 plugin-dirs"

    def a_file(ctx):
        p = ctx.path("not-a-dir")
        open(p, "w").write("x")
        return [p]

    def random_sos(ctx):
        d = ctx.path("randoms")
        os.makedirs(d)
        for name in ("pageable", "snapdeals", "junk"):
            with open(os.path.join(d, name + ".so"), "wb") as f:
                f.write(noise)
        return [d]

    out += [
        Case(cls, "plugin_dirs: [/nonexistent]",
             prove_with_plugin_dirs(lambda ctx: ["/nonexistent-hostile-" + str(fx.seed)])),
        Case(cls, "plugin_dirs: [a regular file]", prove_with_plugin_dirs(a_file)),
        Case(cls, "plugin_dirs: [a folder of random .so files]", prove_with_plugin_dirs(random_sos)),
        Case(cls, "plugin_dirs: [an empty folder]",
             prove_with_plugin_dirs(lambda ctx: [os.makedirs(ctx.path("e")) or ctx.path("e")])),
    ]
    return out
