# tests/hostile/hostile.py: the hostile suite's core: running one command under a timeout (in its
# own process group, with optional rlimits, a dropped uid or a SIGKILL at a set moment), the six
# verdicts, and the Case/Context pair every generator module (cases_*.py) builds on.
# A case runs in a fresh temporary directory; every command it runs is recorded, so a non-OK
# verdict prints the commands and their output tails. Crash and hang verdicts are decided here
# for every command, whatever the case expects; the case decides OK, UNCLEAR or WRONG.
# Thread-safety: one Context per case; run() may be called from several threads at once.
import os
import re
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

OK, UNCLEAR, CRASH, HANG, WRONG, LOST = "OK", "UNCLEAR", "CRASH", "HANG", "WRONG", "LOST"
FAILING = (CRASH, HANG, WRONG, LOST)  # LOST: an accepted job gone (the daemon class)

# Output that means the process died inside, whatever its exit status says.
CRASH_MARKERS = ("terminate called", "AddressSanitizer", "UndefinedBehaviorSanitizer",
                 "Assertion", "Segmentation fault", "stack smashing detected")

QUICK_TIMEOUT = 10  # seconds: a refusal before any proving work
PROVE_TIMEOUT = 90  # seconds: a tiny snapdeals proof, params made or loaded


@dataclass
class Run:
    cmd: list
    rc: int | None  # exit status; None when killed by a signal
    sig: int | None  # the signal that ended it
    out: str  # stdout and stderr, interleaved
    timed_out: bool
    secs: float
    sent: int | None = None  # the signal we sent on purpose (kill_after)

    def text(self):
        return self.out.lower()

    def names(self, *words):
        """True when the output holds one of `words` (case-insensitive)."""
        t = self.text()
        return any(w.lower() in t for w in words)

    def describe(self):
        if self.timed_out:
            return f"timed out after {self.secs:.0f} s (killed)"
        if self.sig is not None:
            how = "sent by the suite" if self.sig == self.sent else "not sent by the suite"
            return f"killed by {signal.Signals(self.sig).name} ({how})"
        return f"exit {self.rc}"


def _preexec(limits, uid, ignore):
    def fn():
        for sig in ignore:
            signal.signal(sig, signal.SIG_IGN)
        for res, value in (limits or {}).items():
            resource.setrlimit(res, (value, value))
        if uid is not None:
            os.setgid(uid)
            os.setgroups([])
            os.setuid(uid)
    return fn


def run(cmd, timeout, cwd=None, env=None, limits=None, uid=None, kill_after=None,
        kill_when=None, ignore_signals=(), stdin=subprocess.DEVNULL):
    """Runs `cmd` (a list) in its own session; on timeout, at `kill_after` seconds, or once
    `kill_when` (a predicate polled every 5 ms) holds, its whole process group gets SIGKILL.
    `limits` maps resource.RLIMIT_* to a value."""
    cmd = [str(c) for c in cmd]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True,
                         preexec_fn=_preexec(limits, uid, ignore_signals))
    chunks = []
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: p.stdout.read(65536), b"")))
    reader.start()
    sent, timed_out = None, False
    while p.poll() is None:
        now = time.monotonic() - t0
        if now > timeout:
            timed_out = True
        elif (kill_after is not None and now >= kill_after) or (kill_when and kill_when()):
            sent = signal.SIGKILL
        else:
            time.sleep(0.005)
            continue
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    reader.join(5)
    if reader.is_alive():  # a descendant still holds the output open: end the group
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        reader.join()
    p.stdout.close()
    secs = time.monotonic() - t0
    rc, sig = (p.returncode, None) if p.returncode >= 0 else (None, -p.returncode)
    if sig != signal.SIGKILL:
        sent = None  # it ended before the kill landed
    out = b"".join(chunks).decode("utf-8", "replace")
    return Run(cmd, rc, sig, out, timed_out, secs, sent)


@dataclass
class Case:
    """One hostile input or fault. `fn(ctx)` returns (verdict, note) for what it observed."""
    cls: str  # the class label, e.g. "1 degenerate-vk"
    name: str
    fn: object
    heavy: bool = False  # proves or makes params: run alone, not beside other cases


@dataclass
class Context:
    dir: str  # a fresh temporary directory of this case
    fx: object  # the shared fixtures (fixtures.Fixtures)
    runs: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, cmd, timeout=QUICK_TIMEOUT, **kw):
        kw.setdefault("cwd", self.dir)
        r = run(cmd, timeout, **kw)
        with self.lock:
            self.runs.append(r)
        return r

    def path(self, *parts):
        return os.path.join(self.dir, *parts)


def forced_verdict(runs):
    """CRASH or HANG when any command crashed or hung, with a note; else None."""
    for r in runs:
        if r.timed_out:
            return HANG, f"{os.path.basename(r.cmd[0])} {r.describe()}"
    for r in runs:
        if r.sig is not None and r.sig != r.sent:
            return CRASH, f"{os.path.basename(r.cmd[0])} {r.describe()}"
        # ld.so's "Inconsistency detected ... Assertion" ends the loading process with status
        # 127 (no signal): for a validate child that is the reported FAIL row, not a crash.
        lines = [ln for ln in r.out.splitlines() if "Inconsistency detected by ld.so" not in ln]
        marker = next((m for m in CRASH_MARKERS if any(m in ln for ln in lines)), None)
        if marker:
            return CRASH, f"{os.path.basename(r.cmd[0])} printed '{marker}'"
    return None


# The verdicts most cases share.

def refused(r, *names, what="the input"):
    """`r` must fail: exit 0 is WRONG; a non-zero exit naming one of `names` is OK, else UNCLEAR."""
    if r.rc == 0:
        return WRONG, f"exit 0: {what} was accepted where failure is required"
    if r.rc is None:
        return UNCLEAR, r.describe()  # a sent signal; forced_verdict judged the others
    if not names or r.names(*names):
        return OK, f"refused ({r.describe()})"
    return UNCLEAR, f"{r.describe()} without naming {' or '.join(repr(n) for n in names)}"


def succeeded(r, what="the command"):
    if r.rc == 0:
        return OK, "succeeded"
    return WRONG, f"{what} failed ({r.describe()}) where success is required"


def tail(text, lines=8, width=200):
    rows = [ln if len(ln) <= width else ln[:width] + f"... ({len(ln)} chars)"
            for ln in text.rstrip().splitlines()[-lines:]]
    return "\n".join("        | " + ln for ln in rows)


ECHO_LIMIT = 400  # characters of one hostile value a message may repeat (issue 13: ~200)


def longest_echo(text):
    """The longest run of one repeated character in `text` (at least 1 for non-empty text): how
    much of a huge hostile value (a 3 MB number of one digit) a message echoed."""
    return max((len(m.group(0)) for m in re.finditer(r"(.)\1{63,}", text)), default=1)
