#!/usr/bin/env python3
"""Checks the file paths that header banners cite.

Usage: check_banners.py [REPO_ROOT]

STYLE: every header opens with a comment of 3-6 lines saying what it is for; many begin with the
file's own name (`// zkpipe/sdk/status.h: ...`, `// engine_impl.h: ...`). For every *.h, *.cuh
and *.hpp under engine/ plugins/ backends/ tools/ apps/ tests/ (build directories, .git and
any directory holding a CMakeCache.txt skipped) this reads that first comment block and checks:

(a) when the first comment line begins with a path-like token ending in .h/.cuh/.hpp followed by
    ':', the token names THIS file: its repository path, its include path under an include root,
    its name relative to its folder, or any other trailing part of its path
    (`post/common/shape.h` for plugins/post/common/shape.h);
(b) every other path the block cites exists. A cited path is a token with a '/' and a file
    extension (`common/buffer_pool.h`, `engine/crypto/gen/gen_mont_mul_adx.py`), a token
    starting with a top-level folder (`engine/`, `plugins/`, `backends/`, `tests/`, `tools/`,
    `apps/`, `configs/`, `scripts/`, `cmake/`, `docs/`), or a `zkpipe/...` include path. It
    exists when it names a file or folder relative to the repository root, to an include root,
    to the header's folder or (for a token not starting with a top-level folder or `zkpipe/`)
    to a folder above it. Braces expand (`compute_glue.{h,cpp}`); a glob (`zkpipe/abi/*.h`)
    must match at least one file. Placeholders (`<name>.so`, `BUILD_DIR/...`), absolute paths,
    URLs, build outputs (`build/...`) and prose such as `a/b/c` or `GB/s` are not paths.

Include roots: every folder named `include` or `internal`, every folder that holds a `zkpipe`
folder, and the folders named by target_include_directories / include_directories in the
CMakeLists.txt and *.cmake files (${PROJECT_SOURCE_DIR}, ${CMAKE_SOURCE_DIR},
${CMAKE_CURRENT_SOURCE_DIR}, ${CMAKE_CURRENT_LIST_DIR} and a file's own set() variables
resolved; folders outside the tree or not present are dropped).

Prints each problem as FILE:LINE: CITED (why) and exits 1 if there is any. Standard library only.
"""
import glob
import os
import re
import sys

HEADER_EXTS = (".h", ".cuh", ".hpp")
SCAN_DIRS = ("engine", "plugins", "backends", "tools", "apps", "tests")
TOP_DIRS = ("engine", "plugins", "backends", "tests", "tools", "apps", "configs", "scripts",
            "cmake", "docs")
SKIP_DIRS = {".git", "node_modules", "gpu-bundle", "__pycache__"}
# Extensions a cited file may have in this tree.
FILE_EXTS = {"h", "hpp", "cuh", "cpp", "cc", "c", "cu", "S", "s", "py", "sh", "md", "txt",
             "cmake", "toml", "yaml", "yml", "json", "proto", "inc", "map", "in", "mjs", "js",
             "html", "css", "png", "service", "ptx", "cubin", "r1cs", "wtns", "zkey", "ptau"}

SELF_TOKEN = re.compile(r"^\s*([A-Za-z0-9_.+/-]+\.(?:h|cuh|hpp))\s*:")
# Candidate tokens: runs of path characters with at least one '/'.
TOKEN = re.compile(r"[A-Za-z0-9_.+*{},<>$@-]*(?:/[A-Za-z0-9_.+*{},<>$@-]*)+")


def skip_dir(dirpath, name):
    if name in SKIP_DIRS or name.startswith("build"):
        return True
    return os.path.isfile(os.path.join(dirpath, name, "CMakeCache.txt"))


def walk(root, top):
    base = os.path.join(root, top)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not skip_dir(dirpath, d))
        yield dirpath, dirnames, filenames


def cmake_include_dirs(root):
    found = set()
    cmake_files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not skip_dir(dirpath, d))
        for f in filenames:
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                cmake_files.append(os.path.join(dirpath, f))
    call = re.compile(r"\b(?:target_include_directories|include_directories)\s*\(([^)]*)\)",
                      re.S)
    setvar = re.compile(r"\bset\s*\(\s*(\w+)\s+(\"[^\"]*\"|[^\s)]+)\s*\)")
    for path in cmake_files:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        here = os.path.dirname(path)
        text = re.sub(r"#[^\n]*", "", text)
        variables = {"PROJECT_SOURCE_DIR": root, "CMAKE_SOURCE_DIR": root,
                     "CMAKE_CURRENT_SOURCE_DIR": here, "CMAKE_CURRENT_LIST_DIR": here}
        for m in setvar.finditer(text):
            if m.group(1) not in variables:
                variables[m.group(1)] = m.group(2).strip('"')

        def expand(s, depth=0):
            out = re.sub(r"\$\{(\w+)\}", lambda v: variables.get(v.group(1), "\0"), s)
            return expand(out, depth + 1) if "${" in out and depth < 4 else out

        for m in call.finditer(text):
            args = m.group(1)
            args = re.sub(r"\$<INSTALL_INTERFACE:[^>]*>", " ", args)
            args = re.sub(r"\$<BUILD_INTERFACE:([^>]*)>", r"\1", args)
            for arg in args.split():
                arg = expand(arg.strip('"'))
                if "\0" in arg or "$" in arg or arg.isupper():
                    continue
                d = os.path.normpath(arg if os.path.isabs(arg) else os.path.join(here, arg))
                if d.startswith(root + os.sep) and os.path.isdir(d):
                    found.add(d)
    return found


def include_roots(root):
    roots = set(cmake_include_dirs(root))
    for dirpath, dirnames, _ in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not skip_dir(dirpath, d))
        for d in dirnames:
            if d in ("include", "internal"):
                roots.add(os.path.join(dirpath, d))
            if d == "zkpipe":
                roots.add(dirpath)
    return sorted(roots)


def banner(path):
    """[(line number, text)] of the first comment block, comment markers removed."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    out = []
    if i < len(lines) and lines[i].lstrip().startswith("//"):
        while i < len(lines) and lines[i].lstrip().startswith("//"):
            out.append((i + 1, lines[i].lstrip()[2:].lstrip("/!")))
            i += 1
    elif i < len(lines) and lines[i].lstrip().startswith("/*"):
        first = True
        while i < len(lines):
            text = lines[i].strip()
            end = "*/" in text
            if end:
                text = text[:text.index("*/")]
            if first:
                text = text[2:].lstrip("*!")
                first = False
            elif text.startswith("*"):
                text = text[1:]
            out.append((i + 1, text))
            i += 1
            if end:
                break
    return out


def expand_braces(token):
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(token[:m.start()] + alt + token[m.end():]))
    return out


def clean(token):
    token = token.strip("`'\"()[],;:")
    token = re.sub(r":\d+(?::\d+)?$", "", token)      # file:line
    token = token.rstrip(".,;:)")
    while token.endswith("}") and token.count("{") < token.count("}"):
        token = token[:-1]
    return token.lstrip("({")


def is_cited_path(token):
    """Whether a token is a repository path (file, folder or include path), not prose."""
    if "/" not in token or "://" in token or token.startswith("/"):
        return False
    if any(c in token for c in "<>$@") or re.search(r"(^|/)[A-Z][A-Z0-9_]*(/|$)", token):
        return False                                   # <name>.so, BUILD_DIR/..., OUT/...
    if token.startswith(("build", "./build", "../")):
        return False
    first = token.split("/", 1)[0]
    if first in TOP_DIRS or first == "zkpipe":
        return bool(token.split("/", 1)[1]) or token.endswith("/")
    last = token.rstrip("/").rsplit("/", 1)[-1]
    for name in expand_braces(last):
        if "." in name:
            ext = name.rsplit(".", 1)[1]
            if ext in FILE_EXTS and name.rsplit(".", 1)[0]:
                return True
    return False


def exists_somewhere(token, bases):
    for base in bases:
        p = os.path.join(base, token)
        if any(c in token for c in "*?["):
            if glob.glob(p):
                return True
        elif os.path.exists(p):
            return True
    return False


def check_file(root, roots, path, problems):
    rel = os.path.relpath(path, root)
    block = banner(path)
    if not block:
        return
    folder = os.path.dirname(path)
    ancestors = []
    d = os.path.dirname(folder)
    while d.startswith(root) and d != root:
        ancestors.append(d)
        d = os.path.dirname(d)
    self_line, self_token = None, None
    m = SELF_TOKEN.match(block[0][1])
    if m:
        self_line, self_token = block[0][0], m.group(1)
        parts = rel.split(os.sep)
        suffixes = {"/".join(parts[i:]) for i in range(len(parts))}
        names_self = self_token in suffixes or any(
            os.path.normpath(os.path.join(r, self_token)) == os.path.normpath(path)
            for r in [root, folder] + roots)
        if not names_self:
            expected = [os.path.relpath(path, r).replace(os.sep, "/") for r in roots
                        if path.startswith(r + os.sep)]
            hint = min(expected, key=len) if expected else rel
            problems.append(f"{rel}:{self_line}: {self_token} (the banner names another file; "
                            f"this one is {rel}, e.g. '{hint}:')")
    for line_no, text in block:
        for raw in TOKEN.findall(text):
            token = clean(raw)
            if line_no == self_line and token == self_token:
                continue
            if not is_cited_path(token):
                continue
            first = token.split("/", 1)[0]
            bases = [root] + roots + [folder]
            if first not in TOP_DIRS and first != "zkpipe":
                bases += ancestors
            missing = [t for t in expand_braces(token) if not exists_somewhere(t, bases)]
            if missing:
                if any(c in token for c in "*?["):
                    why = "the glob matches no file"
                else:
                    why = "no such file or folder in the repository or under an include root"
                    if len(missing) < len(expand_braces(token)):
                        why = "missing: " + ", ".join(missing)
                problems.append(f"{rel}:{line_no}: {token} ({why})")


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    roots = include_roots(root)
    problems = []
    count = 0
    for top in SCAN_DIRS:
        for dirpath, _, filenames in walk(root, top):
            for f in sorted(filenames):
                if f.endswith(HEADER_EXTS):
                    count += 1
                    check_file(root, roots, os.path.join(dirpath, f), problems)
    for p in problems:
        print(p)
    print(f"check_banners: {count} headers, {len(roots)} include roots, {len(problems)} problems",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
