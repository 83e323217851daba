#!/usr/bin/env python3
"""Checks the relative links of the repository's Markdown files.

Usage: check_links.py [REPO_ROOT] [--local-anchors]

For README.md, every docs/*.md and every other *.md file of the tree (build directories, .git,
node_modules and gpu-bundle/ skipped), each relative link [text](path) or [text](path#anchor),
image ![alt](path) and reference definition [label]: path must resolve to an existing file or
folder relative to the linking file (a path starting with / is relative to the repository root).
A #anchor into a .md file must name one of its headings, by GitHub's slug rules. http(s):,
mailto: and other scheme: links are not checked, nor are links inside code spans or fenced
code blocks. Pure #anchors (into the same file) are checked only with --local-anchors.
Also checks that README.md has at most 260 lines.

Prints each problem as FILE:LINE: TARGET (why) and exits 1 if there is any; 0 otherwise.
Standard library only.
"""
import os
import re
import sys
import urllib.parse

README_MAX_LINES = 260
SKIP_DIRS = {".git", "node_modules", "gpu-bundle", "params", "__pycache__"}

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# [text](target "title"): text may hold one level of brackets (an image inside a link).
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
HTML_ID = re.compile(r"<a\s+[^>]*(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)


def skip_dir(name):
    return name in SKIP_DIRS or name.startswith("build")


def markdown_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not skip_dir(d))
        for f in sorted(filenames):
            if f.endswith(".md"):
                out.append(os.path.join(dirpath, f))
    return out


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            yield n, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                and line.strip() == m.group(1):
            fence = None


def strip_code_spans(line):
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def github_slug(heading):
    """GitHub's anchor of a heading: the rendered text, lower case, punctuation other than
    '-' and '_' removed, each space a '-'."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", heading)       # images -> alt
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)          # links -> text
    text = re.sub(r"<[^>]+>", "", text)                            # inline HTML
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)               # strong
    text = re.sub(r"(?<!\w)([*_])(.+?)\1(?!\w)", r"\2", text)      # emphasis
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors_of(path):
    if path in _anchor_cache:
        return _anchor_cache[path]
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        _anchor_cache[path] = set()
        return set()
    seen = {}
    anchors = set()
    prev = None
    for _, line in prose_lines(text):
        for m in HTML_ID.finditer(line):
            anchors.add(m.group(1))
        heading = None
        m = ATX.match(line)
        if m:
            heading = m.group(2)
        elif prev is not None and prev.strip() and SETEXT.match(line) \
                and not ATX.match(prev) and not prev.lstrip().startswith(("-", "*", "|", ">")):
            heading = prev.strip()
        prev = line
        if heading is None:
            continue
        slug = github_slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    _anchor_cache[path] = anchors
    return anchors


def link_targets(line):
    line = strip_code_spans(line)
    for m in INLINE_LINK.finditer(line):
        yield m.group(1)
    m = REF_DEF.match(line)
    if m:
        yield m.group(1)


def check_target(root, md_path, target, local_anchors):
    """None if fine, else the reason."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target:
        return "empty link"
    if SCHEME.match(target):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part.split("?", 1)[0])
    anchor = urllib.parse.unquote(anchor)
    if not path_part:
        if not local_anchors or not anchor:
            return None
        dest = md_path
    elif path_part.startswith("/"):
        dest = os.path.normpath(os.path.join(root, path_part.lstrip("/")))
    else:
        dest = os.path.normpath(os.path.join(os.path.dirname(md_path), path_part))
    rel_root = os.path.relpath(dest, root)
    if rel_root == ".." or rel_root.startswith(".." + os.sep):
        return "points outside the repository"
    if not os.path.exists(dest):
        return "no such file or folder"
    if anchor and dest.endswith(".md") and os.path.isfile(dest):
        if anchor.lower() not in anchors_of(dest) and anchor not in anchors_of(dest):
            return f"no heading with anchor #{anchor} in {os.path.relpath(dest, root)}"
    return None


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    local_anchors = "--local-anchors" in argv[1:]
    root = os.path.abspath(args[0] if args else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    problems = []
    readme = os.path.join(root, "README.md")
    if not os.path.isfile(readme):
        problems.append("README.md: missing")
    else:
        with open(readme, encoding="utf-8") as f:
            n = len(f.read().splitlines())
        if n > README_MAX_LINES:
            problems.append(f"README.md: {n} lines, more than {README_MAX_LINES}")
    files = markdown_files(root)
    links = 0
    for md in files:
        try:
            with open(md, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            problems.append(f"{os.path.relpath(md, root)}: unreadable ({e})")
            continue
        for n, line in prose_lines(text):
            for target in link_targets(line):
                links += 1
                why = check_target(root, md, target, local_anchors)
                if why:
                    problems.append(f"{os.path.relpath(md, root)}:{n}: {target} ({why})")
    for p in problems:
        print(p)
    print(f"check_links: {len(files)} Markdown files, {links} links, {len(problems)} problems",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
