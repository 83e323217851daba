# tests/hostile/cases_outputs.py: where `zkpipe prove` writes (class 2). --out, --trace,
# --status and --metrics pointing at a character device of our own (mknod c 1 7: a private
# /dev/full, never the system's), a directory or a FIFO, and --snarkjs at a device, a FIFO or a
# regular file: exit non-zero before any proving, naming the option or path, and the node left
# as it was (a device turned into a regular file, or exit 0, is WRONG). A symlink to a regular
# file (for --snarkjs: to a directory) is followed: the link stays a link, its target gets the
# output. A full output (RLIMIT_FSIZE below the proof's size, SIGXFSZ ignored) and a read-only
# output directory (as uid 65534 when the suite runs as root, since root ignores modes) fail
# naming the path and leave no truncated file under the real name. That user runs copies of
# zkpipe and the three plugins it loads, in the case's own directory: the build may lie where
# other users cannot enter (a checkout under /root or a 0700 temporary folder).
import os
import resource
import shutil
import signal
import stat

import hostile
from hostile import OK, UNCLEAR, WRONG, Case

OPTIONS = ("--out", "--trace", "--status", "--metrics", "--snarkjs")
NOBODY = 65534


def make_node(path, kind):
    """Creates a node of `kind`; False when this machine does not allow it (mknod)."""
    if kind == "chardev":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        except PermissionError:
            return False
    elif kind == "dir":
        os.mkdir(path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "file":
        with open(path, "w") as f:
            f.write("not a directory\n")
    return True


def _fingerprint(path):
    st = os.lstat(path)
    listing = sorted(os.listdir(path)) if stat.S_ISDIR(st.st_mode) else None
    return stat.S_IFMT(st.st_mode), st.st_rdev, st.st_ino, listing


def _proved(r):
    return "GPU_TIMING" in r.out


def bad_node(option, kind):
    def fn(ctx):
        node = ctx.path(f"node-{kind}")
        if not make_node(node, kind):
            return UNCLEAR, "cannot mknod here (no CAP_MKNOD): not tried"
        before = _fingerprint(node)
        cfg = ctx.fx.config(ctx.path("c.yaml"), ctx.fx.params(), missing="fail")
        r = ctx.run(ctx.fx.prove_cmd(cfg, ctx.fx.snap_request(), "snapdeals", option, node),
                    timeout=hostile.PROVE_TIMEOUT)
        after = _fingerprint(node)
        if after[:3] != before[:3]:
            return WRONG, f"the {kind} at {option} was replaced (mode {before[0]:o} -> {after[0]:o})"
        if after[3] != before[3]:
            return WRONG, f"files were written into the directory at {option}: {after[3]}"
        if r.rc == 0:
            return WRONG, f"exit 0 with {option} at a {kind}"
        if _proved(r):
            return WRONG, f"refused {option} only after proving (a proof made to be lost)"
        return hostile.refused(r, option, node)
    return fn


def symlinks(ctx):
    """Every file output through a symlink to an existing regular file, and --snarkjs through a
    symlink to a directory: followed."""
    fx = ctx.fx
    cfg = fx.config(ctx.path("c.yaml"), fx.params(), missing="fail")
    args, links = [], {}
    for option in OPTIONS[:4]:
        target, link = ctx.path(f"target{option}"), ctx.path(f"link{option}")
        with open(target, "w") as f:
            f.write("old\n")
        os.symlink(target, link)
        args += [option, link]
        links[option] = (link, target)
    sj_dir, sj_link = ctx.path("snarkjs-target"), ctx.path("snarkjs-link")
    os.mkdir(sj_dir)
    os.symlink(sj_dir, sj_link)
    r = ctx.run(fx.prove_cmd(cfg, fx.snap_request(), "snapdeals", *args, "--snarkjs", sj_link),
                timeout=hostile.PROVE_TIMEOUT)
    if r.rc != 0:
        return WRONG, f"outputs through symlinks to regular files failed ({r.describe()})"
    if not os.path.islink(sj_link) or "proof_1.json" not in os.listdir(sj_dir):
        return WRONG, "--snarkjs through a symlink to a directory: link replaced or dir not written"
    for option, (link, target) in links.items():
        if not os.path.islink(link):
            return WRONG, f"the symlink at {option} was replaced by a file"
        if open(target, "rb").read() == b"old\n":
            return WRONG, f"the target of {option}'s symlink was not written"
    if os.path.getsize(links["--out"][1]) != 2 * 192:
        return WRONG, "the proof behind the --out symlink is not 2 x 192 bytes"
    return OK, "followed; links kept, targets written"


def _leftovers(d, keep):
    return sorted(n for n in os.listdir(d) if n not in keep)


def full_output(ctx):
    """Writes fail with EFBIG past 300 bytes (the proof is 384): refused naming --out's path, no
    truncated proof under the real name, no temporary file left."""
    fx = ctx.fx
    cfg = fx.config(ctx.path("c.yaml"), fx.params(), missing="fail")
    out_dir = ctx.path("out")
    os.mkdir(out_dir)
    proof = os.path.join(out_dir, "proof")
    r = ctx.run(fx.prove_cmd(cfg, fx.snap_request(), "snapdeals", "--out", proof),
                timeout=hostile.PROVE_TIMEOUT, limits={resource.RLIMIT_FSIZE: 300},
                ignore_signals=(signal.SIGXFSZ,))
    if r.rc == 0:
        return WRONG, "exit 0 although the proof could not be written"
    if os.path.exists(proof):
        return WRONG, f"a {os.path.getsize(proof)}-byte file left under the proof's name"
    left = _leftovers(out_dir, ())
    if left:
        return UNCLEAR, f"temporary files left beside the output: {left}"
    return hostile.refused(r, proof, "--out")


def read_only_output(ctx):
    fx = ctx.fx
    uid = NOBODY if os.geteuid() == 0 else None
    pdir = fx.link_params(ctx.path("params"))
    if uid is not None:  # its params lock and stamps are the user's own
        for name in [""] + os.listdir(pdir):
            os.chown(os.path.join(pdir, name), uid, uid, follow_symlinks=False)
    zkpipe, plugin_dirs = fx.zkpipe, None
    if uid is not None:
        zkpipe, plugin_dirs = ctx.path("bin", "zkpipe"), [ctx.path("plugins")]
        os.makedirs(os.path.dirname(zkpipe))
        shutil.copy2(fx.zkpipe, zkpipe)
        os.makedirs(plugin_dirs[0])
        for name in ("snapdeals", "cpu", "pageable"):
            for ext in (".so", ".plugin.toml"):
                shutil.copy2(os.path.join(fx.plugins, name + ext), plugin_dirs[0])
        for d in (ctx.path("bin"), plugin_dirs[0]):
            os.chmod(d, 0o755)
    cfg = fx.config(ctx.path("c.yaml"), pdir, missing="fail", plugin_dirs=plugin_dirs)
    ro = ctx.path("ro")
    os.mkdir(ro)
    os.chmod(ro, 0o555)
    os.chmod(ctx.dir, 0o755)
    proof = os.path.join(ro, "proof")
    cmd = fx.prove_cmd(cfg, fx.snap_request(), "snapdeals", "--out", proof)
    cmd[0] = zkpipe
    r = ctx.run(cmd, timeout=hostile.PROVE_TIMEOUT, uid=uid)
    if r.rc == 0:
        return WRONG, "exit 0 with --out in a read-only directory"
    if os.listdir(ro):
        return WRONG, f"files appeared in the read-only directory: {os.listdir(ro)}"
    verdict = hostile.refused(r, proof, "--out")
    if verdict[0] == OK and _proved(r):
        return UNCLEAR, "refused only after proving"
    return verdict


def cases(fx, rng, quick):
    cls = "2 outputs"
    out = []
    combos = []
    for option in OPTIONS:
        kinds = ("chardev", "fifo", "file") if option == "--snarkjs" else ("chardev", "dir", "fifo")
        combos += [(option, k) for k in kinds]
    if quick:  # every option and every kind at least once
        combos = [c for i, c in enumerate(combos) if c[1] == "chardev" or i % 3 == 1]
    for option, kind in combos:
        out.append(Case(cls, f"{option} at a {kind}", bad_node(option, kind)))
    out += [
        Case(cls, "every file output through a symlink to a regular file", symlinks, heavy=True),
        Case(cls, "a full output (RLIMIT_FSIZE 300 bytes)", full_output, heavy=True),
        Case(cls, "a read-only output directory", read_only_output, heavy=True),
    ]
    return out
