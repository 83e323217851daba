# tests/hostile/fixtures.py: what the hostile cases start from, made once per run and shared:
# the programs, a groth16 demo's snarkjs files, a sealed tiny porep sector and its vanilla
# proofs (binary, JSON, partition 1 only), a tiny snapdeals update, and one params directory for
# snapdeals tiny made by the seeded setup through `zkpipe prove` (copied by the cases that need
# existing params). A fixture that cannot be made raises FixtureError with the failed run; the
# cases needing it are then WRONG (a correct input failed), reported once each.
# Thread-safety: each fixture is made under its own lock; afterwards read-only.
import os
import re
import shutil
import threading

import hostile


class FixtureError(Exception):
    def __init__(self, what, r):
        super().__init__(what)
        self.what, self.run = what, r


class Fixtures:
    def __init__(self, build_dir, work_dir, seed):
        self.build = os.path.abspath(build_dir)
        self.source = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
        self.tool = os.path.join(self.build, "bin", "zkpipe-tool")
        self.zkpipe = os.path.join(self.build, "bin", "zkpipe")
        self.plugins = os.path.join(self.build, "plugins")
        self.work = work_dir
        self.seed = seed
        self._locks, self._made = {}, {}
        self._guard = threading.Lock()
        self.setup_secs = None  # the measured prove on a fresh params dir (seeded setup)
        self.prove_secs = None  # the measured prove with existing params

    def _once(self, key, make):
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._made:
                try:
                    self._made[key] = (True, make())
                except FixtureError as e:
                    self._made[key] = (False, e)
            ok, value = self._made[key]
            if not ok:
                raise value
            return value

    def _dir(self, name):
        d = os.path.join(self.work, "fixtures", name)
        os.makedirs(d, exist_ok=True)
        return d

    def _must(self, what, cmd, timeout=hostile.PROVE_TIMEOUT):
        r = hostile.run(cmd, timeout)
        if r.rc != 0:
            raise FixtureError(what, r)
        return r

    # --- configs -------------------------------------------------------------------------------

    def config_text(self, params_dir, missing="fail", plugin_dirs=None, threads=0):
        """configs/cpu.yaml with params.dir (and filecoin_dir in it), params.missing and plugin_dirs
        replaced."""
        with open(os.path.join(self.source, "configs", "cpu.yaml")) as f:
            text = f.read()
        text = re.sub(r"(?m)^(  dir:).*$", rf"\1 {params_dir}", text)
        text = re.sub(r"(?m)^(  filecoin_dir:).*$", rf"\1 {params_dir}/filecoin", text)
        text = re.sub(r"(?m)^(  missing:).*$", rf"\1 {missing}", text)
        text = re.sub(r"(?m)^(  threads:)\s*\d+", rf"\1 {threads}", text)
        if plugin_dirs is not None:
            dirs = ", ".join(f'"{d}"' for d in plugin_dirs)
            text = re.sub(r"(?m)^(version: 1.*)$", rf"\1\nplugin_dirs: [{dirs}]", text)
        return text

    def config(self, path, params_dir, **kw):
        with open(path, "w") as f:
            f.write(self.config_text(params_dir, **kw))
        return path

    def prove_cmd(self, config, request, proof="snapdeals", *extra):
        return [self.zkpipe, "prove", "--config", config, "--proof", proof, "--input", request,
                *extra]

    # --- groth16 -------------------------------------------------------------------------------

    def demo(self):
        """A groth16 demo's directory: verification_key.json, proof.json, public.json (cubic)."""
        def make():
            d = os.path.join(self._dir("demo"), "out")
            self._must("groth16 demo", [self.tool, "groth16", "demo", "--circuit", "cubic",
                                        "--seed", str(self.seed), "--out", d], timeout=60)
            return d
        return self._once("demo", make)

    # --- requests ------------------------------------------------------------------------------

    def porep_sector(self):
        def make():
            p = os.path.join(self._dir("porep"), "sector")
            self._must("porep seal", [self.tool, "proof-type", "porep", "seal", "--shape", "tiny", "--seed",
                                      str(self.seed), "--out", p], timeout=60)
            return p
        return self._once("porep_sector", make)

    def porep_request(self, json=False, partitions=()):
        key = f"porep_request:{json}:{','.join(map(str, partitions))}"

        def make():
            sector = self.porep_sector()
            name = "vanilla" + "".join(f"-p{k}" for k in partitions) + (".json" if json else ".bin")
            p = os.path.join(self._dir("porep"), name)
            cmd = [self.tool, "proof-type", "porep", "vanilla", "--sector", sector, "--challenge-seed",
                   f"c{self.seed}", "--out", p]
            for k in partitions:
                cmd += ["--partition", str(k)]
            if json:
                cmd.append("--json")
            self._must("porep vanilla", cmd, timeout=60)
            return p
        return self._once(key, make)

    def snap_sector(self):
        def make():
            p = os.path.join(self._dir("snapdeals"), "sector")
            self._must("porep seal --empty", [self.tool, "proof-type", "porep", "seal", "--shape", "tiny",
                                              "--empty", "--seed", str(self.seed), "--out", p],
                       timeout=60)
            return p
        return self._once("snap_sector", make)

    def snap_request(self, json=False, partitions=()):
        key = f"snap_request:{json}:{','.join(map(str, partitions))}"

        def make():
            sector = self.snap_sector()
            name = "update" + "".join(f"-p{k}" for k in partitions) + (".json" if json else ".bin")
            p = os.path.join(self._dir("snapdeals"), name)
            cmd = [self.tool, "proof-type", "snapdeals", "update", "--sector", sector, "--data-seed",
                   f"d{self.seed}", "--out", p]
            for k in partitions:
                cmd += ["--partition", str(k)]
            if json:
                cmd.append("--json")
            self._must("snapdeals update", cmd, timeout=60)
            return p
        return self._once(key, make)

    # --- params --------------------------------------------------------------------------------

    def params(self):
        """A directory holding snapdeals tiny params (seeded setup) and their `.validated` marks,
        made by a `zkpipe prove` on a fresh directory and then proved with once more (timed)."""
        def make():
            d = self._dir("params")
            pdir = os.path.join(d, "params")
            cfg = self.config(os.path.join(d, "setup.yaml"), pdir, missing="setup")
            req = self.snap_request()
            r = self._must("zkpipe prove (fresh params, seeded setup)",
                           self.prove_cmd(cfg, req, "snapdeals", "--out", os.path.join(d, "p0")),
                           timeout=240)
            self.setup_secs = r.secs
            cfg = self.config(os.path.join(d, "fail.yaml"), pdir, missing="fail")
            r = self._must("zkpipe prove (existing params)",
                           self.prove_cmd(cfg, req, "snapdeals", "--out", os.path.join(d, "p1")))
            self.prove_secs = r.secs
            return pdir
        return self._once("params", make)

    def link_params(self, dest, copy=()):
        """A params directory of symlinks to the shared files (their `.validated` stamps still
        match, so no point-by-point validation: a copy, a new inode, would take ~40 s on 2 cores) except the names in `copy`, which are copied;
        the stamps are copied and the lock is the directory's own."""
        src = self.params()
        os.makedirs(dest)
        for name in os.listdir(src):
            if name.endswith(".lock"):
                continue
            if name.endswith(".validated") or name in copy:
                shutil.copy2(os.path.join(src, name), os.path.join(dest, name))
            else:
                os.symlink(os.path.join(src, name), os.path.join(dest, name))
        return dest
